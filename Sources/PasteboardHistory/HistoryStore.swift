import FoundationEssentials
public import PasteboardModel
import SQLiteSupport
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The clipboard history: one SQLite file (WAL) plus content-addressed blob files.
///
/// A store is confined to one thread or actor; other processes open their own (SQLite WAL lets
/// readers proceed while one process writes).
/// ```swift
/// let store = try HistoryStore()
/// let result = try store.record(PasteboardItem(string: "hello"))
/// let newest = try store.items(limit: 10)
/// ```
public final class HistoryStore {
    /// Where the store lives.
    public let location: StoreLocation
    let db: Connection
    let files: BlobFiles
    /// Packs and unpacks the payloads kept in the database (PayloadPacking.swift).
    let packing: PayloadPacking
    /// Applied after every recorded item when set.
    public var retention: RetentionPolicy?
    private var typeIDs: [ContentType: Int64] = [:]
    private var typesByID: [Int64: ContentType] = [:]
    /// Blob files to unlink once the transaction that dropped their last reference commits.
    var pendingFileRemovals: [Data] = []
    /// A slice of the search backlog made before the write lock that another writer kept (see
    /// HistoryStore+SearchBacklog.swift): the next `indexBacklog` writes it if nothing it read changed meanwhile.
    var preparedBacklogSlice: BacklogSlice?
    /// What deleting left behind until `purge()` wipes it (see HistoryStore+Purge.swift).
    var residue = Residue()
    /// The device whose changes this store is applying (sync arrivals), written into the change feed with them;
    /// nil for this machine's own changes.
    public var changeDevice: String?

    /// Frees the pages of the store's cache that nothing is using (see `Connection.releaseMemory()`).
    public func releaseMemory() throws(HistoryError) {
        preparedBacklogSlice = nil
        try perform { try db.releaseMemory() }
    }

    /// Opens (creating if needed) the store at `location`.
    ///
    /// A file that is not a Pasteboard database (another application's SQLite database included), is damaged, or
    /// comes from a newer version is refused with a clear error and left untouched; so is a store another user owns
    /// or can write, or one with a symbolic link among its files.
    public init(location: StoreLocation = .standard(), readOnly: Bool = false) throws(HistoryError) {
        self.location = location
        self.files = BlobFiles(directory: location.blobDirectory)
        let path = location.databaseURL.path
        try location.prepare(creating: !readOnly, tightening: !readOnly)
        if !readOnly {
            // O_EXCL: a file another process created meanwhile is opened as it is; O_NOFOLLOW: never through a link.
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                // The umask may have taken bits away from the owner too.
                let changed = fchmod(fd, 0o600)
                let cause = SystemError.last("fchmod")
                close(fd)
                if changed != 0 {
                    throw HistoryError(
                        .notWritable, "Cannot make \(path) private (mode 600): \(cause.reason).", underlying: cause)
                }
            } else if errno != EEXIST {
                let cause = SystemError.last("open")
                throw HistoryError(
                    .notWritable,
                    "Cannot create the history store \(path): \(cause.reason). "
                        + "Set XDG_DATA_HOME (or PB_STORE_DIR) to a writable directory.", underlying: cause)
            }
        } else if !FileManager.default.fileExists(atPath: path) {
            throw HistoryError(.io, "No history store at \(path) yet: copy something first.")
        }
        do {
            // Writers queue for up to 30 s: a long all-or-nothing `pb import` holds the write lock for its whole run,
            // and a copy made meanwhile should wait for it rather than fail.
            db = try Connection(
                path: path, mode: readOnly ? .readOnly : .readWrite(create: false), busyTimeout: 30_000,
                followsSymbolicLinks: false)
            packing = try PayloadPacking(db: db)
            // Reading the schema first touches nothing, and fails for a file that is not SQLite. Nothing is written
            // (not even the switch to WAL) before the file is known to be ours. One read transaction: another process
            // creating the same new store meanwhile (a daemon and a `pb` starting together) is seen before or after
            // its migration, never its tables from before and its version from after (which read as a foreign file).
            let identity = try db.transaction(immediate: false) { try Schema.identify(db, path: path) }
            if identity.version > Schema.migrator.latestVersion {
                throw HistoryError(
                    .newerSchema,
                    "The history store \(path) was written by a newer version of Pasteboard (schema "
                        + "\(identity.version); this pb understands up to \(Schema.migrator.latestVersion)). It was left untouched; upgrade pb.")
            }
            if !readOnly {
                // A new store gives free pages back in steps (HistoryStore+FreePages.swift): SQLite sets this only
                // in a database with nothing in it yet, before it is switched to WAL.
                if identity.version == 0 { try db.execute("PRAGMA auto_vacuum = INCREMENTAL") }
                // Switching to WAL needs a moment alone with the file; a process opening the same new store at the
                // same time may hold it briefly, so retry for up to the busy timeout.
                try Self.switchToWAL(db)
            }
            // secure_delete: deleted rows and freed pages are overwritten with zeros, so nothing deleted stays in
            // the database file (see `purge()` for the write-ahead log and the search index).
            try db.execute(
                "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF; PRAGMA temp_store = MEMORY; "
                    + "PRAGMA secure_delete = ON")
            if !readOnly {
                if identity.version < Schema.migrator.latestVersion { try Schema.migrator.migrate(db) }
                if !identity.isStamped { try Schema.stamp(db) }
            }
            // A page cache of at most 512 KiB instead of SQLite's default 2 MiB. A connection keeps the pages its
            // cache once held, so a daemon that answered one query scanning a big history (`status` counts every
            // item) stayed 2 MiB larger for good (bench/startup_bench.py shows the daemon after such a query). The
            // queries here read most pages once, so the smaller cache costs them little.
            try db.execute("PRAGMA cache_size = -512")
        } catch let error as HistoryError {
            throw error
        } catch let error as SQLiteError {
            throw HistoryError.from(error, path: path)
        } catch {
            throw HistoryError(.io, "Cannot open the history store \(path): \(error)")
        }
    }

    /// Puts the database in WAL mode, retrying while another process holds the brand-new file.
    private static func switchToWAL(_ db: Connection) throws(SQLiteError) {
        var attempts = 0
        while try db.row("PRAGMA journal_mode")?.string("journal_mode") != "wal" {
            let result = Result { () throws(SQLiteError) in _ = try db.row("PRAGMA journal_mode = WAL") }
            if case .failure(let error) = result {
                guard error.isBusy, attempts < 100 else { throw error }
                attempts += 1
                usleep(50_000)
            }
        }
    }

    // MARK: - Running SQL with translated errors

    func perform<T>(_ body: () throws -> T) throws(HistoryError) -> T {
        do {
            return try body()
        } catch {
            throw historyError(error)
        }
    }

    /// `error`, met while using the store, as the error the store reports.
    func historyError(_ error: any Error) -> HistoryError {
        switch error {
        case let error as HistoryError: error
        case let error as SQLiteError: HistoryError.from(error, path: location.databaseURL.path)
        case let error as PasteboardError where error.code == .noSuchPasteboard:
            HistoryError(.noSuchPasteboard, error.message, underlying: error)
        default: HistoryError(.io, "\(error)")
        }
    }

    /// `write(_:)`; with `waiting` false it gives up at once (`busy`) when another process holds the write lock,
    /// instead of waiting the busy timeout (the daemon's background work, which must not stall its loop).
    func write<T>(waiting: Bool, _ body: () throws -> T) throws(HistoryError) -> T {
        try write(waitingAtMost: waiting ? nil : 0, body)
    }

    /// `write(_:)`, giving up (`busy`) after `milliseconds` when another process holds the write lock (nil: the busy
    /// timeout).
    func write<T>(waitingAtMost milliseconds: Int?, _ body: () throws -> T) throws(HistoryError) -> T {
        guard let milliseconds else { return try write(body) }
        try perform { try db.execute("PRAGMA busy_timeout = \(max(0, milliseconds))") }
        defer { _ = Result { () throws(SQLiteError) in try db.execute("PRAGMA busy_timeout = 30000") } }
        return try write(body)
    }

    /// Runs `body` in a write transaction; blob files whose last reference went away are removed after commit.
    func write<T>(_ body: () throws -> T) throws(HistoryError) -> T {
        if db.isInTransaction { return try perform(body) }  // nested in `transaction(_:)`: the outer one commits
        pendingFileRemovals.removeAll()
        let value = try perform { try db.transaction(body) }
        let removals = pendingFileRemovals
        pendingFileRemovals.removeAll()
        var failure: HistoryError?
        for hash in removals {
            do {
                try files.remove(hash: hash)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure {
            throw HistoryError(
                failure.code, "The change was saved, but a payload file stayed behind: \(failure.message)",
                underlying: failure)
        }
        return value
    }

    /// Runs `body` as one transaction: every change inside it lands together or not at all.
    ///
    /// Used by `pb import` so that a bad line leaves the history exactly as it was.
    /// Errors thrown by `body` come out unchanged; SQLite errors become `HistoryError`s.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        var bodyError: (any Error)?
        let mark = residue.generation
        let value: T
        do {
            value = try write {
                do {
                    return try body()
                } catch {
                    bodyError = error
                    throw error
                }
            }
        } catch {
            if let bodyError, !(bodyError is SQLiteError) { throw bodyError }
            throw error
        }
        // Whatever `body` deleted is wiped once the whole of it has committed.
        try purge(ifFreedSince: mark)
        return value
    }

    // MARK: - Content types

    func typeID(_ type: ContentType) throws -> Int64 {
        if let id = typeIDs[type] { return id }
        try db.run("INSERT INTO content_types(identifier) VALUES (?) ON CONFLICT(identifier) DO NOTHING", type.identifier)
        guard let id = try db.row("SELECT id FROM content_types WHERE identifier = ?", type.identifier)?.int("id") else {
            throw HistoryError(.io, "Content type \(type.identifier) could not be recorded.")
        }
        typeIDs[type] = id
        typesByID[id] = type
        return id
    }

    func type(forID id: Int64) throws -> ContentType {
        if let type = typesByID[id] { return type }
        guard let identifier = try db.row("SELECT identifier FROM content_types WHERE id = ?", id)?.string("identifier") else {
            throw HistoryError(.corrupt, "The history store refers to an unknown content type (\(id)).")
        }
        let type = ContentType(identifier)
        typesByID[id] = type
        typeIDs[type] = id
        return type
    }

    // MARK: - Blobs

    /// A payload hashed and, when large, already written to its file: ready to be referenced in a transaction.
    struct PreparedBlob {
        let hash: Data
        let size: Int
        /// The bytes, for a payload kept inside the database; nil for one in a file.
        let inline: Data?
        var isFile: Bool { inline == nil }
    }

    func prepareBlob(_ data: Data) throws(HistoryError) -> PreparedBlob {
        let hash = SHA256.address(data)
        if data.count >= BlobFiles.fileThreshold {
            try files.write(data, hash: hash)
            return PreparedBlob(hash: hash, size: data.count, inline: nil)
        }
        return PreparedBlob(hash: hash, size: data.count, inline: data)
    }

    /// Prepares a representation; a large file-backed one is hashed and copied in chunks, never held whole.
    func prepareBlob(_ representation: PasteboardItem.Representation) throws(HistoryError) -> PreparedBlob {
        guard let url = representation.fileURL, representation.byteCount >= BlobFiles.fileThreshold else {
            return try prepareBlob(representation.data)
        }
        let (hash, size) = try files.copy(from: url)
        return PreparedBlob(hash: hash, size: size, inline: nil)
    }

    /// Adds one reference to the blob, inserting it if new; returns its id.
    func retainBlob(_ blob: PreparedBlob) throws -> Int64 {
        if let id = try db.row("UPDATE blobs SET refcount = refcount + 1 WHERE hash = ? RETURNING id", blob.hash)?.int("id") {
            pendingFileRemovals.removeAll { $0 == blob.hash }
            return id
        }
        var stored = blob.inline
        var packing: Int64?
        if let inline = blob.inline { (stored, packing) = try self.packing.packed(inline) }
        let row = try db.row(
            "INSERT INTO blobs(hash, size, data, refcount, packing) VALUES (?, ?, ?, 1, ?) RETURNING id",
            blob.hash, blob.size, stored, packing)
        guard let id = row?.int("id") else { throw HistoryError(.io, "A payload could not be stored.") }
        // Referenced again in the same transaction after its last reference went (a pasteboard rewritten
        // with the same payload): its file must stay.
        pendingFileRemovals.removeAll { $0 == blob.hash }
        return id
    }

    /// Drops one reference; deletes the blob (and schedules its file) when none is left.
    func releaseBlob(_ id: Int64) throws {
        guard let row = try db.row("UPDATE blobs SET refcount = refcount - 1 WHERE id = ? RETURNING refcount, hash, data IS NULL AS inFile", id) else { return }
        if (row.int("refcount") ?? 0) <= 0 {
            try db.run("DELETE FROM blobs WHERE id = ?", id)
            residue.noteFreedContent()
            if row.int("inFile") == 1, let hash = row.data("hash") { pendingFileRemovals.append(hash) }
        }
    }

    /// A blob as a representation: inline bytes, or the blob file itself (read again only when asked), after
    /// checking that its bytes still match their hash. A payload that is gone or damaged is never handed out: it
    /// throws `missingPayload` or `damagedPayload`, naming `owner`.
    func blobRepresentation(
        _ id: Int64, type: ContentType, of owner: PayloadOwner
    ) throws -> PasteboardItem.Representation {
        guard let row = try db.row("SELECT hash, size, pb_unpacked(data, packing, size) AS data FROM blobs WHERE id = ?", id),
            let hash = row.data("hash")
        else {
            throw owner.error(.missingPayload, type: type, "is missing from the store (payload \(id))")
        }
        let inline: Data? = if case .blob(let data) = row["data"] { data } else { nil }
        return try verifiedRepresentation(
            hash: hash, size: Int(row.int("size") ?? -1), inline: inline, type: type, of: owner)
    }

    /// A blob's bytes (`inline`, or the file named by `hash`) as a representation, once they are checked against
    /// `hash`; throws `missingPayload` or `damagedPayload`, naming `owner`, when they are gone or do not match.
    func verifiedRepresentation(
        hash: Data, size: Int, inline: Data?, type: ContentType, of owner: PayloadOwner
    ) throws -> PasteboardItem.Representation {
        if let data = inline {
            guard hash.withUnsafeBytes({ expected in data.withUnsafeBytes { SHA256.isAddress(expected, of: $0) } })
            else {
                throw owner.error(.damagedPayload, type: type, Self.damagedInlineProblem)
            }
            return PasteboardItem.Representation(type: type, data: data)
        }
        let url = files.url(forHash: hash)
        if let problem = Self.problem(files.check(hash: hash, size: size), url: url, type: type, of: owner) {
            throw problem
        }
        do {
            return try PasteboardItem.Representation(type: type, fileURL: url)
        } catch {
            throw owner.error(.missingPayload, type: type, "file \(url.path) is missing")
        }
    }

    /// The error for a payload file in `state` (nil when it is intact), naming `owner`.
    static func problem(
        _ state: BlobFiles.FileState, url: URL, type: ContentType, of owner: PayloadOwner
    ) -> HistoryError? {
        switch state {
        case .intact: return nil
        case .missing: return owner.error(.missingPayload, type: type, "file \(url.path) is missing")
        case .damaged:
            return owner.error(
                .damagedPayload, type: type, "file \(url.path) is damaged: its bytes no longer match their SHA-256")
        case .notAFile:
            return owner.error(.damagedPayload, type: type, "file \(url.path) is not a regular file (a symbolic link?)")
        case .unreadable(let reason):
            return owner.error(.missingPayload, type: type, "file \(url.path) cannot be read (\(reason))")
        }
    }

    /// An inline payload's bytes, read from a row's columns, once they are checked against their content address
    /// `hash`; throws `damagedPayload`, naming `owner`, when they do not match. The bytes are copied only after the
    /// check, once.
    func verifiedInlineBytes(
        hash: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer, type: ContentType, of owner: PayloadOwner
    ) throws(HistoryError) -> Data {
        guard SHA256.isAddress(hash, of: bytes) else {
            throw owner.error(.damagedPayload, type: type, Self.damagedInlineProblem)
        }
        return Data(bytes)
    }

    private static let damagedInlineProblem = "is damaged: its bytes no longer match their SHA-256"

    /// The first bytes of a blob, enough to rebuild its index string.
    func blobIndexBytes(_ id: Int64) throws -> Data {
        guard let row = try db.row("SELECT hash, substr(pb_unpacked(data, packing, size), 1, ?) AS head, data IS NULL AS inFile FROM blobs WHERE id = ?", ItemText.indexedPrefix, id) else {
            return Data()
        }
        if row.int("inFile") == 1, let hash = row.data("hash") { return files.prefix(hash: hash, count: ItemText.indexedPrefix) }
        return row.data("head") ?? Data()
    }
}

/// A store is confined to one thread or actor.
@available(*, unavailable)
extension HistoryStore: Sendable {}
