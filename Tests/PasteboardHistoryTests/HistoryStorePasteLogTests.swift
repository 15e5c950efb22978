import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Allow Paste in the store: the ask flag, the paste log, and the migration that added them.
@Suite struct HistoryStorePasteLogTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    @Test func aStoreOfSchemaOneIsMigratedWithNothingLost() throws {
        var ids: [Int64] = []
        do {
            let store = try HistoryStore(location: location)
            ids.append(try store.record(PasteboardItem(string: "kept through the migration")).id)
            ids.append(try store.record(PasteboardItem(data: Data([0x89, 0x50, 0x4E, 0x47]), type: .png)).id)
            try store.setPinned(true, id: ids[0])
        }
        // Back to what schema 1 was: no paste log, no ask column.
        do {
            let db = try rawConnection(location)
            try db.execute(
                (try undoingSchema14(db)) + "DROP TABLE search_backlog; DROP TABLE changes; DROP TABLE paste_log; "
                    + "ALTER TABLE items DROP COLUMN ask_before_paste; DROP TABLE recognized_text; PRAGMA user_version = 1")
        }
        let store = try HistoryStore(location: location)
        #expect(try store.stats().schemaVersion == 15)
        let items = try store.items()
        #expect(items.map(\.id) == ids.reversed())
        #expect(items.allSatisfy { !$0.asksBeforePaste })
        #expect(try store.item(id: ids[0]).isPinned)
        #expect(try store.pasteboardItem(id: ids[0]).string == "kept through the migration")
        #expect(try store.pasteLog(itemID: ids[0]).isEmpty)
    }

    @Test func anItemAsksWhenCopiedSoAndARepeatNeverClearsIt() throws {
        let store = try HistoryStore(location: location)
        var asking = CaptureMetadata()
        asking.asksBeforePaste = true
        let id = try store.record(PasteboardItem(string: "secret"), metadata: asking).id
        #expect(try store.item(id: id).asksBeforePaste)
        #expect(try store.record(PasteboardItem(string: "secret")).id == id)
        #expect(try store.asksBeforePaste(id: id), "a plain repeat keeps the ask")
        try store.setAsksBeforePaste(false, ids: [id])
        #expect(!(try store.item(id: id).asksBeforePaste))
        #expect(throws: HistoryError.self) { try store.setAsksBeforePaste(true, ids: [id, 999]) }
        #expect(!(try store.item(id: id).asksBeforePaste), "all or nothing")
    }

    @Test func thePasteLogIsNewestFirstBoundedAndGoesWithItsItem() throws {
        let store = try HistoryStore(location: location)
        let id = try store.record(PasteboardItem(string: "pasted often")).id
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<(HistoryStore.maxPasteLogEntries + 5) {
            let outcome: PasteRecord.Outcome = index % 2 == 0 ? .allowed : .refused
            try store.logPaste(
                PasteRecord(date: start.addingTimeInterval(Double(index)), reader: "reader\(index)", readerPID: index,
                    outcome: outcome), itemID: id)
        }
        let log = try store.pasteLog(itemID: id, limit: 1000)
        #expect(log.count == HistoryStore.maxPasteLogEntries)
        #expect(log.first?.reader == "reader\(HistoryStore.maxPasteLogEntries + 4)")
        #expect(log.first?.readerPID == HistoryStore.maxPasteLogEntries + 4)
        #expect(log.last?.reader == "reader5", "the oldest entries went")

        // Logging for an item that is gone stores nothing; deleting an item deletes its log.
        try store.logPaste(PasteRecord(date: start, reader: "late", readerPID: nil, outcome: .served), itemID: 999)
        try store.delete(id: id)
        let db = try rawConnection(location)
        #expect(try db.row("SELECT count(*) AS n FROM paste_log")?.int("n") == 0)
    }
}
