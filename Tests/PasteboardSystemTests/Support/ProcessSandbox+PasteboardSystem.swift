import Foundation
import PasteboardHistory
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the PasteboardSystem tests do in a sandbox: run the built `pb` and example programs, `xclip` and `sqlite3`
/// against fresh data, config, runtime and home directories, headless or with the sandbox's own Xvfb.
extension ProcessSandbox {
    /// A headless sandbox: no DISPLAY, so `general` is the store.
    convenience init() throws {
        try self.init(label: "pbsys")
    }

    /// A sandbox with its own Xvfb (which fails the test, never skips it, when Xvfb is missing).
    convenience init(displayLifetime: VirtualDisplay.Lifetime) async throws {
        try await self.init(
            label: "pbsys", displayLifetime: displayLifetime,
            requiredBy: "the X11 integration tests of PasteboardSystem")
    }

    var storeLocation: StoreLocation { StoreLocation.standard(environment: environment) }

    // MARK: - Built products

    /// Starts a built product.
    func launch(_ product: Product, _ arguments: [String], stdin: Data? = nil) throws -> ChildProcess {
        try launch(try product.path(), arguments, stdin: stdin)
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
