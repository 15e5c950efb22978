import Foundation
import PasteboardHistory
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A command the test ran to set something up failed.
struct CommandFailed: Error, CustomStringConvertible {
    let result: ProcessResult
    var description: String { "\(result)" }
}

/// A private world for one test: fresh data, config, runtime and home directories, headless or with its own
/// Xvfb, and helpers to run the built `pb`, the example programs, `xclip` and `sqlite3` against them. Everything
/// it started is stopped, and its directory removed, when it goes away.
final class Sandbox: Sendable {
    let root: URL
    /// The X server, when the sandbox has one.
    let display: VirtualDisplay?
    /// The environment every child starts with: PATH, DISPLAY when there is one, and everything pb reads
    /// pointed into `root`.
    let environment: [String: String]
    private let io: URL
    private let children = Mutex<[ChildProcess]>([])

    /// A headless sandbox: no DISPLAY, so `general` is the store.
    convenience init() throws {
        try self.init(root: Self.makeRoot(), display: nil)
    }

    /// A sandbox with its own Xvfb (which fails the test, never skips it, when Xvfb is missing).
    convenience init(displayLifetime: VirtualDisplay.Lifetime) async throws {
        let root = try Self.makeRoot()
        do {
            let display = try await VirtualDisplay(
                ioDirectory: root.appendingPathComponent("io"), lifetime: displayLifetime)
            try self.init(root: root, display: display)
        } catch {
            try? FileManager.default.removeItem(at: root)  // best effort: a leftover temp directory harms nobody
            throw error
        }
    }

    private init(root: URL, display: VirtualDisplay?) throws {
        self.root = root
        self.display = display
        io = root.appendingPathComponent("io", isDirectory: true)
        var environment = [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "PB_RUNTIME_DIR": root.appendingPathComponent("run").path,
            "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
            "HOME": root.appendingPathComponent("home").path,
            "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        if let display { environment["DISPLAY"] = display.name }
        self.environment = environment
    }

    /// A new directory under /tmp: short, so the daemon's socket path stays far below the 108-byte limit.
    private static func makeRoot() throws -> URL {
        let root = URL(fileURLWithPath: "/tmp/pbsys-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        for name in ["data", "config", "run", "home", "io", "files"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        return root
    }

    deinit {
        // Children first (a daemon or a holding `profile` a failed test left running), then the X server
        // (released after this body), which takes every remaining client with it.
        for child in children.withLock({ $0 }).reversed() where child.isRunning {
            child.terminate(grace: .milliseconds(500))
        }
        try? FileManager.default.removeItem(at: root)  // best effort: a leftover temp directory harms nobody
    }

    // MARK: - Paths

    var storeLocation: StoreLocation { StoreLocation.standard(environment: environment) }
    var socketPath: String { root.appendingPathComponent("run/control.sock").path }

    /// Writes `data` to a new file under `files/` and returns its URL.
    func file(_ data: Data, name: String = UUID().uuidString) throws -> URL {
        let url = root.appendingPathComponent("files/\(name)")
        try data.write(to: url)
        return url
    }

    /// A new empty directory under `files/`.
    func directory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent("files/\(name)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: - Processes

    /// Starts `executable` in this sandbox's environment (changed by `changes`; nil removes a variable).
    func launch(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment changes: [String: String?] = [:]
    ) throws -> ChildProcess {
        var environment = self.environment
        for (key, value) in changes { environment[key] = value }
        let input = try stdin.map { try file($0, name: "stdin-\(UUID().uuidString)") }
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment, stdin: input, ioDirectory: io)
        children.withLock { $0.append(child) }
        return child
    }

    /// Starts a built product.
    func launch(_ product: Product, _ arguments: [String], stdin: Data? = nil) throws -> ChildProcess {
        try launch(try product.path(), arguments, stdin: stdin)
    }

    /// Runs `executable` to its end; kills it and throws `ProcessTimeout` after `timeout`.
    func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(30))
        async throws -> ProcessResult
    {
        try await launch(executable, arguments, stdin: stdin).finish(timeout: timeout)
    }

    /// Runs a built product to its end.
    func run(_ product: Product, _ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(30))
        async throws -> ProcessResult
    {
        try await run(try product.path(), arguments, stdin: stdin, timeout: timeout)
    }

    /// Runs a built product and throws, with its output, unless it exits 0.
    @discardableResult
    func succeed(_ product: Product, _ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(30))
        async throws -> ProcessResult
    {
        let result = try await run(product, arguments, stdin: stdin, timeout: timeout)
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    // MARK: - Tools

    /// The path of a tool the tests need, or a `SetupFailure` saying how to install it.
    static func tool(_ name: String, package: String) throws -> String {
        guard let path = executableOnPath(name) else {
            throw SetupFailure(
                "'\(name)' is needed by the PasteboardSystem integration tests: apt-get install -y \(package)")
        }
        return path
    }

    /// `xclip -selection clipboard -o [-t target]`.
    func xclipPaste(target: String? = nil) async throws -> ProcessResult {
        let xclip = try Self.tool("xclip", package: "xclip")
        return try await run(
            xclip, ["-selection", "clipboard", "-o"] + (target.map { ["-t", $0] } ?? []), timeout: .seconds(10))
    }

    /// Starts `xclip -quiet -i` owning the clipboard with `text`: it stays in the foreground (so the sandbox can
    /// stop it) and serves until another client takes the selection.
    func xclipCopy(_ text: String) throws -> ChildProcess {
        let xclip = try Self.tool("xclip", package: "xclip")
        let input = try file(Data(text.utf8))
        return try launch(xclip, ["-selection", "clipboard", "-quiet", "-i", input.path])
    }

    /// Runs `sql` on the sandbox's history database with the sqlite3 tool; returns its output, trimmed.
    @discardableResult
    func sqlite(_ sql: String) async throws -> String {
        let sqlite3 = try Self.tool("sqlite3", package: "sqlite3")
        let result = try await run(
            sqlite3, ["-cmd", ".timeout 5000", storeLocation.databaseURL.path, sql], timeout: .seconds(10))
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: - pb

    /// The history, newest first, from `pb history --json --limit N`.
    func history(limit: Int = 1000) async throws -> [[String: Any]] {
        let result = try await succeed(.pb, ["history", "--json", "--limit", String(limit)])
        guard let array = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]] else {
            throw SetupFailure("pb history --json printed no JSON array: \(result)")
        }
        return array
    }

    /// Starts `pb daemon` and waits (at most 15 s) until its control socket exists.
    func startDaemon() async throws -> ChildProcess {
        let daemon = try launch(.pb, ["daemon"])
        let ready = try await eventually(within: .seconds(15), every: .milliseconds(10)) {
            !daemon.isRunning || access(socketPath, F_OK) == 0
        }
        guard ready, daemon.isRunning else {
            daemon.terminate(grace: .seconds(1))
            throw SetupFailure(
                "pb daemon did not come up within 15 s: \(daemon.result.map(\.description) ?? daemon.stderr)")
        }
        return daemon
    }

    /// Stops the daemon with SIGTERM and expects a clean exit (status 0) within 10 s.
    func stop(daemon: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        daemon.send(SIGTERM)
        let exit = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(
            exit == .init(status: 0, wasSignalled: false),
            "pb daemon after SIGTERM: \(String(describing: exit)); stderr: \(daemon.stderr.suffix(2000))",
            sourceLocation: sourceLocation)
    }
}

extension ProcessResult {
    /// Standard output split into lines, without the line ends.
    var lines: [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
