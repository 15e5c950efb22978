import Foundation
@testable import SQLiteSupport
import Testing

/// `replaceInTableDefinition`: a NOT NULL dropped in place, on a real database file, seen by every connection, with
/// the rows as they were; made again, it changes nothing; defensive mode does not stop it and stays on.
@Suite struct SchemaEditingTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("test.sqlite").path }

    func definition(_ db: Connection) throws -> String {
        try #require(try db.row("SELECT sql FROM sqlite_schema WHERE name = 't'")?.string("sql"))
    }

    @Test func aNotNullIsDroppedInPlaceForEveryConnection() throws {
        defer { _ = Result { try FileManager.default.removeItem(at: directory) } }
        let db = try Connection(path: path)
        try db.execute(
            "PRAGMA journal_mode = WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, a REAL NOT NULL, b TEXT NOT NULL);"
                + "INSERT INTO t(a, b) VALUES (1.5, 'x'), (2.5, 'y')")
        let other = try Connection(path: path)
        #expect(throws: SQLiteError.self) { try other.run("INSERT INTO t(a, b) VALUES (NULL, 'z')") }
        db.isDefensive = true

        let edited = try db.transaction { () throws -> Bool in
            try db.replaceInTableDefinition(table: "t", "a REAL NOT NULL,", with: "a REAL,")
        }
        #expect(edited)
        #expect(db.isDefensive, "defensive mode is set back")
        #expect(try definition(db) == "CREATE TABLE t(id INTEGER PRIMARY KEY, a REAL, b TEXT NOT NULL)")
        try db.run("INSERT INTO t(a, b) VALUES (NULL, 'z')")
        try other.run("INSERT INTO t(a, b) VALUES (NULL, 'w')")
        #expect(throws: SQLiteError.self) { try other.run("INSERT INTO t(a, b) VALUES (3.5, NULL)") }
        #expect(try db.rows("SELECT a FROM t ORDER BY id").map { $0.double("a") } == [1.5, 2.5, nil, nil])
        // What the planner assumed of a NOT NULL column holds no more: IS NULL finds the NULLs.
        #expect(try other.row("SELECT count(*) FROM t WHERE a IS NULL")?.int(0) == 2)
        #expect(try db.row("SELECT * FROM pragma_integrity_check")?.string("integrity_check") == "ok")
        // Defensive mode, set back, refuses the same write made by hand.
        #expect(throws: SQLiteError.self) {
            try db.execute("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = sql WHERE name = 't'")
        }
        try db.execute("PRAGMA writable_schema = OFF")

        #expect(try db.transaction { try db.replaceInTableDefinition(table: "t", "a REAL NOT NULL,", with: "a REAL,") } == false)
        #expect(try db.transaction { try db.replaceInTableDefinition(table: "missing", "a", with: "b") } == false)
        #expect(try definition(other) == "CREATE TABLE t(id INTEGER PRIMARY KEY, a REAL, b TEXT NOT NULL)")
    }
}
