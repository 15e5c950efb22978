import FoundationEssentials
import SystemSupport
import SQLiteSupport
#if canImport(Glibc)
import Glibc
#endif

/// What sync knows on this device, in `<store>/sync/state.sqlite`: the merged state of every item it has seen
/// (the clocks of its latest copy, delete and pin), the latest clears, which folder files were applied or rejected,
/// the devices heard from, and the items that never leave this device.
final class SyncState {
    let db: Connection
    /// At most this many rejected files are remembered (one row each): a folder host can make any number of
    /// them. A rejected file beyond it is not recorded, so it is read again on later rounds (refused again at its
    /// first message); `pb sync status` says the list is full.
    var maxRejectedRows = 10_000
    /// How many rejected files are remembered, once counted (only this object adds or forgets them while it lives).
    var rejectedRows: Int?

    init(directory: URL) throws(SyncError) {
        try AtomicFile.makeDirectory(directory)
        let path = directory.appendingPathComponent("state.sqlite").path
        // Private like the history (SQLite gives its -wal and -shm files the database file's mode): created 600
        // whatever the umask.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0, fchmod(fd, 0o600) == 0 else {
            let failure = SystemError.last(fd >= 0 ? "fchmod" : "open")
            if fd >= 0 { close(fd) }
            throw AtomicFile.error("Cannot create the sync state \(path)", failure)
        }
        close(fd)
        do {
            db = try Connection(path: path, mode: .readWrite(create: true), busyTimeout: 30_000, followsSymbolicLinks: false)
            // secure_delete: what sync forgets (the inline bytes of a deleted item's copy) is overwritten with zeros.
            // A page cache of 16 MiB (SQLite's default is 2 MiB): joining a big history looks up every item's entry by
            // its random identity, and a small cache reads the same pages from the file again and again.
            try db.execute(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; PRAGMA cache_size = -16384")
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS entries(
                    identity BLOB PRIMARY KEY,
                    copy TEXT,
                    record TEXT,
                    deleted TEXT,
                    pin TEXT,
                    pinned INTEGER NOT NULL DEFAULT 0,
                    position INTEGER,
                    pending INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX IF NOT EXISTS entries_copy ON entries(copy);
                CREATE INDEX IF NOT EXISTS entries_pending ON entries(copy) WHERE pending;
                CREATE TABLE IF NOT EXISTS files(
                    path TEXT PRIMARY KEY,
                    size INTEGER NOT NULL,
                    mtime REAL NOT NULL,
                    status TEXT NOT NULL,
                    reason TEXT,
                    operations INTEGER NOT NULL DEFAULT 0,
                    seen REAL NOT NULL
                );
                CREATE TABLE IF NOT EXISTS devices(device TEXT PRIMARY KEY, clock TEXT NOT NULL, seen REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS local_only(identity BLOB PRIMARY KEY);
                CREATE TABLE IF NOT EXISTS floors(device TEXT PRIMARY KEY, sequence INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS own_payloads(name TEXT PRIMARY KEY, unreferenced REAL);
                """)
        } catch {
            throw SyncError(.io, "Cannot open the sync state \(path): \(error)", cause: error)
        }
    }

    /// Frees the pages of the state's cache (up to 16 MiB) that nothing is using.
    func releaseMemory() throws(SyncError) {
        try run { try db.releaseMemory() }
    }

    func run<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.io, "The sync state could not be updated: \(error)", cause: error)
        }
    }

    func transaction<T>(_ body: () throws -> T) throws(SyncError) -> T {
        try run { try db.transaction(body) }
    }

    // MARK: - Meta

    func meta(_ key: String) throws(SyncError) -> String? {
        try run { try db.row("SELECT value FROM meta WHERE key = ?", key)?.string("value") }
    }

    func setMeta(_ key: String, _ value: String) throws(SyncError) {
        try run { try db.run("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value) }
    }

    // MARK: - Entries

    struct Entry: Equatable {
        var identity: Data
        var copy: HybridClock?
        var record: SyncOperation?
        var deleted: HybridClock?
        var pin: HybridClock?
        var isPinned = false
        var position: Int64?
        var isPending = false
        /// Where the entry's row is in the sync state, when it was read from there (`savePlacement` then writes it
        /// there directly, without looking its identity up).
        var rowid: Int64?
    }

    /// The entry of the item with `identity`; without its copy's record when `withRecord` is false (cheaper).
    func entry(_ identity: Data, withRecord: Bool = true) throws(SyncError) -> Entry? {
        try run { () throws -> Entry? in
            let columns = withRecord ? "*" : "identity, copy, NULL AS record, deleted, pin, pinned, position, pending"
            guard let row = try db.row("SELECT \(columns) FROM entries WHERE identity = ?", identity) else { return nil }
            return try Self.entry(row)
        }
    }

    func hasNoEntries() throws(SyncError) -> Bool {
        try run { try db.row("SELECT 1 AS any FROM entries LIMIT 1") == nil }
    }

    /// Where sync last put or saw the item with `identity` in the history (nil when nowhere or unknown).
    func position(_ identity: Data) throws(SyncError) -> Int64? {
        try run { try db.row("SELECT position FROM entries WHERE identity = ?", identity)?.int("position") }
    }

    static func entry(_ row: Row) throws -> Entry {
        func clock(_ name: String) throws -> HybridClock? { try row.string(name).map { text throws in try HybridClock(text: text) } }
        let record = try decodeRecord(row["record"])
        return Entry(
            identity: row.data("identity") ?? Data(), copy: try clock("copy"), record: record, deleted: try clock("deleted"),
            pin: try clock("pin"), isPinned: row.int("pinned") == 1, position: row.int("position"),
            isPending: row.int("pending") == 1, rowid: row.has("entry_rowid") ? row.int("entry_rowid") : nil)
    }

    /// A copy's record: binary (`SegmentCodec.encodeGroups`), or JSON in a state written by an older pb.
    static func decodeRecord(_ value: SQLiteValue) throws -> SyncOperation? {
        switch value {
        case .blob(let data):
            guard let operations = SegmentCodec.decodeGroups(data), operations.count == 1 else {
                throw SyncError(.io, "The sync state is damaged (a copy's record).")
            }
            return operations[0]
        case .text(let text):
            return try JSONDecoder().decode(SyncOperation.self, from: Data(text.utf8))
        default:
            return nil
        }
    }

    func save(_ entry: Entry) throws(SyncError) {
        try run {
            let record = entry.record.map { SegmentCodec.encodeGroups([$0]) }
            try db.run(
                """
                INSERT INTO entries(identity, copy, record, deleted, pin, pinned, position, pending) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(identity) DO UPDATE SET copy = excluded.copy, record = excluded.record, deleted = excluded.deleted,
                    pin = excluded.pin, pinned = excluded.pinned, position = excluded.position, pending = excluded.pending
                """, entry.identity, entry.copy?.text, record, entry.deleted?.text, entry.pin?.text, entry.isPinned,
                entry.position, entry.isPending)
        }
    }

    /// The entries to place in the history after a take-in, a page at a time, oldest copy first: those whose latest
    /// copy is at or after `clock` (none when nil) and those waiting for a payload, after the copy `after`.
    ///
    /// Two ranges of the copies' indexes, merged: the copies from the later of `clock` and `after` on, and the pending
    /// entries below `clock`. (One condition `pending OR copy >= ?` made SQLite walk every copy from `after` on,
    /// testing each: a round that took in one copy read the whole state, 0.3 s at a million items.)
    func placementPage(copiedSince clock: HybridClock?, after: HybridClock?, limit: Int) throws(SyncError) -> [Entry] {
        try run {
            let after = after?.text ?? ""
            let pending = "SELECT rowid AS entry_rowid, * FROM entries WHERE pending AND copy > ?"
            let statement: Statement
            if let from = clock?.text {
                // Clock texts compare as their clocks do, byte by byte (as SQLite compares them).
                let (bound, comparison) = from > after ? (from, ">=") : (after, ">")
                statement = try db.prepare(
                    "SELECT rowid AS entry_rowid, * FROM entries WHERE copy \(comparison) ? UNION ALL \(pending) AND copy < ? "
                        + "ORDER BY copy LIMIT ?")
                try statement.bind([bound, after, from, limit])
            } else {
                statement = try db.prepare(pending + " ORDER BY copy LIMIT ?")
                try statement.bind([after, limit])
            }
            var entries: [Entry] = []
            while let row = try statement.step() { entries.append(try Self.entry(row)) }
            return entries
        }
    }

    /// Saves where an entry's item now is in the history (and that it is no longer pending): at its row when it
    /// was read with it (the identity is still checked), else found by its identity.
    func savePlacement(_ entry: Entry) throws(SyncError) {
        try run {
            if let rowid = entry.rowid {
                try db.run(
                    "UPDATE entries SET position = ?, pending = ?, pinned = ? WHERE rowid = ? AND identity = ?", entry.position,
                    entry.isPending, entry.isPinned, rowid, entry.identity)
                if db.changes == 1 { return }
            }
            try db.run(
                "UPDATE entries SET position = ?, pending = ?, pinned = ? WHERE identity = ?", entry.position, entry.isPending,
                entry.isPinned, entry.identity)
        }
    }

    // MARK: - Clears

    struct Clears: Equatable, Sendable {
        var all: HybridClock?
        var unpinned: HybridClock?
    }

    func clears() throws(SyncError) -> Clears {
        let all = try meta("clear-all")
        let unpinned = try meta("clear-unpinned")
        do {
            return Clears(all: try all.map { try HybridClock(text: $0) }, unpinned: try unpinned.map { try HybridClock(text: $0) })
        } catch {
            throw SyncError(.io, "The sync state is damaged (a clear's clock).")
        }
    }

    // MARK: - Local-only items

    func isLocalOnly(_ identity: Data) throws(SyncError) -> Bool {
        try run { try db.row("SELECT 1 AS found FROM local_only WHERE identity = ?", identity) != nil }
    }

    func markLocalOnly(_ identity: Data) throws(SyncError) {
        try run { try db.run("INSERT INTO local_only(identity) VALUES (?) ON CONFLICT DO NOTHING", identity) }
    }
}
