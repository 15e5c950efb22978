import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `ProcessSandbox` (with or without its own Xvfb) and what the reliability tests do in it: run the built `pb`,
/// start and watch the daemon, and look into the store with the `sqlite3` tool.
final class Harness: Sendable {
    let sandbox: ProcessSandbox
    /// Set for every `pb` run: `PB_STORE_DIR` for a store somewhere else, `PB_BACKEND`, …
    let overrides: [String: String?]

    /// A headless harness: no display, so the general pasteboard lives in the store.
    init(label: String, overrides: [String: String?] = [:]) throws {
        sandbox = try ProcessSandbox(label: label)
        self.overrides = overrides
    }

    /// A harness with its own Xvfb.
    init(label: String, display tests: String, overrides: [String: String?] = [:]) async throws {
        sandbox = try await ProcessSandbox(label: label, requiredBy: tests)
        self.overrides = overrides
    }

    // MARK: - Paths

    var storeDirectory: URL {
        if case let directory?? = overrides["PB_STORE_DIR"] { return URL(fileURLWithPath: directory) }
        return sandbox.storeDirectory
    }
    var databasePath: String { storeDirectory.appendingPathComponent("history.sqlite").path }
    var blobDirectory: URL { storeDirectory.appendingPathComponent("blobs") }
    var runtimeDirectory: String { sandbox.root.appendingPathComponent("run").path }

    func writeConfig(_ text: String) throws {
        let url = sandbox.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// The files under `blobs/`, as paths relative to it: payloads (`ab/abcdef…`) and temporary files wherever
    /// they are; directories not.
    func blobFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: blobDirectory.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { relative in
            var info = stat()
            return lstat(blobDirectory.path + "/" + relative, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }.sorted()
    }

    // MARK: - pb

    /// Starts `pb` with `arguments`; `changes` go on top of the harness's overrides.
    func launch(_ arguments: [String], stdin: Data? = nil, environment changes: [String: String?] = [:]) throws
        -> ChildProcess
    {
        try launchNicely(try Product.pb.path(), arguments, stdin: stdin, environment: changes)
    }

    /// Starts `executable` at a lower CPU priority (`nice -n 10`, which execs it: the pid is the program's).
    ///
    /// These tests load both cores on purpose, while the rest of the suite, which has tests with time windows,
    /// runs beside them; nothing here depends on how fast a process gets the CPU.
    func launchNicely(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment changes: [String: String?] = [:]
    ) throws -> ChildProcess {
        let environment = overrides.merging(changes) { $1 }
        guard let nice = executableOnPath("nice") else {
            return try sandbox.launch(executable, arguments, stdin: stdin, environment: environment)
        }
        return try sandbox.launch(nice, ["-n", "10", executable] + arguments, stdin: stdin, environment: environment)
    }

    /// `xclip -selection clipboard -i` of `data`; returns once the launching xclip has exited, leaving its forked
    /// owner in the background.
    func xclipCopy(_ data: Data) async throws {
        guard let xclip = executableOnPath("xclip") else {
            throw SetupFailure("xclip is needed: apt-get install -y xclip")
        }
        let file = try sandbox.file(data)
        let result = try await launchNicely(xclip, ["-selection", "clipboard", "-i", file.path]).finish(
            timeout: .seconds(30))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    /// Runs `pb` to its end.
    func pb(
        _ arguments: [String], stdin: Data? = nil, environment changes: [String: String?] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        try await launch(arguments, stdin: stdin, environment: changes).finish(timeout: timeout)
    }

    /// Runs `pb` and throws, with its output, unless it exits 0.
    @discardableResult
    func pbSucceeding(_ arguments: [String], stdin: Data? = nil, environment changes: [String: String?] = [:])
        async throws -> ProcessResult
    {
        let result = try await pb(arguments, stdin: stdin, environment: changes)
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    /// `pb copy` of `text`; must succeed.
    func copy(_ text: String, _ arguments: [String] = []) async throws {
        try await pbSucceeding(["copy"] + arguments, stdin: Data(text.utf8))
    }

    /// The ids and previews of the items whose text contains `text`, from `pb search --json`.
    func search(_ text: String, environment changes: [String: String?] = [:]) async throws -> [(
        id: Int64, preview: String
    )] {
        let result = try await pbSucceeding(["search", "--json", "--limit", "1000", text], environment: changes)
        guard let array = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]] else {
            throw SetupFailure("pb search --json printed no JSON array: \(result)")
        }
        return array.map { (($0["id"] as? NSNumber)?.int64Value ?? -1, $0["preview"] as? String ?? "") }
    }

    /// `pb stats --json`.
    func stats() async throws -> [String: Any] {
        let result = try await pbSucceeding(["stats", "--json"])
        guard let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw SetupFailure("pb stats --json printed no JSON object: \(result)")
        }
        return object
    }

    // MARK: - The daemon

    /// Starts `pb daemon` (changed by `changes`) and waits until it has printed its banner and its socket exists.
    func startDaemon(environment changes: [String: String?] = [:]) async throws -> ChildProcess {
        let daemon = try launch(["daemon"], environment: changes)
        let socket = runtimeDirectory + "/control.sock"
        let ready = try await eventually(within: .seconds(20), every: .milliseconds(5)) {
            guard daemon.isRunning else { return true }
            return access(socket, F_OK) == 0 && daemon.stdout.starts(with: Data("Pasteboard daemon".utf8))
        }
        guard ready, daemon.isRunning else {
            daemon.terminate(grace: .seconds(1))
            throw SetupFailure(
                "pb daemon did not come up within 20 s: \(daemon.result.map(\.description) ?? daemon.stderr)")
        }
        return daemon
    }

    /// Starts `pb watch` and waits until the daemon counts it as a watcher: a `notify` sent through the socket
    /// comes back out of it.
    func startWatch(_ arguments: [String] = []) async throws -> EventLog {
        let watch = EventLog(process: try launch(["watch"] + arguments))
        let probe = "watch-probe-\(UUID().uuidString)"
        let subscribed = try await eventually(within: .seconds(10), every: .milliseconds(20)) {
            _ = RawControlSocket.send(
                ["command": "notify", "event": ["event": probe]], to: runtimeDirectory + "/control.sock")
            return watch.events.contains { $0.event == probe } || !watch.process.isRunning
        }
        guard subscribed, watch.process.isRunning else {
            throw SetupFailure("pb watch did not subscribe: \(watch.process.result.map(\.description) ?? "")")
        }
        return watch
    }

    /// Stops the daemon with SIGTERM; it must exit 0 within 10 s.
    func stop(daemon: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        daemon.send(SIGTERM)
        let exit = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(
            exit == .init(status: 0, wasSignalled: false), "pb daemon: \(daemon.stderr)", sourceLocation: sourceLocation
        )
    }

    // MARK: - Looking into the store

    /// Runs `sql` on the store with the sqlite3 tool (waiting up to 10 s for a writer) and returns its output.
    func sqlite(_ sql: String, json: Bool = false) async throws -> String {
        guard let sqlite3 = executableOnPath("sqlite3") else {
            throw SetupFailure("sqlite3 is needed: apt-get install -y sqlite3")
        }
        let result = try await sandbox.run(
            sqlite3, ["-cmd", ".timeout 10000"] + (json ? ["-json"] : []) + [databasePath, sql], timeout: .seconds(60))
        guard result.succeeded else { throw SetupFailure("sqlite3 '\(sql)' failed: \(result)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `PRAGMA integrity_check`: "ok" for a sound database, else SQLite's list of problems.
    func integrityCheck() async throws -> String {
        try await sqlite("PRAGMA integrity_check;")
    }

    /// Every item's id and text (texts are inline below 64 KiB; one kept in a file shows as nil).
    func itemTexts() async throws -> [Int64: String?] {
        let output = try await sqlite(
            // A text alone is kept in its item's row (schema 14), anything else's in a payload row.
            "SELECT i.id AS id, CAST(coalesce(i.text_data, b.data) AS TEXT) AS text FROM items i "
                + "LEFT JOIN blobs b ON b.id = i.text_blob;",
            json: true)
        if output.isEmpty { return [:] }  // sqlite3 -json prints nothing for no rows
        guard let rows = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] else {
            throw SetupFailure("sqlite3 -json printed something else: \(output.prefix(300))")
        }
        var texts: [Int64: String?] = [:]
        for row in rows {
            guard let id = (row["id"] as? NSNumber)?.int64Value else { continue }
            texts[id] = .some(row["text"] as? String)
        }
        return texts
    }

    /// The number of items.
    func itemCount() async throws -> Int {
        let output = try await sqlite("SELECT count(*) FROM items;")
        guard let count = Int(output) else { throw SetupFailure("sqlite3 counted '\(output)'") }
        return count
    }
}

