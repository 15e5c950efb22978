import FoundationEssentials
internal import CSQLite

/// One open SQLite database connection.
///
/// A connection is not thread-safe in this wrapper's contract: confine it to one thread or actor.
/// ```swift
/// let db = try Connection(path: "history.sqlite")
/// try db.execute("CREATE TABLE t(x)")
/// try db.run("INSERT INTO t VALUES (?)", 42)
/// ```
public final class Connection {
    /// How to open the file.
    public enum Mode: Sendable {
        case readWrite(create: Bool)
        case readOnly
    }

    let handle: OpaquePointer
    /// The path the connection was opened with.
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// The checkpointer the write-ahead-log hook reports to (`checkpoint(in:)`), retained while it is installed.
    var walHookContext: Unmanaged<BackgroundCheckpointer>?

    /// Opens (and with `.readWrite(create: true)` creates) the database at `path`.
    ///
    /// With `followsSymbolicLinks` false, a `path` that is a symbolic link is refused (`SQLITE_OPEN_NOFOLLOW`:
    /// "The database filename is not allowed to be a symbolic link").
    public init(
        path: String, mode: Mode = .readWrite(create: true), busyTimeout: Int32 = 5000,
        followsSymbolicLinks: Bool = true
    ) throws(SQLiteError) {
        var flags: Int32 = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        if !followsSymbolicLinks { flags |= SQLITE_OPEN_NOFOLLOW }
        switch mode {
        case .readWrite(let create): flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        walHookContext?.release()
    }

    // MARK: - Executing

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: rc, message: message, sql: sql, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Prepares `sql`, reusing a cached statement when one exists.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows, with positional parameters.
    public func run(_ sql: String, _ values: any SQLiteBindable...) throws(SQLiteError) {
        let statement = try prepare(sql)
        try statement.bind(values)
        try statement.runToCompletion()
    }

    /// Runs a query and returns every row.
    public func rows(_ sql: String, _ values: any SQLiteBindable...) throws(SQLiteError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [Row] = []
        while let row = try statement.step() { rows.append(row) }
        return rows
    }

    /// Runs a query and returns its first row.
    public func row(_ sql: String, _ values: any SQLiteBindable...) throws(SQLiteError) -> Row? {
        let statement = try prepare(sql)
        try statement.bind(values)
        let row = try statement.step()
        statement.reset()
        return row
    }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Transactions

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` by default so writers queue on the busy timeout
    /// rather than fail on upgrade); commits on success, rolls back on any error.
    public func transaction<T>(immediate: Bool = true, _ body: () throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if isInTransaction {
                // Rolling back is best effort: the original error is the one to report.
                _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
    }

    // MARK: - The write-ahead log

    /// What a WAL checkpoint did.
    public struct CheckpointResult: Sendable, Equatable {
        /// Frames in the log when the checkpoint ended.
        public let logFrames: Int
        /// Of those, how many are now in the database file.
        public let checkpointedFrames: Int
        /// False when another connection kept the checkpoint from finishing within the busy timeout.
        public let isComplete: Bool
    }

    /// Copies every frame of the write-ahead log into the database file and truncates the log to zero bytes.
    ///
    /// "This mode blocks (invokes the busy-handler callback) until there is no database writer and all readers
    /// are reading from the most recent database snapshot. It then checkpoints all frames in the log file and
    /// syncs the database file. ... [and] also truncates the log file to zero bytes" (`sqlite3_wal_checkpoint_v2`).
    /// A connection reading an older snapshot for longer than the busy timeout leaves it incomplete: the result
    /// says so rather than throwing, since nothing failed.
    @discardableResult
    public func checkpointAndTruncate() throws(SQLiteError) -> CheckpointResult {
        try walCheckpoint(SQLITE_CHECKPOINT_TRUNCATE)
    }

    /// Copies as many frames of the write-ahead log into the database file as it can without waiting for readers
    /// or writers, and syncs it (`SQLITE_CHECKPOINT_PASSIVE`).
    @discardableResult
    public func checkpointPassively() throws(SQLiteError) -> CheckpointResult {
        try walCheckpoint(SQLITE_CHECKPOINT_PASSIVE)
    }

    /// Waits (up to the busy timeout) for the writer of the moment, copies every frame with new writers held back,
    /// then waits for readers of the old log, so that the next writer starts the log anew
    /// (`SQLITE_CHECKPOINT_RESTART`).
    @discardableResult
    public func checkpointRestarting() throws(SQLiteError) -> CheckpointResult {
        try walCheckpoint(SQLITE_CHECKPOINT_RESTART)
    }

    /// One checkpoint in `mode`; busy is an incomplete result, not an error. Complete when every frame in the log
    /// was copied (a truncating checkpoint that succeeds has copied them all).
    private func walCheckpoint(_ mode: Int32) throws(SQLiteError) -> CheckpointResult {
        var logFrames: Int32 = 0
        var checkpointed: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, mode, &logFrames, &checkpointed)
        if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
            return CheckpointResult(logFrames: Int(logFrames), checkpointedFrames: Int(checkpointed), isComplete: false)
        }
        if rc != SQLITE_OK { throw error(rc, sql: nil) }
        return CheckpointResult(
            logFrames: Int(logFrames), checkpointedFrames: Int(checkpointed), isComplete: checkpointed == logFrames)
    }

    /// Frees every page of this connection's cache that no statement is using (`sqlite3_db_release_memory`); the
    /// cache fills again as pages are read.
    public func releaseMemory() throws(SQLiteError) {
        let rc = sqlite3_db_release_memory(handle)
        if rc != SQLITE_OK { throw error(rc, sql: nil) }
    }

    /// Closes the connection, reporting failure.
    public func close() throws(SQLiteError) {
        statementCache.removeAll()
        let rc = sqlite3_close(handle)
        if rc != SQLITE_OK { throw SQLiteError(code: rc, message: lastErrorMessage) }
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: rc, message: lastErrorMessage, sql: sql, systemErrno: sqlite3_system_errno(handle))
    }
}

/// A connection is confined to one thread or actor; never share it.
@available(*, unavailable)
extension Connection: Sendable {}
