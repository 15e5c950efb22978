/// An error reported by SQLite, carrying the result code, SQLite's message and the SQL that failed.
///
/// Bound values are never included: clipboard contents can be secrets.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    public let code: Int32
    /// SQLite's own message.
    public let message: String
    /// The statement that failed, if any.
    public let sql: String?
    /// The operating system's error number behind an I/O error (`sqlite3_system_errno`), or 0.
    public let systemErrno: Int32

    public init(code: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (the low byte of the extended code).
    public var primaryCode: Int32 { code & 0xFF }

    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED
    public var isCorrupt: Bool { primaryCode == 11 || primaryCode == 26 }  // SQLITE_CORRUPT, SQLITE_NOTADB
    public var isReadOnly: Bool { primaryCode == 8 }  // SQLITE_READONLY
    /// SQLITE_FULL, or an I/O error that the disk being full caused: growing the WAL index (`-shm`) on a full
    /// disk fails with SQLITE_IOERR_SHMSIZE and errno ENOSPC, not with SQLITE_FULL.
    public var isFull: Bool { primaryCode == 13 || (primaryCode == 10 && systemErrno == 28) }  // SQLITE_IOERR, ENOSPC
    public var isCannotOpen: Bool { primaryCode == 14 }  // SQLITE_CANTOPEN
    public var isConstraint: Bool { primaryCode == 19 }  // SQLITE_CONSTRAINT
    /// The statement was stopped by `Connection.stopping(when:)` (SQLITE_INTERRUPT).
    public var isInterrupted: Bool { primaryCode == 9 }

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}
