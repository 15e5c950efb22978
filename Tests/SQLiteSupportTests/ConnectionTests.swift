import Foundation
import SQLiteSupport
import Testing

@Suite struct ConnectionTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("test.sqlite").path }

    @Test func roundTripsEveryValueKindIncludingNulBytesInBlobs() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n)")
        let blob = Data([0, 1, 2, 0, 255])
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", 42, 1.5, "héllo", blob, Optional<Int>.none)
        let row = try #require(try db.row("SELECT * FROM t"))
        #expect(row.int("i") == 42)
        #expect(row.double("r") == 1.5)
        #expect(row.string("s") == "héllo")
        #expect(row.data("b") == blob)
        #expect(row["n"] == .null)
    }

    @Test func rowsShareTheirColumnNamesWithinARunOnly() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y')")
        let rows = try db.rows("SELECT * FROM t ORDER BY a")
        #expect(rows.map { $0.int("a") } == [1, 2])
        #expect(rows.map { $0.string("b") } == ["x", "y"])
        // The same cached statement after a schema change: SQLite prepares it again, with the new column.
        try db.execute("ALTER TABLE t ADD COLUMN c INTEGER DEFAULT 7")
        let again = try db.rows("SELECT * FROM t ORDER BY a")
        #expect(again.map { $0.int("c") } == [7, 7])
        #expect(again.allSatisfy { $0.has("c") && $0.values.count == 3 })
        // A run left after its first row, then reset: the next run reads its names again.
        let statement = try db.prepare("SELECT * FROM t ORDER BY a")
        #expect(try statement.step()?.has("d") == false)
        statement.reset()
        try db.execute("ALTER TABLE t ADD COLUMN d TEXT DEFAULT 'new'")
        #expect(try statement.step()?.string("d") == "new")
        statement.reset()
    }

    @Test func emptyBlobIsNotNull() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t(b BLOB)")
        try db.run("INSERT INTO t VALUES (?)", Data())
        #expect(try db.row("SELECT b IS NULL AS missing FROM t")?.int("missing") == 0)
    }

    @Test func failedTransactionRollsBack() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.row("SELECT count(*) AS c FROM t")?.int("c") == 0)
        #expect(!db.isInTransaction)
    }

    @Test func errorsCarryCodeAndSQLButNoBoundValues() throws {
        let db = try Connection(path: path)
        try db.execute("CREATE TABLE t(x INTEGER PRIMARY KEY)")
        try db.run("INSERT INTO t VALUES (?)", 7)
        do {
            try db.run("INSERT INTO t VALUES (?)", 7)
            Issue.record("expected a constraint error")
        } catch {
            #expect(error.isConstraint)
            #expect(error.sql == "INSERT INTO t VALUES (?)")
            #expect(!error.description.contains("7)"))
        }
    }

    @Test func migratorAppliesInOrderAndRefusesNewerSchema() throws {
        let db = try Connection(path: path)
        let migrator = Migrator([
            .init(version: 1, sql: "CREATE TABLE a(x)"),
            .init(version: 2, sql: "ALTER TABLE a ADD COLUMN y"),
        ])
        try migrator.migrate(db)
        #expect(try Migrator.version(of: db) == 2)
        try migrator.migrate(db)  // idempotent
        try db.execute("PRAGMA user_version = 9")
        #expect(throws: Migrator.NewerSchemaError.self) { try migrator.migrate(db) }
    }

    /// A migration's columns are added only where missing, so that it may run again over what it made.
    @Test func aMigrationAddsItsColumnsOnlyWhereMissing() throws {
        let db = try Connection(path: path)
        let migrator = Migrator([
            .init(version: 1, sql: "CREATE TABLE a(x)"),
            .init(version: 2, columns: [.init(table: "a", name: "y", definition: "INTEGER")], sql: "INSERT INTO a VALUES (1, 2)"),
        ])
        try migrator.migrate(db)
        try db.execute("PRAGMA user_version = 1")
        try migrator.migrate(db)
        #expect(try Migrator.version(of: db) == 2)
        #expect(try db.rows("SELECT x, y FROM a").map { [$0.int("x"), $0.int("y")] } == [[1, 2], [1, 2]])
        #expect(try db.rows("SELECT name FROM pragma_table_info('a')").compactMap { $0.string("name") } == ["x", "y"])
    }

    @Test func openingGarbageFileReportsNotADatabase() throws {
        try Data("this is not sqlite at all, just some text".utf8).write(to: URL(fileURLWithPath: path))
        let db = try Connection(path: path)
        #expect(throws: SQLiteError.self) { try db.execute("PRAGMA journal_mode") ; _ = try db.rows("SELECT * FROM sqlite_master") }
    }

    @Test func checkpointEmptiesTheWriteAheadLog() throws {
        let db = try Connection(path: path)
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (zeroblob(100000))")
        let wal = path + "-wal"
        #expect((try FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0 > 0)
        let reader = try Connection(path: path)
        #expect(try reader.row("SELECT count(*) AS n FROM t")?.int("n") == 1)
        let result = try db.checkpointAndTruncate()
        #expect(result.isComplete)
        #expect((try FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue == 0)
    }

    @Test func checkpointHeldUpByAReaderSaysSo() throws {
        let db = try Connection(path: path, busyTimeout: 50)
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        let reader = try Connection(path: path)
        let statement = try reader.prepare("SELECT x FROM t")
        #expect(try statement.step() != nil)  // an open read transaction on this snapshot
        try db.run("INSERT INTO t VALUES (3)")
        #expect(try !db.checkpointAndTruncate().isComplete)
        statement.reset()
        #expect(try db.checkpointAndTruncate().isComplete)
    }

    @Test func symbolicLinkIsRefusedWhenAsked() throws {
        try Connection(path: path).execute("CREATE TABLE t(x)")
        let link = directory.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: SQLiteError.self) { _ = try Connection(path: link, followsSymbolicLinks: false) }
        _ = try Connection(path: link).row("SELECT count(*) FROM t")
    }
}
