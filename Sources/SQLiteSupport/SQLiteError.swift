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

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended code).
    public var primaryCode: Int32 { code & 0xFF }

    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED
    public var isCorrupt: Bool { primaryCode == 11 || primaryCode == 26 }  // SQLITE_CORRUPT, SQLITE_NOTADB
    public var isReadOnly: Bool { primaryCode == 8 }  // SQLITE_READONLY
    public var isFull: Bool { primaryCode == 13 }  // SQLITE_FULL
    public var isCannotOpen: Bool { primaryCode == 14 }  // SQLITE_CANTOPEN
    public var isConstraint: Bool { primaryCode == 19 }  // SQLITE_CONSTRAINT

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}
