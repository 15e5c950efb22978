import FoundationEssentials
internal import CSQLite

extension Connection {
    /// Replaces `old` with `new` in the text of table `table`'s definition, inside the caller's transaction; false
    /// when the definition does not hold `old` (the edit was made already).
    ///
    /// This is the edit SQLite's documentation of ALTER TABLE describes for changes that leave every stored row as
    /// it is (dropping a NOT NULL or a CHECK): the definition in `sqlite_schema` is rewritten, and the schema's
    /// version raised so that every connection, this one included, reads it again. Constant work whatever the
    /// table's size. Defensive mode, which forbids writing `sqlite_schema`, is off for the edit and set back after.
    public func replaceInTableDefinition(table: String, _ old: String, with new: String) throws(SQLiteError) -> Bool {
        let sql = "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?"
        guard let definition = try row(sql, table)?.string("sql"), definition.contains(old) else { return false }
        let wasDefensive = isDefensive
        isDefensive = false
        defer { isDefensive = wasDefensive }
        let cookie = try row("PRAGMA schema_version")?.int(0) ?? 0
        try execute("PRAGMA writable_schema = ON")
        do {
            try run(
                "UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?", old, new, table)
            try execute("PRAGMA schema_version = \(cookie + 1)")
        } catch {
            try execute("PRAGMA writable_schema = OFF")  // the caller's transaction rolls the edit back
            throw error
        }
        try execute("PRAGMA writable_schema = OFF")
        return true
    }
}

extension Connection {
    /// SQLite's defensive mode (`SQLITE_DBCONFIG_DEFENSIVE`), which forbids writing `sqlite_schema` among others.
    var isDefensive: Bool {
        get { pb_sqlite3_db_config_defensive(handle, -1) == 1 }
        set { _ = pb_sqlite3_db_config_defensive(handle, newValue ? 1 : 0) }
    }
}
