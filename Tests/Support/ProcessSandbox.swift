public import Foundation
import Synchronization

/// A private world for the child processes of one test: a fresh directory under /tmp, an environment that points
/// everything pb reads into it, and, when asked for, its own Xvfb.
///
/// The directory holds `data`, `config`, `run`, `state` and `home` (the XDG directories and `HOME`), `io` (the children's
/// output files) and `files` (inputs the test writes). Every child started through the sandbox is stopped, and the
/// directory removed, when the sandbox goes away; the X server goes last and takes its remaining clients with it.
///
/// ```swift
/// let sandbox = try await ProcessSandbox(label: "pbx11", requiredBy: "the X11 integration tests")
/// let result = try await sandbox.run(try Product.pb.path(), ["paste"])
/// ```
public final class ProcessSandbox: Sendable {
    public let root: URL
    /// The X server, when the sandbox has one.
    public let display: VirtualDisplay?
    /// The environment every child starts with: PATH, DISPLAY when there is a display, and everything pb reads
    /// pointed into `root`.
    public let environment: [String: String]
    private let io: URL
    private let children = Mutex<[ChildProcess]>([])

    /// A headless sandbox: no DISPLAY. Its directory is `/tmp/<label>-<8 random hex digits>`.
    public convenience init(label: String) throws {
        try self.init(root: Self.makeRoot(label: label), display: nil)
    }

    /// A sandbox with its own Xvfb, which fails the test (never skips it) when Xvfb is missing.
    ///
    /// - Parameters:
    ///   - label: The start of the directory's name.
    ///   - displayLifetime: How long the X server runs.
    ///   - tests: Who needs the display, for the message when Xvfb is missing.
    ///   - screen: The X screen's `WIDTHxHEIGHTxDEPTH`.
    public convenience init(
        label: String, displayLifetime: VirtualDisplay.Lifetime = .test, requiredBy tests: String,
        screen: String = "320x240x24"
    ) async throws {
        let root = try Self.makeRoot(label: label)
        do {
            let display = try await VirtualDisplay(
                ioDirectory: root.appendingPathComponent("io"), lifetime: displayLifetime, requiredBy: tests,
                screen: screen)
            try self.init(root: root, display: display)
        } catch {
            try? FileManager.default.removeItem(at: root)  // best effort: a leftover temp directory harms nobody
            throw error
        }
    }

    /// A sandbox on a display that outlives it (one X server shared by several tests, with a browser on it):
    /// its own directory and environment, and `display` as DISPLAY. The display is not stopped with the sandbox.
    public convenience init(label: String, sharing display: VirtualDisplay) throws {
        try self.init(root: Self.makeRoot(label: label), display: display)
    }

    /// A sandbox whose children also get `extra` (such as `WAYLAND_DISPLAY` for a headless compositor).
    public convenience init(label: String, environment extra: [String: String]) throws {
        try self.init(root: Self.makeRoot(label: label), display: nil, extra: extra)
    }

    private init(root: URL, display: VirtualDisplay?, extra: [String: String] = [:]) throws {
        self.root = root
        self.display = display
        io = root.appendingPathComponent("io", isDirectory: true)
        var environment = [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "PB_RUNTIME_DIR": root.appendingPathComponent("run").path,
            "XDG_RUNTIME_DIR": root.appendingPathComponent("run").path,
            "HOME": root.appendingPathComponent("home").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        if let display { environment["DISPLAY"] = display.name }
        environment.merge(extra) { _, new in new }
        self.environment = environment
    }

    /// A new directory under /tmp: short, so the daemon's socket path stays far below the 108-byte sun_path limit.
    private static func makeRoot(label: String) throws -> URL {
        let root = URL(fileURLWithPath: "/tmp/\(label)-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        for name in ["data", "config", "run", "home", "state", "io", "files"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        return root
    }

    deinit {
        // Children first (a daemon or a holding `profile` a failed test left running), then the X server
        // (released after this body), which takes every remaining client (forked xclip owners, `pb __serve`) with it.
        for child in children.withLock({ $0 }).reversed() where child.isRunning {
            child.terminate(grace: .milliseconds(500))
        }
        try? FileManager.default.removeItem(at: root)  // best effort: a leftover temp directory harms nobody
    }

    // MARK: - Paths

    /// pb's store directory (`$XDG_DATA_HOME/pasteboard`).
    public var storeDirectory: URL { root.appendingPathComponent("data/pasteboard", isDirectory: true) }
    /// The daemon's control socket.
    public var socketPath: String { root.appendingPathComponent("run/control.sock").path }

    /// Writes `data` to a new file under `files/` and returns its URL.
    public func file(_ data: Data, name: String = UUID().uuidString) throws -> URL {
        let url = root.appendingPathComponent("files/\(name)")
        try data.write(to: url)
        return url
    }

    /// A new empty directory under `files/`.
    public func directory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent("files/\(name)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: - Processes

    /// Starts `executable` in this sandbox's environment (changed by `changes`; nil removes a variable), with
    /// `stdin` (when given) as its standard input.
    public func launch(
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

    /// Runs `executable` to its end; kills it and throws `ProcessTimeout` after `timeout`.
    public func run(_ executable: String, _ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(30))
        async throws -> ProcessResult
    {
        try await launch(executable, arguments, stdin: stdin).finish(timeout: timeout)
    }
}
