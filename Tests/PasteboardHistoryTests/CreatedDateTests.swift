import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// An item's first copy's date is stored only when it is not its last copy's (schema 15): `items.created` is NULL
/// for an item copied once. Every way of reading, repeating, restoring, importing and exporting an item sees the
/// same two dates as before.
@Suite struct CreatedDateTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore
    let now = Date(timeIntervalSince1970: 1_800_000_000.25)

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// The item's row as stored: (`created`, `last_copied`).
    func stored(_ id: Int64) throws -> (created: Double?, lastCopied: Double?) {
        let db = try rawConnection(location)
        defer { _ = Result { try db.close() } }
        let row = try #require(try db.row("SELECT created, last_copied FROM items WHERE id = ?", id))
        return (row.double("created"), row.double("last_copied"))
    }

    func dates(_ id: Int64) throws -> (created: Date, lastCopied: Date) {
        let item = try store.item(id: id)
        return (item.created, item.lastCopied)
    }

    @Test func anItemCopiedOnceStoresOneDateAndARepeatKeepsTheFirst() throws {
        let id = try store.record(PasteboardItem(string: "once"), metadata: CaptureMetadata(date: now)).id
        #expect(try stored(id) == (nil, now.timeIntervalSince1970))
        #expect(try dates(id) == (now, now))

        let later = now.addingTimeInterval(90.5)
        try store.record(PasteboardItem(string: "once"), metadata: CaptureMetadata(date: later))
        #expect(try stored(id) == (now.timeIntervalSince1970, later.timeIntervalSince1970))
        #expect(try dates(id) == (now, later))

        // A repeat dated in the past (another device's copy) keeps both; one that brings an older first copy
        // (an imported line) lowers it.
        try store.record(PasteboardItem(string: "once"), metadata: CaptureMetadata(date: now.addingTimeInterval(-5)))
        #expect(try dates(id) == (now, later))
        let older = now.addingTimeInterval(-86_400)
        try store.record(PasteboardItem(string: "once"), metadata: CaptureMetadata(date: later, created: older))
        #expect(try dates(id) == (older, later))

        // An item recorded with two dates keeps both; one whose first copy is its last stores one.
        let two = try store.record(
            PasteboardItem(string: "two dates"), metadata: CaptureMetadata(date: later, created: older)).id
        #expect(try stored(two) == (older.timeIntervalSince1970, later.timeIntervalSince1970))
        let same = try store.record(
            PasteboardItem(string: "same date"), metadata: CaptureMetadata(date: later, created: later)).id
        #expect(try stored(same) == (nil, later.timeIntervalSince1970))
        #expect(try dates(same) == (later, later))
    }

    @Test func aRestoreKeepsTheFirstDate() throws {
        let id = try store.record(PasteboardItem(string: "restored"), metadata: CaptureMetadata(date: now)).id
        let later = now.addingTimeInterval(3_600)
        try store.restore(id: id, onto: "general", date: later)
        #expect(try stored(id) == (now.timeIntervalSince1970, later.timeIntervalSince1970))
        #expect(try dates(id) == (now, later))
        #expect(try store.item(id: id).copyCount == 2)
    }

    @Test func importAndExportCarryBothDates() throws {
        let older = now.addingTimeInterval(-7_200)
        let bulk = try HistoryImport(store: store)
        let once = try bulk.add(PasteboardItem(string: "imported once"), metadata: CaptureMetadata(date: now)).id
        let twice = try bulk.add(
            PasteboardItem(string: "imported with two dates"), metadata: CaptureMetadata(date: now, created: older)
        ).id
        try bulk.commit()
        #expect(try stored(once) == (nil, now.timeIntervalSince1970))
        #expect(try stored(twice) == (older.timeIntervalSince1970, now.timeIntervalSince1970))

        var exported: [Int64: (Double, Double)] = [:]
        try store.exportItems { result in
            if case .success(let item) = result { exported[item.id] = (item.created, item.lastCopied) }
        }
        #expect(exported.count == 2)
        #expect(exported[once].map { $0 == (now.timeIntervalSince1970, now.timeIntervalSince1970) } == true)
        #expect(exported[twice].map { $0 == (older.timeIntervalSince1970, now.timeIntervalSince1970) } == true)
    }

    /// A store of schema 14 keeps `created NOT NULL` and both dates in every row. Opened, its table's definition
    /// loses the NOT NULL (the rows stay as they are) and new items store one date; `pb prune --vacuum` drops the
    /// dates that are the last copy's. Running the migration again changes nothing.
    @Test func aStoreOfSchema14GainsTheNullableDateAndTheVacuumDropsEqualDates() throws {
        let old = try store.record(PasteboardItem(string: "stored by schema 14"), metadata: CaptureMetadata(date: now)).id
        let kept = try store.record(
            PasteboardItem(string: "two dates, schema 14"),
            metadata: CaptureMetadata(date: now, created: now.addingTimeInterval(-60))
        ).id
        func setBack() throws {
            let db = try rawConnection(location)
            defer { _ = Result { try db.close() } }
            try db.execute("UPDATE items SET created = last_copied WHERE created IS NULL")
            #expect(try db.transaction { try db.replaceInTableDefinition(table: "items", "created REAL,", with: "created REAL NOT NULL,") })
            try db.execute("PRAGMA user_version = 14")
            #expect(throws: SQLiteError.self) { try db.run("UPDATE items SET created = NULL") }
        }
        func definition() throws -> String {
            let db = try rawConnection(location)
            defer { _ = Result { try db.close() } }
            return try #require(try db.row("SELECT sql FROM sqlite_schema WHERE name = 'items'")?.string("sql"))
        }
        try setBack()
        #expect(try definition().contains("created REAL NOT NULL,"))

        let reopened = try HistoryStore(location: location)
        #expect(try reopened.stats().schemaVersion == 15)
        #expect(try definition().contains("    created REAL,\n"))
        #expect(try stored(old) == (now.timeIntervalSince1970, now.timeIntervalSince1970))
        let new = try reopened.record(PasteboardItem(string: "stored by schema 15"), metadata: CaptureMetadata(date: now)).id
        #expect(try stored(new) == (nil, now.timeIntervalSince1970))
        #expect(try reopened.item(id: old).created == now)

        try reopened.vacuum()
        #expect(try stored(old) == (nil, now.timeIntervalSince1970))
        #expect(try stored(kept) == (now.addingTimeInterval(-60).timeIntervalSince1970, now.timeIntervalSince1970))
        #expect(try reopened.item(id: old).created == now)
        #expect(try reopened.item(id: kept).created == now.addingTimeInterval(-60))
        #expect(try reopened.checkPayloads().problems.isEmpty)

        // The migration again, over a table it changed already: the definition stays one NOT NULL shorter.
        do {
            let db = try rawConnection(location)
            try db.execute("PRAGMA user_version = 14")
            try db.close()
        }
        let again = try HistoryStore(location: location)
        #expect(try again.stats().schemaVersion == 15)
        #expect(try definition().contains("    created REAL,\n"))
        #expect(try again.items(HistoryQuery()).count == 3)
    }

    /// A definition of `created` the migration does not know (here with two spaces) stops the store's opening with
    /// what to do, at schema 14 with every row as it was, instead of failing every later copy on the NOT NULL.
    @Test func anUnknownDefinitionStopsTheUpgradeWithWhatToDo() throws {
        let id = try store.record(PasteboardItem(string: "kept"), metadata: CaptureMetadata(date: now)).id
        do {
            let db = try rawConnection(location)
            defer { _ = Result { try db.close() } }
            try db.execute("UPDATE items SET created = last_copied")
            #expect(try db.transaction { try db.replaceInTableDefinition(table: "items", "created REAL,", with: "created  REAL NOT NULL,") })
            try db.execute("PRAGMA user_version = 14")
        }
        let error = try #require(throws: HistoryError.self) { try HistoryStore(location: location) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("defines the column created in a way this pb does not know"), "\(error.message)")
        #expect(error.message.contains("left at schema 14"))
        let db = try rawConnection(location)
        defer { _ = Result { try db.close() } }
        #expect(try db.row("PRAGMA user_version")?.int(0) == 14)
        #expect(try db.row("SELECT count(*) AS n FROM items WHERE id = ?", id)?.int("n") == 1)
    }
}
