import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct HistoryStoreOpeningTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    /// Creates the store directory (as the store would) without creating the database.
    func makeStoreDirectory() throws {
        try FileManager.default.createDirectory(
            at: location.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The names in the store directory, to show that a refused open created nothing beside the file.
    func directoryListing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: location.directory.path).sorted()
    }

    // MARK: - Creating

    /// Several processes opening the same new store at once (a daemon and a `pb` started together; here threads,
    /// each with its own connection) all open it: none reads the tables from before another's migration and the
    /// version from after it, which looked like another application's database (a CI run saw the daemon refuse).
    @Test func storesOpenedTogetherWhileOneIsCreatedAllOpen() throws {
        for round in 0..<60 {
            let directory = temporary.url.appendingPathComponent("race-\(round)")
            let location = StoreLocation(directory: directory)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    _ = try HistoryStore(location: location)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            let seen = failures.withLock { $0 }
            #expect(seen.isEmpty, "round \(round): \(seen)")
            if !seen.isEmpty { break }
        }
    }

    @Test func newStoreIsPrivate() throws {
        let store = try HistoryStore(location: location)
        try store.record(pngItem(seed: 1))
        #expect(try permissions(of: location.directory) == 0o700)
        #expect(try permissions(of: location.databaseURL) == 0o600)
        #expect(try permissions(of: location.blobDirectory) == 0o700)
        let files = blobFiles(in: location)
        try #require(files.count == 1)
        #expect(try permissions(of: files[0].deletingLastPathComponent()) == 0o700)
        #expect(try permissions(of: files[0]) == 0o600)
    }

    @Test func missingParentDirectoriesAreCreated() throws {
        let nested = StoreLocation(directory: temporary.url.appendingPathComponent("a/b/c/pasteboard"))
        let store = try HistoryStore(location: nested)
        try store.record(PasteboardItem(string: "deep"))
        #expect(FileManager.default.fileExists(atPath: nested.databaseURL.path))
        #expect(try permissions(of: nested.directory) == 0o700)
    }

    @Test func historySurvivesReopening() throws {
        let payload = pngPayload(seed: 5)
        var ids: [Int64] = []
        do {
            let store = try HistoryStore(location: location)
            ids.append(try store.record(PasteboardItem(string: "remember me")).id)
            ids.append(try store.record(PasteboardItem(data: payload, type: .png)).id)
            try store.setPinned(true, id: ids[0])
        }
        let reopened = try HistoryStore(location: location)
        #expect(try reopened.items(limit: 10).map(\.id) == ids.reversed())
        #expect(try reopened.item(id: ids[0]).isPinned)
        #expect(try reopened.pasteboardItem(id: ids[1]).data(forType: .png) == payload)
        #expect(try reopened.items(HistoryQuery(text: "remember")).map(\.id) == [ids[0]])
        #expect(try !reopened.record(PasteboardItem(string: "remember me")).isNew)
    }

    @Test func zeroLengthFileIsInitialised() throws {
        try makeStoreDirectory()
        #expect(FileManager.default.createFile(atPath: location.databaseURL.path, contents: Data()))
        let store = try HistoryStore(location: location)
        try store.record(PasteboardItem(string: "first"))
        #expect(try store.count() == 1)
        #expect(try store.stats().schemaVersion == 15)
    }

    @Test func twoStoresOnOneLocationSeeEachOthersItems() throws {
        let first = try HistoryStore(location: location)
        let second = try HistoryStore(location: location)
        let id = try first.record(PasteboardItem(string: "from the first")).id
        #expect(try second.items(limit: 10).map(\.id) == [id])
        let again = try second.record(PasteboardItem(string: "from the first"))
        #expect(!again.isNew)
        #expect(try first.item(id: id).copyCount == 2)
        try second.delete(id: id)
        #expect(try first.count() == 0)
    }

    // MARK: - Read-only

    @Test func readOnlyOpenOfAMissingStoreFails() throws {
        expectHistoryError(.io) { _ = try HistoryStore(location: location, readOnly: true) }
        #expect(!FileManager.default.fileExists(atPath: location.databaseURL.path))
    }

    @Test func readOnlyStoreReadsButRefusesWrites() throws {
        let id = try HistoryStore(location: location).record(PasteboardItem(string: "read me")).id
        let store = try HistoryStore(location: location, readOnly: true)
        #expect(try store.items(limit: 10).map(\.id) == [id])
        #expect(try store.pasteboardItem(id: id).string == "read me")
        #expect(try store.items(HistoryQuery(text: "read")).map(\.id) == [id])
        expectHistoryError(.notWritable) { try store.record(PasteboardItem(string: "new")) }
        expectHistoryError(.notWritable) { try store.delete(id: id) }
    }

    // MARK: - Refusing bad files

    static let notDatabases: [(label: String, bytes: Data)] = [
        ("text", Data(String(repeating: "This is a shopping list, not a database.\n", count: 40).utf8)),
        ("random bytes", pseudoRandomBytes(count: 8_192, seed: 99)),
        ("short text", Data("hello\n".utf8)),
    ]

    @Test(arguments: notDatabases)
    func fileThatIsNotSQLiteIsRefusedAndLeftUntouched(_ file: (label: String, bytes: Data)) throws {
        try makeStoreDirectory()
        try file.bytes.write(to: location.databaseURL)
        let before = try directoryListing()

        expectHistoryError(.corrupt) { _ = try HistoryStore(location: location) }

        #expect(try Data(contentsOf: location.databaseURL) == file.bytes, "\(file.label)")
        #expect(try directoryListing() == before)
    }

    @Test func damagedDatabaseIsRefusedAndLeftUntouched() throws {
        do {
            let store = try HistoryStore(location: location)
            try store.record(PasteboardItem(string: "soon damaged"))
        }
        var bytes = try Data(contentsOf: location.databaseURL)
        try #require(bytes.count >= 4_096)
        // Keep the 100-byte file header so SQLite recognises the file, then wreck the schema page.
        bytes.replaceSubrange(100..<4_096, with: pseudoRandomBytes(count: 3_996, seed: 7))
        try bytes.write(to: location.databaseURL)

        expectHistoryError(.corrupt) { _ = try HistoryStore(location: location) }
        #expect(try Data(contentsOf: location.databaseURL) == bytes)
    }

    @Test func databaseFromANewerVersionIsRefusedAndLeftUntouched() throws {
        try makeStoreDirectory()
        do {
            let db = try Connection(path: location.databaseURL.path)
            // A newer pb stamps its stores with Pasteboard's application id, as this one does.
            try db.execute(
                "CREATE TABLE future(x); INSERT INTO future VALUES ('payload'); PRAGMA user_version = 99; "
                    + "PRAGMA application_id = \(0x5042_4853)")
            try db.close()
        }
        let bytes = try Data(contentsOf: location.databaseURL)
        let before = try directoryListing()

        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .newerSchema)
        #expect(error?.message.contains("99") == true)

        #expect(try Data(contentsOf: location.databaseURL) == bytes)
        #expect(try directoryListing() == before)
        let db = try Connection(path: location.databaseURL.path, mode: .readOnly)
        #expect(try db.row("PRAGMA user_version")?.int(0) == 99)
        #expect(try db.row("SELECT count(*) AS n FROM sqlite_master WHERE name = 'items'")?.int("n") == 0)
    }

    @Test func storeMarkedNewerByAnotherVersionIsRefusedAndLeftUntouched() throws {
        do {
            let store = try HistoryStore(location: location)
            try store.record(PasteboardItem(string: "written by v1"))
        }
        do {
            let db = try rawConnection(location)
            try db.execute("PRAGMA user_version = 99")
            try db.close()
        }
        let bytes = try Data(contentsOf: location.databaseURL)

        expectHistoryError(.newerSchema) { _ = try HistoryStore(location: location) }
        expectHistoryError(.newerSchema) { _ = try HistoryStore(location: location, readOnly: true) }

        #expect(try Data(contentsOf: location.databaseURL) == bytes)
    }

    // MARK: - Unwritable places

    @Test func unwritableDirectoryIsReported() throws {
        if getuid() == 0 {
            // Tests may run as root, and root ignores permission bits: a chmod 0500 directory stays writable
            // for it. A path that runs through a regular file cannot be created by anyone, so it stands in
            // for a read-only directory here.
            let blocker = temporary.url.appendingPathComponent("afile")
            #expect(FileManager.default.createFile(atPath: blocker.path, contents: Data("not a directory".utf8)))
            let blocked = StoreLocation(directory: blocker.appendingPathComponent("pasteboard"))
            let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: blocked) }
            #expect(error?.code == .notWritable)
            #expect(try Data(contentsOf: blocker) == Data("not a directory".utf8))
        } else {
            try makeStoreDirectory()
            #expect(chmod(location.directory.path, 0o500) == 0)
            defer { chmod(location.directory.path, 0o700) }
            expectHistoryError(.notWritable) { _ = try HistoryStore(location: location) }
            #expect(!FileManager.default.fileExists(atPath: location.databaseURL.path))
        }
    }

    @Test func storeDirectoryThatIsAFileIsReported() throws {
        #expect(FileManager.default.createFile(atPath: location.directory.path, contents: Data("x".utf8)))
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .notWritable)
        #expect(error?.message.contains(location.directory.path) == true)
    }

    // MARK: - Locations

    @Test(arguments: [
        (["PB_STORE_DIR": "/srv/pb", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], "/srv/pb"),
        (["XDG_DATA_HOME": "/xdg", "HOME": "/home/u"], "/xdg/pasteboard"),
        (["XDG_DATA_HOME": "relative/path", "HOME": "/home/u"], "/home/u/.local/share/pasteboard"),
        (["PB_STORE_DIR": "", "HOME": "/home/u"], "/home/u/.local/share/pasteboard"),
    ])
    func standardLocationFollowsTheEnvironment(environment: [String: String], expected: String) {
        let location = StoreLocation.standard(environment: environment)
        #expect(location.directory.path == expected)
        #expect(location.databaseURL.path == expected + "/history.sqlite")
        #expect(location.blobDirectory.path == expected + "/blobs")
    }
}
