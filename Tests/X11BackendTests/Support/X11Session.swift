import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One entry of `pb history --json`.
struct HistoryEntry: Sendable {
    let id: Int64
    let kind: String
    let preview: String
    let types: [String]
    let size: Int
    let source: String?
    let copyCount: Int
    /// When the daemon recorded it (see `captureDate(of:)`).
    let created: Date?
}

/// A private desktop for one test: a `ProcessSandbox` with its own Xvfb, and helpers to run `pb`, `xclip`, `xsel`
/// and the C test owner in it. Everything it started is stopped when it goes away.
final class X11Session: Sendable {
    let sandbox: ProcessSandbox
    let xclip: String
    let xsel: String

    init() async throws {
        (xclip, xsel) = try Self.clients()
        sandbox = try await ProcessSandbox(label: "pbx11", requiredBy: "the X11 integration tests")
    }

    /// A session on a display other tests share (see `ChromiumDesk`): a fresh store and environment, the same
    /// X server. Nothing owns CLIPBOARD or PRIMARY when it starts.
    init(sharing display: VirtualDisplay) async throws {
        (xclip, xsel) = try Self.clients()
        sandbox = try ProcessSandbox(label: "pbx11", sharing: display)
        for selection in ["--clipboard", "--primary"] {
            let cleared = try await sandbox.run(xsel, [selection, "--clear"], timeout: .seconds(10))
            guard cleared.succeeded else { throw CommandFailed(result: cleared) }
        }
    }

    private static func clients() throws -> (xclip: String, xsel: String) {
        guard let xclip = executableOnPath("xclip"), let xsel = executableOnPath("xsel") else {
            throw SetupFailure("xclip and xsel are needed by the X11 integration tests: apt-get install -y xclip xsel")
        }
        return (xclip, xsel)
    }

    // MARK: - Paths

    func writeConfig(_ text: String) throws {
        let url = sandbox.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Every regular file under the store directory (database, WAL, shared memory, blobs).
    func storeFiles() -> [URL] {
        guard
            let walker = FileManager.default.enumerator(
                at: sandbox.storeDirectory, includingPropertiesForKeys: [.isRegularFileKey])
        else {
            return []
        }
        return walker.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }

    /// Items in the store, counted with the sqlite3 tool: every pb command drops expired items itself when it
    /// opens the store, which would hide whether the daemon or the owner did.
    func storedItemCount() async throws -> Int {
        guard let sqlite = executableOnPath("sqlite3") else {
            throw SetupFailure("sqlite3 is needed: apt-get install -y sqlite3")
        }
        let database = sandbox.storeDirectory.appendingPathComponent("history.sqlite").path
        // A writer (the daemon, `pb __serve` deleting expired items) may hold the lock for a moment: wait for it.
        let result = try await sandbox.run(
            sqlite, ["-cmd", ".timeout 5000", database, "SELECT count(*) FROM items;"], timeout: .seconds(10))
        guard result.succeeded, let count = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw SetupFailure("sqlite3 could not count the items: \(result)")
        }
        return count
    }

    // MARK: - Processes

    /// Runs the built `pb`.
    func pb(
        _ arguments: [String], stdin: Data? = nil, environment changes: [String: String?] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        try await sandbox.launch(try Product.pb.path(), arguments, stdin: stdin, environment: changes).finish(
            timeout: timeout)
    }

    /// Runs `pb` and throws, with its output, unless it exits 0.
    @discardableResult
    func pbSucceeding(_ arguments: [String], stdin: Data? = nil, timeout: Duration = .seconds(60)) async throws
        -> ProcessResult
    {
        let result = try await pb(arguments, stdin: stdin, timeout: timeout)
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    /// The history, newest first, from `pb history --json`.
    func history() async throws -> [HistoryEntry] {
        let result = try await pbSucceeding(["history", "--json", "--limit", "1000"])
        guard let array = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]] else {
            throw SetupFailure("pb history --json printed no JSON array: \(result)")
        }
        return array.map { object in
            HistoryEntry(
                id: (object["id"] as? NSNumber)?.int64Value ?? -1, kind: object["kind"] as? String ?? "",
                preview: object["preview"] as? String ?? "", types: object["types"] as? [String] ?? [],
                size: (object["size"] as? NSNumber)?.intValue ?? -1, source: object["source"] as? String,
                copyCount: (object["copyCount"] as? NSNumber)?.intValue ?? -1, created: captureDate(of: object))
        }
    }

    /// Polls the history until an entry satisfies `condition`; nil after `timeout`.
    func waitForEntry(within timeout: Duration = .seconds(10), where condition: (HistoryEntry) -> Bool) async throws
        -> HistoryEntry?
    {
        var found: HistoryEntry?
        _ = try await eventually(within: timeout, every: .milliseconds(50)) {
            found = try await history().first(where: condition)
            return found != nil
        }
        return found
    }

    // MARK: - xclip and xsel

    /// `xclip -selection SELECTION -i` of `data` (as `target`, with `extra` options); returns once the launching
    /// xclip has exited, leaving its forked owner in the background.
    func xclipCopy(_ data: Data, target: String? = nil, selection: String = "clipboard", extra: [String] = [])
        async throws
    {
        let input = try sandbox.file(data)
        var arguments = ["-selection", selection] + extra
        if let target { arguments += ["-t", target] }
        let result = try await sandbox.run(xclip, arguments + ["-i", input.path], timeout: .seconds(10))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    func xclipCopy(_ text: String, selection: String = "clipboard", extra: [String] = []) async throws {
        try await xclipCopy(Data(text.utf8), selection: selection, extra: extra)
    }

    /// `xclip -selection clipboard -o [-t target]`.
    func xclipPaste(target: String? = nil, timeout: Duration = .seconds(20)) async throws -> ProcessResult {
        try await sandbox.run(
            xclip, ["-selection", "clipboard", "-o"] + (target.map { ["-t", $0] } ?? []), timeout: timeout)
    }

    /// `xsel --clipboard --output`.
    func xselPaste() async throws -> ProcessResult {
        try await sandbox.run(xsel, ["--clipboard", "--output"], timeout: .seconds(20))
    }

    /// Polls `xclip -o` until it returns `expected`; the last result either way.
    func waitForClipboard(_ expected: Data, within timeout: Duration = .seconds(5)) async throws -> ProcessResult? {
        var last: ProcessResult?
        _ = try await eventually(within: timeout, every: .milliseconds(50)) {
            last = try await xclipPaste()
            return last?.succeeded == true && last?.stdout == expected
        }
        return last
    }

    // MARK: - The C test owner

    /// Starts `x11-test-owner` offering `targets` (target name → bytes) and waits until it owns the selection.
    func startOwner(_ targets: [(String, Data)], _ modes: [TestOwner.Mode] = []) async throws -> ChildProcess {
        var arguments = modes.flatMap(\.arguments)
        for (target, data) in targets { arguments += ["--target", "\(target)=\(try sandbox.file(data).path)"] }
        let owner = try sandbox.launch(try TestOwner.executable().path, arguments)
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(5)) {
            owner.stdout.starts(with: Data("ready ".utf8)) || !owner.isRunning
        }
        guard ready, owner.stdout.starts(with: Data("ready ".utf8)) else {
            owner.terminate(grace: .milliseconds(200))
            throw SetupFailure(
                "x11-test-owner did not take the selection: \(owner.result.map(\.description) ?? owner.stderr)")
        }
        return owner
    }

    // MARK: - The daemon

    /// Starts `pb daemon` and waits until its socket exists, it has said it runs, and it has recorded nothing
    /// (unless the history was not empty before: `onEmptyHistory` false).
    func startDaemon(onEmptyHistory: Bool = true) async throws -> ChildProcess {
        let daemon = try sandbox.launch(try Product.pb.path(), ["daemon"])
        let ready = try await eventually(within: .seconds(15), every: .milliseconds(10)) {
            guard daemon.isRunning else { return true }
            return access(sandbox.socketPath, F_OK) == 0 && daemon.stdout.starts(with: Data("Pasteboard daemon".utf8))
        }
        guard ready, daemon.isRunning else {
            daemon.terminate(grace: .seconds(1))
            throw SetupFailure(
                "pb daemon did not come up within 15 s: \(daemon.result.map(\.description) ?? daemon.stderr)")
        }
        guard onEmptyHistory else { return daemon }
        let recorded = try await history()
        guard recorded.isEmpty else { throw SetupFailure("A fresh daemon already recorded \(recorded.map(\.preview))") }
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

    /// Starts `pb watch` and waits until the daemon delivers events to it (a probe sent through the control socket
    /// comes back).
    func startWatch() async throws -> EventStream {
        let stream = EventStream(process: try sandbox.launch(try Product.pb.path(), ["watch"]))
        let probe = "probe-\(UUID().uuidString)"
        let connected = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            _ = RawControlSocket.send(["command": "notify", "event": ["event": probe]], to: sandbox.socketPath)
            return stream.events.contains { $0.event == probe }
                || !stream.process.isRunning
        }
        guard connected, stream.process.isRunning else {
            throw SetupFailure(
                "pb watch did not start receiving events: \(stream.process.result.map(\.description) ?? stream.process.stderr)"
            )
        }
        return stream
    }
}
