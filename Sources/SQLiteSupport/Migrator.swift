/// Applies numbered schema migrations in order, tracked by `PRAGMA user_version`.
public struct Migrator: Sendable {
    /// One migration: its version and the SQL that brings the schema from `version - 1` to `version`.
    public struct Migration: Sendable {
        /// A column the migration adds to a table, unless the table has it already.
        public struct Column: Sendable {
            public let table: String
            public let name: String
            /// Its type and constraints, as `ALTER TABLE … ADD COLUMN name` takes them.
            public let definition: String
            public init(table: String, name: String, definition: String) {
                self.table = table
                self.name = name
                self.definition = definition
            }
        }

        public let version: Int
        public let sql: String
        /// Added before `sql` runs, each only where it is missing: SQLite has no `ADD COLUMN IF NOT EXISTS`, and a
        /// migration may run again over what it made (a store set back to an older version by hand).
        public let columns: [Column]
        /// Run after `sql`, in the same transaction: a step SQL alone cannot take (a value read, then written).
        public let after: (@Sendable (Connection) throws -> Void)?
        public init(
            version: Int, columns: [Column] = [], sql: String, after: (@Sendable (Connection) throws -> Void)? = nil
        ) {
            self.version = version
            self.columns = columns
            self.sql = sql
            self.after = after
        }
    }

    /// Thrown when the file's schema is newer than this program understands.
    public struct NewerSchemaError: Error, Sendable {
        public let found: Int
        public let supported: Int
    }

    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        // Programmer error: versions must be 1, 2, 3… in order.
        precondition(migrations.enumerated().allSatisfy { $0.offset + 1 == $0.element.version })
        self.migrations = migrations
    }

    /// The newest version these migrations produce.
    public var latestVersion: Int { migrations.count }

    /// The schema version stored in the file.
    public static func version(of connection: Connection) throws(SQLiteError) -> Int {
        Int(try connection.row("PRAGMA user_version")?.int(0) ?? 0)
    }

    /// Brings the database up to date; each migration runs in its own transaction.
    public func migrate(_ connection: Connection) throws {
        let current = try Self.version(of: connection)
        if current > latestVersion { throw NewerSchemaError(found: current, supported: latestVersion) }
        for migration in migrations where migration.version > current {
            try connection.transaction {
                // Another process may have migrated between the check above and this write lock: look again.
                guard try Self.version(of: connection) < migration.version else { return }
                for column in migration.columns {
                    let present = try connection.row(
                        "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", column.table, column.name)
                    if present == nil {
                        try connection.execute(
                            "ALTER TABLE \(column.table) ADD COLUMN \(column.name) \(column.definition)")
                    }
                }
                try connection.execute(migration.sql)
                try migration.after?(connection)
                try connection.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
