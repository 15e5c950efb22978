import Foundation
import PasteboardTestSupport
import Synchronization
import Testing

/// What one run of `pb` left behind: its exit status and both output streams.
struct PBResult: Sendable, CustomStringConvertible {
    let status: Int32
    /// True when the process died of a signal (`status` is then the signal number): a crash, for `pb`.
    let wasSignalled: Bool
    let stdout: Data
    let stderr: String
    /// From the start to the exit, as Foundation's termination thread saw it: how long pb ran, however late the
    /// test itself got a thread of the cooperative pool again (on a loaded two-core machine, seconds).
    var duration: Duration = .zero

    /// Standard output decoded as UTF-8 (lossily).
    var output: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard output split into lines, without the line ends.
    var outputLines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLastIfEmpty() }
    /// Standard error split into lines, without the line ends.
    var errorLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLastIfEmpty() }

    var description: String {
        "exit \(wasSignalled ? "by signal " : "")\(status), stdout \(stdout.count) bytes: \(output.prefix(500).debugDescription), "
            + "stderr: \(stderr.prefix(1000).debugDescription)"
    }
}

extension Array where Element == Substring {
    fileprivate func dropLastIfEmpty() -> [String] {
        var lines = map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// `pb` exited with a status the test did not expect while setting something up.
struct UnexpectedExit: Error, CustomStringConvertible {
    let arguments: [String]
    let result: PBResult
    var description: String { "pb \(arguments.joined(separator: " ")) failed: \(result)" }
}

/// One entry of `pb history --json`.
struct HistoryEntry: Sendable, Equatable {
    let id: Int64
    let preview: String
    let kind: String
    let isPinned: Bool
    let hasExpiry: Bool
    let types: [String]
}

/// A private world for `pb`: fresh data, config, runtime and home directories, no display, and helpers
/// to run the built executable in a subprocess.
///
/// Each test gets its own sandbox (from its suite's `init`), so tests can run in parallel; the directory
/// is removed when the sandbox goes away.
final class Sandbox: Sendable {
    let root: URL
    let dataHome: URL
    let configHome: URL
    let runtimeDirectory: URL
    let home: URL
    /// The environment every run starts from: PATH kept, everything pb reads pointed into `root`.
    let environment: [String: String]

    init() throws {
        // Short, so that the daemon's socket path stays far below the 108-byte sun_path limit.
        let name = "pbcli-" + UUID().uuidString.prefix(8).lowercased()
        root = URL(fileURLWithPath: "/tmp", isDirectory: true).appendingPathComponent(name, isDirectory: true)
        dataHome = root.appendingPathComponent("data", isDirectory: true)
        configHome = root.appendingPathComponent("config", isDirectory: true)
        runtimeDirectory = root.appendingPathComponent("run", isDirectory: true)
        home = root.appendingPathComponent("home", isDirectory: true)
        for directory in [dataHome, configHome, runtimeDirectory, home, root.appendingPathComponent("io")] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var environment: [String: String] = [
            "XDG_DATA_HOME": dataHome.path,
            "XDG_CONFIG_HOME": configHome.path,
            "PB_RUNTIME_DIR": runtimeDirectory.path,
            "XDG_RUNTIME_DIR": runtimeDirectory.path,
            "HOME": home.path,
            "LANG": "C.UTF-8",
        ]
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        self.environment = environment
    }

    deinit {
        try? FileManager.default.removeItem(at: root)  // best effort: a leftover temp directory harms nobody
    }

    // MARK: - Paths pb uses

    var storeDirectory: URL { dataHome.appendingPathComponent("pasteboard", isDirectory: true) }
    var databaseURL: URL { storeDirectory.appendingPathComponent("history.sqlite") }
    var configURL: URL { configHome.appendingPathComponent("pasteboard/config") }
    var socketPath: String { runtimeDirectory.appendingPathComponent("control.sock").path }

    /// Writes `contents` to `name` inside the sandbox and returns its URL.
    @discardableResult
    func file(_ name: String, _ contents: Data) throws -> URL {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url)
        return url
    }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(at: configURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: configURL)
    }

    // MARK: - Running pb

    /// How pb is invoked: by its own name or through a macOS-style link.
    enum Program: String, Sendable {
        case pb, pbcopy, pbpaste
    }

    /// The executable for `program`: pb itself, or a symlink named `pbcopy`/`pbpaste` to it.
    func executable(_ program: Program) throws -> URL {
        let binary = try Product.pb.url()
        if program == .pb { return binary }
        let link = root.appendingPathComponent("bin/\(program.rawValue)")
        if !FileManager.default.fileExists(atPath: link.path) {
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: binary)
        }
        return link
    }

    /// Runs pb with `arguments`, `stdin` as its standard input (/dev/null when nil), and the sandbox's
    /// environment changed by `environment` (a nil value removes a variable).
    ///
    /// Output goes to files, not pipes, so no amount of it can deadlock the two processes. A run that
    /// outlives `timeout` is killed and recorded as an issue.
    func run(
        _ arguments: [String], stdin: Data? = nil, as program: Program = .pb,
        environment changes: [String: String?] = [:], timeout: Duration = .seconds(60),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> PBResult {
        let io = try ProcessFiles(in: root.appendingPathComponent("io"), stdin: stdin)
        defer { io.remove() }
        let process = try makeProcess(program, arguments, changes: changes, io: io)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
            Issue.record("pb \(arguments.joined(separator: " ")) ran longer than \(timeout); killed it.", sourceLocation: sourceLocation)
        }
        defer { watchdog.cancel() }
        let started = ContinuousClock.now
        let ended = Mutex<ContinuousClock.Instant?>(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in
                ended.withLock { $0 = .now }
                continuation.resume()
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        io.closeParentHandles()
        var result = try io.result(of: process)
        result.duration = (ended.withLock { $0 } ?? .now) - started
        return result
    }

    /// Runs pb and throws (failing the test with pb's output) unless it exits 0.
    @discardableResult
    func succeed(_ arguments: [String], stdin: Data? = nil, as program: Program = .pb) async throws -> PBResult {
        let result = try await run(arguments, stdin: stdin, as: program)
        guard result.status == 0, !result.wasSignalled else { throw UnexpectedExit(arguments: arguments, result: result) }
        return result
    }

    /// `pb copy` of `data` on standard input, with extra `arguments`; must succeed.
    func copy(_ data: Data, _ arguments: [String] = []) async throws {
        try await succeed(["copy"] + arguments, stdin: data)
    }

    func copy(_ text: String, _ arguments: [String] = []) async throws {
        try await copy(Data(text.utf8), arguments)
    }

    /// `pb paste`'s bytes; must succeed.
    func paste(_ arguments: [String] = []) async throws -> Data {
        try await succeed(["paste"] + arguments).stdout
    }

    /// The history, newest first, as `pb history --json` reports it.
    func history(_ arguments: [String] = []) async throws -> [HistoryEntry] {
        let result = try await succeed(["history", "--json", "--limit", "1000"] + arguments)
        return try Self.entries(fromJSON: result.stdout)
    }

    static func entries(fromJSON data: Data) throws -> [HistoryEntry] {
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw UnexpectedJSON(text: String(decoding: data, as: UTF8.self))
        }
        return try array.map { object in
            guard let id = (object["id"] as? NSNumber)?.int64Value, let preview = object["preview"] as? String,
                let kind = object["kind"] as? String, let pinned = object["pinned"] as? Bool
            else { throw UnexpectedJSON(text: String(decoding: data, as: UTF8.self)) }
            let expiry = object["expiresAt"]
            return HistoryEntry(
                id: id, preview: preview, kind: kind, isPinned: pinned, hasExpiry: expiry != nil && !(expiry is NSNull),
                types: object["types"] as? [String] ?? [])
        }
    }

    // MARK: - Long-running processes

    /// Starts pb in the background (for `pb daemon`), with the sandbox's environment changed by `environment` (a nil
    /// value removes a variable); the caller stops it.
    func launch(_ arguments: [String], environment changes: [String: String?] = [:]) throws -> LaunchedProcess {
        let io = try ProcessFiles(in: root.appendingPathComponent("io"), stdin: nil)
        let process = try makeProcess(.pb, arguments, changes: changes, io: io)
        try process.run()
        io.closeParentHandles()
        return LaunchedProcess(process: process, io: io)
    }

    private func makeProcess(
        _ program: Program, _ arguments: [String], changes: [String: String?], io: ProcessFiles
    ) throws -> Process {
        var environment = self.environment
        for (key, value) in changes { environment[key] = value }
        let process = Process()
        process.executableURL = try executable(program)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = root
        process.standardInput = io.stdinHandle
        process.standardOutput = io.stdoutHandle
        process.standardError = io.stderrHandle
        return process
    }
}

/// The files standing in for a child's standard streams.
struct ProcessFiles: Sendable {
    let stdinURL: URL?
    let stdoutURL: URL
    let stderrURL: URL
    let stdinHandle: FileHandle
    let stdoutHandle: FileHandle
    let stderrHandle: FileHandle

    init(in directory: URL, stdin: Data?) throws {
        let stem = directory.appendingPathComponent(UUID().uuidString).path
        if let stdin {
            let url = URL(fileURLWithPath: stem + ".in")
            try stdin.write(to: url)
            stdinURL = url
            stdinHandle = try FileHandle(forReadingFrom: url)
        } else {
            stdinURL = nil
            stdinHandle = FileHandle(forReadingAtPath: "/dev/null") ?? FileHandle.nullDevice
        }
        stdoutURL = URL(fileURLWithPath: stem + ".out")
        stderrURL = URL(fileURLWithPath: stem + ".err")
        for url in [stdoutURL, stderrURL] {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
        stderrHandle = try FileHandle(forWritingTo: stderrURL)
    }

    /// Closes this process's copies of the child's streams once the child holds its own.
    func closeParentHandles() {
        for handle in [stdinHandle, stdoutHandle, stderrHandle] { try? handle.close() }  // already closed is fine
    }

    func result(of process: Process) throws -> PBResult {
        PBResult(
            status: process.terminationStatus, wasSignalled: process.terminationReason == .uncaughtSignal,
            stdout: try Data(contentsOf: stdoutURL),
            stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }

    func remove() {
        for url in [stdinURL, stdoutURL, stderrURL].compactMap(\.self) { try? FileManager.default.removeItem(at: url) }
    }
}

/// A pb process running in the background, such as `pb daemon`.
final class LaunchedProcess {
    private let process: Process
    private let io: ProcessFiles

    fileprivate init(process: Process, io: ProcessFiles) {
        self.process = process
        self.io = io
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)  // a test that failed early must not leave a daemon behind
            process.waitUntilExit()
        }
        io.remove()
    }

    var isRunning: Bool { process.isRunning }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` to this process only.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit; nil if it is still running after `timeout`.
    func waitForExit(timeout: Duration) async throws -> PBResult? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning {
            if clock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try io.result(of: process)
    }

    /// What the process has written to standard error so far.
    var stderrSoFar: String {
        String(decoding: (try? Data(contentsOf: io.stderrURL)) ?? Data(), as: UTF8.self)
    }

    /// What the process has written to standard output so far.
    var stdoutSoFar: String {
        String(decoding: (try? Data(contentsOf: io.stdoutURL)) ?? Data(), as: UTF8.self)
    }
}

/// `pb` printed JSON the tests could not read.
struct UnexpectedJSON: Error, CustomStringConvertible {
    let text: String
    var description: String { "Unexpected JSON from pb: \(text.prefix(500).debugDescription)" }
}
