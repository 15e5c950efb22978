import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The store is trusted only when it is safe: this user's, writable by nobody else, no symbolic link among its files,
/// and recognisably a Pasteboard store; another application's SQLite database is never modified.
@Suite struct HistoryStoreTrustTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    /// A store with one item, closed again.
    func makeStore() throws {
        let store = try HistoryStore(location: location)
        try store.record(PasteboardItem(string: "kept safe"))
    }

    // MARK: - Owners and modes

    @Test func storeDirectoryAnotherUserOwnsIsRefused() throws {
        try makeStore()
        #expect(chown(location.directory.path, 65534, 65534) == 0, "chown needs root (tests run as root)")
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .unsafe)
        #expect(error?.message.contains(location.directory.path) == true, "\(String(describing: error))")
        #expect(error?.message.contains("belongs to another user (uid 65534)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("chown") == true, "the message says how to fix it")
    }

    @Test func storeFileAnotherUserOwnsIsRefused() throws {
        try makeStore()
        #expect(chown(location.databaseURL.path, 65534, 65534) == 0)
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location, readOnly: true) }
        #expect(error?.code == .unsafe)
        #expect(error?.message.contains(location.databaseURL.path) == true, "\(String(describing: error))")
    }

    @Test(arguments: [0o770, 0o777, 0o720])
    func storeDirectoryOthersCanWriteIsRefusedAndLeftAsItWas(mode: Int) throws {
        try makeStore()
        #expect(chmod(location.directory.path, mode_t(mode)) == 0)
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .unsafe)
        #expect(error?.message.contains("can be written by other users (mode \(String(mode, radix: 8)))") == true)
        #expect(error?.message.contains("chmod 700 \(location.directory.path)") == true, "\(String(describing: error))")
        #expect(try permissions(of: location.directory) == mode, "pb changed the mode of a store it refused")
    }

    @Test func databaseFileOthersCanWriteIsRefused() throws {
        try makeStore()
        #expect(chmod(location.databaseURL.path, 0o664) == 0)
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .unsafe)
        #expect(
            error?.message.contains("chmod 600 \(location.databaseURL.path)") == true, "\(String(describing: error))")
    }

    @Test func modesOthersCanOnlyReadAreTightened() throws {
        try makeStore()
        #expect(chmod(location.directory.path, 0o755) == 0)
        #expect(chmod(location.databaseURL.path, 0o644) == 0)
        _ = try HistoryStore(location: location)
        #expect(try permissions(of: location.directory) == 0o700)
        #expect(try permissions(of: location.databaseURL) == 0o600)
    }

    @Test func symbolicLinkForTheDatabaseIsRefusedAndItsTargetUntouched() throws {
        let elsewhere = temporary.url.appendingPathComponent("elsewhere.sqlite")
        do {
            let db = try Connection(path: elsewhere.path)
            try db.execute("CREATE TABLE notes(text); INSERT INTO notes VALUES ('not for pb')")
            try db.close()
        }
        let before = try Data(contentsOf: elsewhere)
        try FileManager.default.createDirectory(
            at: location.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(at: location.databaseURL, withDestinationURL: elsewhere)
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .unsafe)
        #expect(
            error?.message.contains("\(location.databaseURL.path) is a symbolic link") == true,
            "\(String(describing: error))")
        #expect(try Data(contentsOf: elsewhere) == before)
    }

    @Test func symbolicLinkForThePayloadDirectoryIsRefused() throws {
        try makeStore()
        let elsewhere = temporary.url.appendingPathComponent("other-blobs")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: location.blobDirectory.path) {
            try FileManager.default.removeItem(at: location.blobDirectory)
        }
        try FileManager.default.createSymbolicLink(at: location.blobDirectory, withDestinationURL: elsewhere)
        expectHistoryError(.unsafe) { _ = try HistoryStore(location: location) }
    }

    // MARK: - Whose database

    /// Another application's database, even at user_version 0, is never modified: not a byte, and no -wal or
    /// -shm file beside it.
    @Test(arguments: [0, 3])
    func anotherApplicationsDatabaseIsLeftByteForByte(userVersion: Int) throws {
        try FileManager.default.createDirectory(
            at: location.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let db = try Connection(path: location.databaseURL.path)
            try db.execute(
                "CREATE TABLE accounts(name TEXT, balance INTEGER); INSERT INTO accounts VALUES ('ada', 36); "
                    + "CREATE TABLE items(x); PRAGMA user_version = \(userVersion)")
            try db.close()
        }
        let before = try Data(contentsOf: location.databaseURL)
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .foreignDatabase)
        #expect(error?.message.contains("another application") == true, "\(String(describing: error))")
        #expect(error?.message.contains("accounts") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: location.databaseURL) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.directory.path) == ["history.sqlite"])
    }

    @Test func databaseStampedByAnotherApplicationIsRefused() throws {
        try makeStore()
        do {
            let db = try rawConnection(location)
            try db.execute("PRAGMA application_id = 1234")
            try db.close()
        }
        let before = try Data(contentsOf: location.databaseURL)
        let error = #expect(throws: HistoryError.self) { _ = try HistoryStore(location: location) }
        #expect(error?.code == .foreignDatabase)
        #expect(error?.message.contains("application_id 0x4D2") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: location.databaseURL) == before)
    }

    @Test func newStoreCarriesPasteboardsApplicationID() throws {
        try makeStore()
        let db = try rawConnection(location)
        #expect(try db.row("PRAGMA application_id")?.int(0) == 0x5042_4853)
    }

    /// A store written before the application id existed (0 in its header, our schema) opens and is stamped.
    @Test func storeFromBeforeTheApplicationIDOpensAndIsStamped() throws {
        try makeStore()
        do {
            let db = try rawConnection(location)
            try db.execute("PRAGMA application_id = 0")
            try db.close()
        }
        let store = try HistoryStore(location: location)
        #expect(try store.items(limit: 10).map(\.preview) == ["kept safe"])
        let db = try rawConnection(location)
        #expect(try db.row("PRAGMA application_id")?.int(0) == 0x5042_4853)
    }
}
