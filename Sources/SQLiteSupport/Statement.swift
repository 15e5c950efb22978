import FoundationEssentials
internal import CSQLite

/// A prepared statement, owned by its connection.
public final class Statement {
    let handle: OpaquePointer
    /// The statement's SQL.
    public let sql: String
    unowned let connection: Connection
    /// The columns of the rows `step()` returns, by name: read at the first row of each run and shared by its rows
    /// (a statement SQLite prepared again after a schema change may have other columns; `SELECT *` does).
    var rowNames: [String: Int]?

    init(connection: Connection, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        rowNames = nil
        sqlite3_clear_bindings(handle)
    }

    /// Binds positional parameters, starting at 1.
    public func bind(_ values: [any SQLiteBindable]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            try bind(value.sqliteValue, at: Int32(offset + 1))
        }
    }

    /// Binds one parameter.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            var text = v
            rc = text.withUTF8 { buffer in
                pb_sqlite3_bind_text_transient(
                    handle, index, UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                        .assumingMemoryBound(to: CChar.self), Int32(buffer.count))
            }
        case .blob(let v):
            rc = v.withUnsafeBytes { buffer in
                // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
                pb_sqlite3_bind_blob_transient(
                    handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(buffer.count))
            }
        }
        if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
    }

    /// Steps once; returns the row, or nil when done (and then resets).
    public func step() throws(SQLiteError) -> Row? {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW:
            let names = rowNames ?? Row.names(of: self)
            rowNames = names
            return Row(statement: self, names: names)
        case SQLITE_DONE:
            sqlite3_reset(handle)
            rowNames = nil
            return nil
        default:
            let error = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            rowNames = nil
            throw error
        }
    }

    /// Steps until done, ignoring rows.
    public func runToCompletion() throws(SQLiteError) {
        while try step() != nil {}
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
