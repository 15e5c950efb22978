import Foundation
import PasteboardTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One test's world on the shared headless sway: a sandbox whose children get `WAYLAND_DISPLAY`, the built `pb`,
/// `wl-copy`/`wl-paste`, the scriptable `wayland-test-source` and a GTK 4 owner. The suites using it are
/// serialized: the compositor has one seat, so one clipboard.
final class WaylandSession {
    let sway: HeadlessSway
    let sandbox: ProcessSandbox

    convenience init() async throws {
        try await self.init(sway: try await HeadlessSway.shared(requiredBy: "the Wayland backend tests"))
    }

    /// A world on `sway`, a compositor of the test's own; its children also get `environment` (`DISPLAY`).
    init(sway: HeadlessSway, environment: [String: String] = [:]) async throws {
        self.sway = sway
        sandbox = try ProcessSandbox(
            label: "pbwl", environment: environment.merging(["WAYLAND_DISPLAY": sway.socketPath]) { _, new in new })
        // What an earlier test left on the clipboard is not this test's. (Not `wl-copy --clear`: it clears from a
        // forked child, which may do so after this test's daemon took the clipboard. pb clears before it exits.)
        _ = try await sandbox.run(try Product.pb.path(), ["clear"], timeout: .seconds(10))
    }

    static func tool(_ name: String, package: String) throws -> String {
        guard let path = executableOnPath(name) else {
            throw SetupFailure("'\(name)' is needed by the Wayland backend tests: apt-get install -y \(package)")
        }
        return path
    }

    // MARK: - Clients

    /// `wl-copy --foreground --type TYPE` serving `data` until another client copies. (The type is always
    /// given: without one, wl-copy runs `xdg-mime` to guess it, which takes a quarter of a second.)
    @discardableResult
    func wlCopy(_ data: Data, type: String = "text/plain") throws -> ChildProcess {
        let wlCopy = try Self.tool("wl-copy", package: "wl-clipboard")
        return try sandbox.launch(wlCopy, ["--foreground", "--type", type], stdin: data)
    }

    /// `wl-paste --no-newline [--type TYPE]`.
    func wlPaste(type: String? = nil) async throws -> ProcessResult {
        let wlPaste = try Self.tool("wl-paste", package: "wl-clipboard")
        return try await sandbox.run(wlPaste, ["--no-newline"] + (type.map { ["--type", $0] } ?? []), timeout: .seconds(10))
    }

    /// `wl-paste --list-types`, one type a line.
    func wlTypes() async throws -> [String] {
        let wlPaste = try Self.tool("wl-paste", package: "wl-clipboard")
        let result = try await sandbox.run(wlPaste, ["--list-types"], timeout: .seconds(10))
        return result.succeeded ? result.lines.filter { !$0.isEmpty } : []
    }

    /// `Tests/Fixtures/wayland-test-source.c` with `arguments`, once it says it holds the clipboard.
    func testSource(_ arguments: [String]) async throws -> ChildProcess {
        let source = try sandbox.launch(try TestSource.executable().path, arguments)
        try await waitForReady(source, what: "wayland-test-source")
        return source
    }

    /// `Tests/Fixtures/gtk4-wayland-owner.py` copying `arguments` under `GDK_BACKEND=wayland`: it shows a
    /// window and copies at the first key press, which `wtype` gives it.
    func gtkCopy(_ arguments: [String]) async throws -> ChildProcess {
        let fixtures = TestSource.fixtures()
        let owner = try sandbox.launch(
            "/usr/bin/python3", [fixtures.appendingPathComponent("gtk4-wayland-owner.py").path] + arguments,
            environment: ["GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"])
        try await waitFor(owner, line: "window", what: "the GTK 4 owner's window")
        let wtype = try Self.tool("wtype", package: "wtype")
        // The key lands on the focused window: the newest one, as sway focuses new windows.
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(200)) {
            if !owner.isRunning { return true }
            _ = try await sandbox.run(wtype, ["-k", "Return"], timeout: .seconds(10))
            return owner.stdout.split(separator: UInt8(ascii: "\n")).contains(Array("ready".utf8)[...])
        }
        guard ready, owner.isRunning else {
            throw SetupFailure("The GTK 4 owner did not copy: \(owner.result.map(\.description) ?? owner.stderr)")
        }
        return owner
    }

    /// `Tests/Fixtures/gtk4-wayland-owner.py --again`: a GTK 4 window that copies anew ("copy N", text and HTML)
    /// at every key press, replacing its own copy as an editor does. Returns the window and a keyboard that stays
    /// on the seat (a `wtype` holding a key of no use), so every press lands on the focused window.
    func gtkCopier() async throws -> (window: ChildProcess, keyboard: ChildProcess) {
        let fixtures = TestSource.fixtures()
        let window = try sandbox.launch(
            "/usr/bin/python3", [fixtures.appendingPathComponent("gtk4-wayland-owner.py").path, "--again"],
            environment: ["GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"])
        try await waitFor(window, line: "window", what: "the GTK 4 copier's window")
        let wtype = try Self.tool("wtype", package: "wtype")
        let keyboard = try sandbox.launch(wtype, ["-s", "86400000", "-k", "F24"])
        try await Task.sleep(for: .milliseconds(300))
        return (window, keyboard)
    }

    /// Presses Return in the focused window (the copier copies), and waits until it says it copied `count`.
    func pressToCopy(_ window: ChildProcess, count: Int) async throws {
        let wtype = try Self.tool("wtype", package: "wtype")
        _ = try await sandbox.run(wtype, ["-k", "Return"], timeout: .seconds(10))
        let line = Array("copied \(count)".utf8)[...]
        let copied = try await eventually(within: .seconds(10), every: .milliseconds(10)) {
            window.stdout.split(separator: UInt8(ascii: "\n")).contains(line)
        }
        guard copied else { throw SetupFailure("The GTK 4 copier did not copy a \(count)th time: \(window.stderr)") }
    }

    private func waitForReady(_ process: ChildProcess, what: String) async throws {
        try await waitFor(process, line: "ready", what: what)
    }

    private func waitFor(_ process: ChildProcess, line: String, what: String) async throws {
        let seen = try await eventually(within: .seconds(15), every: .milliseconds(10)) {
            !process.isRunning || process.stdout.split(separator: UInt8(ascii: "\n")).contains(Array(line.utf8)[...])
        }
        guard seen, process.isRunning else {
            throw SetupFailure("\(what) did not start: \(process.result.map(\.description) ?? process.stderr)")
        }
    }

    // MARK: - pb

    func pb(_ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(30)) async throws -> ProcessResult {
        try await sandbox.run(try Product.pb.path(), arguments, stdin: stdin, timeout: timeout)
    }

    /// Runs pb and throws, with its output, unless it exits 0.
    @discardableResult
    func succeed(_ arguments: [String], stdin: Data? = nil) async throws -> ProcessResult {
        let result = try await pb(arguments, stdin: stdin)
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    /// Starts `pb daemon` and waits until it is ready.
    func startDaemon() async throws -> ChildProcess {
        let daemon = try sandbox.launch(try Product.pb.path(), ["daemon"])
        // Its banner comes once it watches the clipboard and answers requests. (The socket file exists a moment
        // before it listens: a `pb copy` then would find no daemon and start an owner of its own.)
        let ready = try await eventually(within: .seconds(15), every: .milliseconds(10)) {
            !daemon.isRunning || String(decoding: daemon.stdout, as: UTF8.self).contains("Pasteboard daemon")
        }
        guard ready, daemon.isRunning else {
            daemon.terminate(grace: .seconds(1))
            throw SetupFailure("pb daemon did not come up: \(daemon.result.map(\.description) ?? daemon.stderr)")
        }
        return daemon
    }

    /// Stops the daemon and expects a clean exit.
    func stop(daemon: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        daemon.send(SIGTERM)
        let exit = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(
            exit == .init(status: 0, wasSignalled: false),
            "pb daemon after SIGTERM: \(String(describing: exit)); stderr: \(daemon.stderr.suffix(2000))",
            sourceLocation: sourceLocation)
    }

    /// `pb history --json`, newest first.
    func history() async throws -> [[String: Any]] {
        let result = try await succeed(["history", "--json", "--limit", "1000"])
        guard let array = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]] else {
            throw SetupFailure("pb history --json printed no JSON array: \(result)")
        }
        return array
    }

    /// Waits (at most `timeout`) until the history holds `count` items; returns them.
    func waitForHistory(count: Int, timeout: Duration = .seconds(10)) async throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        _ = try await eventually(within: timeout, every: .milliseconds(50)) {
            items = try await history()
            return items.count >= count
        }
        return items
    }

    /// Waits until the daemon's log has `text`.
    func waitForLog(_ daemon: ChildProcess, _ text: String, timeout: Duration = .seconds(10)) async throws -> Bool {
        try await eventually(within: timeout, every: .milliseconds(20)) { daemon.stderr.contains(text) }
    }

    /// Every file under the store directory, read whole: for looking for traces.
    func storeFiles() throws -> [(path: String, data: Data)] {
        guard let walker = FileManager.default.enumerator(atPath: sandbox.storeDirectory.path) else { return [] }
        var files: [(String, Data)] = []
        for case let relative as String in walker {
            let path = sandbox.storeDirectory.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append((path, try Data(contentsOf: URL(fileURLWithPath: path))))
            }
        }
        return files
    }
}

/// The fixtures' C programs, compiled once per test run: `wayland-test-source.c` (against `Sources/CWayland`)
/// and `wayland-plain-compositor.c`.
enum TestSource {
    private static let compiled = Mutex<Result<URL, SetupFailure>?>(nil)
    private static let compiledCompositor = Mutex<Result<URL, SetupFailure>?>(nil)

    /// `Tests/Fixtures`.
    static func fixtures(filePath: String = #filePath) -> URL {
        // Tests/WaylandBackendTests/Support/WaylandSession.swift → Tests/Fixtures
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func executable() throws -> URL {
        try compiled.withLock { cached in
            if let cached { return try cached.get() }
            let module = fixtures().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Sources/CWayland")
            let result = compile(
                "wayland-test-source",
                extra: [
                    module.appendingPathComponent("interfaces.c").path, "-I", module.appendingPathComponent("include").path,
                    "-lwayland-client",
                ])
            cached = result
            return try result.get()
        }
    }

    /// A compositor with a seat and no data-control (see `wayland-plain-compositor.c`).
    static func plainCompositor() throws -> URL {
        try compiledCompositor.withLock { cached in
            if let cached { return try cached.get() }
            let result = compile("wayland-plain-compositor", extra: ["-lwayland-server"])
            cached = result
            return try result.get()
        }
    }

    private static let prefix = "pb-wayland-source-"

    /// The builds of earlier test runs whose process is gone.
    private static func removeStaleBuilds() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: "/tmp/" + name)  // best effort: another run may race us
            }
        }
    }

    private static func compile(_ name: String, extra: [String]) -> Result<URL, SetupFailure> {
        let source = fixtures().appendingPathComponent("\(name).c")
        guard let compiler = executableOnPath("cc") ?? executableOnPath("gcc") else {
            return .failure(SetupFailure("No C compiler (cc) found to build \(source.lastPathComponent)."))
        }
        if name == "wayland-test-source" { removeStaleBuilds() }
        let directory = URL(fileURLWithPath: "/tmp/\(prefix)\(getpid())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let output = directory.appendingPathComponent(name)
            let process = try ChildProcess(
                executable: compiler,
                arguments: [
                    "-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror", "-o", output.path, source.path,
                ] + extra,
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                stdin: nil, ioDirectory: directory)
            _ = process.waitBlocking(timeout: .seconds(60))
            guard process.termination == .init(status: 0, wasSignalled: false) else {
                process.terminate(grace: .seconds(1))
                return .failure(
                    SetupFailure("Compiling \(source.lastPathComponent) failed (is libwayland-dev installed?): \(process.stderr)"))
            }
            return .success(output)
        } catch {
            return .failure(SetupFailure("Compiling \(source.lastPathComponent): \(error)"))
        }
    }
}

/// `count` bytes of every value, from a fixed seed (xorshift64): binary data no text conversion survives.
func randomBytes(count: Int, seed: UInt64) -> Data {
    var state = seed | 1
    var data = Data(count: count)
    data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            buffer[index] = UInt8(truncatingIfNeeded: state)
        }
    }
    return data
}
