internal import CSQLite

/// Binding and reading by position without building a `Row`: for loops over many rows (imports, exports,
/// listings) where a dictionary of column names and a copy of every value per row would cost more than the query.
///
/// ```swift
/// let insert = try db.prepare("INSERT INTO t(x, b) VALUES (?, ?)")
/// try insert.bind(Int64(42), at: 1)
/// try bytes.withUnsafeBytes { try insert.bind(blob: $0, at: 2) }
/// try insert.runToCompletion()
///
/// let select = try db.prepare("SELECT x, b FROM t")
/// while try select.next() {
///     let x = select.int64(at: 0)
///     select.withBlob(at: 1) { bytes in … }   // valid only inside the closure
/// }
/// ```
extension Statement {
    // MARK: - Binding by position (1-based, as in SQL)

    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    public func bind(_ value: Double, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    public func bind(_ value: Bool, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    public func bindNull(at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds a copy of `bytes` as a blob (an empty buffer is an empty blob, not NULL).
    public func bind(blob bytes: UnsafeRawBufferPointer, at index: Int32) throws(SQLiteError) {
        try check(pb_sqlite3_bind_blob_transient(handle, index, bytes.baseAddress ?? Self.nonNull, Int32(bytes.count)))
    }

    /// Binds a copy of `bytes`, which must be UTF-8, as text.
    public func bind(text bytes: UnsafeRawBufferPointer, at index: Int32) throws(SQLiteError) {
        let pointer = (bytes.baseAddress ?? Self.nonNull).assumingMemoryBound(to: CChar.self)
        try check(pb_sqlite3_bind_text_transient(handle, index, pointer, Int32(bytes.count)))
    }

    /// Binds a string as text, or NULL for nil.
    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        guard var value else { return try bindNull(at: index) }
        let rc = value.withUTF8 { buffer in
            pb_sqlite3_bind_text_transient(
                handle, index, UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self), Int32(buffer.count))
        }
        try check(rc)
    }

    /// A zero-length value still needs a non-null pointer, or SQLite binds NULL (never read: the length is 0).
    private static var nonNull: UnsafeRawPointer { UnsafeRawPointer(bitPattern: 1)! }

    private func check(_ rc: Int32) throws(SQLiteError) {
        if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
    }

    // MARK: - Stepping and reading by position (0-based, as in SQLite's column API)

    /// Steps once: true when a row is ready to read, false when the statement is done (it is then reset, its
    /// bindings kept).
    public func next() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        let error = rc == SQLITE_DONE ? nil : connection.error(rc, sql: sql)
        sqlite3_reset(handle)
        rowNames = nil
        if let error { throw error }
        return false
    }

    /// Resets the statement for another run, keeping its bindings.
    public func rewind() {
        sqlite3_reset(handle)
        rowNames = nil
    }

    public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    public func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    public func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    /// The column's bytes as a blob, valid only inside `body` (the next step or reset frees them).
    public func withBlob<T, E: Error>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        // sqlite3_column_blob first, then sqlite3_column_bytes: "the safest policy is to invoke these routines …
        // sqlite3_column_blob() … followed by sqlite3_column_bytes()" (sqlite.org/c3ref/column_blob.html).
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    /// The column's bytes as UTF-8 text, valid only inside `body`.
    public func withText<T, E: Error>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        let pointer = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? UnsafeRawPointer(pointer) : nil, count: count))
    }

    /// The column as a string, or nil when it is NULL.
    public func string(at column: Int32) -> String? {
        if isNull(at: column) { return nil }
        return withText(at: column) { String(decoding: $0, as: UTF8.self) }
    }
}
