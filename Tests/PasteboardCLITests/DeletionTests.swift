import Foundation
import PasteboardTestSupport
import Testing

/// Nothing deleted stays readable, and a deleted item is never pasted again: `pb delete`, `pb clear`, expiry and
/// `pb prune` while `pb daemon` (headless) holds the store open, then every byte of every store file is read.
@Suite struct DeletionTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Starts `pb daemon` and waits until it answers.
    func startDaemon() async throws -> LaunchedProcess {
        let daemon = try sandbox.launch(["daemon"])
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            guard daemon.isRunning, FileManager.default.fileExists(atPath: sandbox.socketPath) else { return false }
            return try await sandbox.run(["doctor"]).outputLines.contains { $0.hasPrefix("daemon:   running (pid ") }
        }
        try #require(ready, "pb daemon did not come up within 10 s; its stderr: \(daemon.stderrSoFar)")
        return daemon
    }

    static func marker(_ label: String) -> String { "PB-FORENSIC-\(label)-" + UUID().uuidString }

    /// The store files (database, -wal, -shm, payload files, anything else) holding `text`.
    func storeFiles(holding text: String) throws -> [String] {
        let needle = Data(text.utf8)
        var holders: [String] = []
        let walker = FileManager.default.enumerator(atPath: sandbox.storeDirectory.path)
        while let relative = walker?.nextObject() as? String {
            let path = sandbox.storeDirectory.path + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            if try Data(contentsOf: URL(fileURLWithPath: path)).range(of: needle) != nil { holders.append(relative) }
        }
        return holders
    }

    /// Copies the marker as a short text and inside a payload large enough for a file, with neighbours around;
    /// returns the two items' ids (the large one is on the clipboard).
    func copyMarker(_ marker: String, _ arguments: [String] = []) async throws -> [Int64] {
        try await sandbox.copy("an older neighbour")
        try await sandbox.copy(marker, arguments)
        let text = try #require(try await sandbox.history().first?.id)
        try await sandbox.copy(Data((marker + "\n").utf8) + Payloads.largeText(count: 100_000), arguments)
        let large = try #require(try await sandbox.history().first?.id)
        // (An expiring copy may be gone already on a loaded machine.)
        if arguments.isEmpty { #expect(try !storeFiles(holding: marker).isEmpty, "the test cannot see the marker at all") }
        return [text, large]
    }

    @Test func deletedTextLeavesNoTraceWhileTheDaemonRuns() async throws {
        let daemon = try await startDaemon()
        let marker = Self.marker("delete")
        let ids = try await copyMarker(marker)
        try await sandbox.succeed(["delete"] + ids.map(String.init))
        #expect(try storeFiles(holding: marker) == [])
        let paste = try await sandbox.run(["paste"])
        #expect(paste.status == 1 && paste.stderr.contains("The clipboard is empty"), "\(paste)")
        #expect(daemon.isRunning)
    }

    @Test func clearedTextLeavesNoTraceWhileTheDaemonRuns() async throws {
        let daemon = try await startDaemon()
        let marker = Self.marker("clear")
        _ = try await copyMarker(marker)
        try await sandbox.succeed(["clear"])
        #expect(try storeFiles(holding: marker) == [])
        #expect(try await sandbox.run(["paste"]).status == 1, "pb clear left the clipboard")
        #expect(daemon.isRunning)
    }

    @Test func expiredTextLeavesNoTraceOnceTheDaemonExpiresIt() async throws {
        let daemon = try await startDaemon()
        let marker = Self.marker("expire")
        _ = try await copyMarker(marker, ["--expire", "2s"])
        // Counted with the sqlite3 tool: every pb command expires items itself when it opens the store.
        let expired = try await eventually(within: .seconds(10), every: .milliseconds(100)) {
            try SQLiteTool.run("SELECT count(*) FROM items;", on: sandbox.databaseURL, in: sandbox) == "1"
        }
        #expect(expired, "\(daemon.stderrSoFar)")
        #expect(daemon.stderrSoFar.contains("expired"), "\(daemon.stderrSoFar)")
        #expect(try storeFiles(holding: marker) == [])
    }

    @Test(arguments: [["prune", "--max-items", "1"], ["prune", "--max-items", "1", "--vacuum"]])
    func prunedTextLeavesNoTraceWhileTheDaemonRuns(_ arguments: [String]) async throws {
        let daemon = try await startDaemon()
        let marker = Self.marker("prune")
        _ = try await copyMarker(marker)
        try await sandbox.copy("the newest, kept")
        try await sandbox.succeed(arguments)
        #expect(try storeFiles(holding: marker) == [])
        #expect(try await sandbox.history().map(\.preview) == ["the newest, kept"])
        #expect(daemon.isRunning)
    }

    // MARK: - The clipboard

    @Test func deletingTheCurrentItemClearsTheClipboard() async throws {
        try await sandbox.copy("older")
        try await sandbox.copy("on the clipboard")
        let entries = try await sandbox.history()
        try await sandbox.succeed(["delete", String(entries[1].id)])
        #expect(
            try await sandbox.paste() == Data("on the clipboard".utf8), "deleting another item cleared the clipboard")
        try await sandbox.succeed(["delete", String(entries[0].id)])
        let paste = try await sandbox.run(["paste"])
        #expect(paste.status == 1 && paste.stdout.isEmpty, "a deleted item is still pasted: \(paste)")
        #expect(try storeFiles(holding: "on the clipboard") == [])
    }

    @Test func clearClearsTheClipboardUnlessAskedToKeepIt() async throws {
        try await sandbox.copy("kept on the clipboard")
        try await sandbox.succeed(["clear", "--keep-clipboard"])
        #expect(try await sandbox.history().isEmpty)
        #expect(try await sandbox.paste() == Data("kept on the clipboard".utf8))
        try await sandbox.copy("pinned and on the clipboard")
        let id = try #require(try await sandbox.history().first?.id)
        try await sandbox.succeed(["pin", String(id)])
        try await sandbox.succeed(["clear", "--keep-pinned"])
        #expect(try await sandbox.history().map(\.preview) == ["pinned and on the clipboard"])
        #expect(try await sandbox.run(["paste"]).status == 1, "pb clear left the clipboard")
        #expect(try await sandbox.run(["search", "pinned and"]).status == 0, "the pinned item kept is no longer found")
    }
}
