import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// An item made of one text keeps it in its own row (schema 14, InlineText.swift): no payload row, hash or
/// representation row; every way of reading the item sees the same bytes as before, and everything else keeps its
/// payload rows.
@Suite struct InlineTextTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// (payload rows, representation rows, items keeping their text inline).
    func rows() throws -> (blobs: Int64, representations: Int64, inline: Int64) {
        let db = try rawConnection(location)
        defer { _ = Result { try db.close() } }
        let row = try #require(
            try db.row(
                "SELECT (SELECT count(*) FROM blobs) AS b, (SELECT count(*) FROM representations) AS r, "
                    + "(SELECT count(*) FROM items WHERE text_data IS NOT NULL) AS i"))
        return (row.int("b") ?? -1, row.int("r") ?? -1, row.int("i") ?? -1)
    }

    @Test func aTextAloneIsKeptInItsRowAndReadEveryWay() throws {
        let text = "Grüße, ünïcödé text\twith a tab\r\nand CRLF 🎉"
        let id = try store.record(PasteboardItem(string: text)).id
        let url = try store.record(PasteboardItem(data: Data("https://example.org/page".utf8), type: .plainText)).id
        #expect(try rows() == (0, 0, 2))

        #expect(try store.pasteboardItem(id: id).string == text)
        #expect(try store.pasteboardItem(id: id).types == [.utf8PlainText])
        #expect(try store.restorableItem(id: id).representation(forType: .utf8PlainText)?.data == Data(text.utf8))
        let listed = try store.item(id: id)
        #expect(listed.types == [.utf8PlainText] && listed.kind == .text && listed.size == text.utf8.count)
        #expect(listed.preview.hasPrefix("Grüße"))
        #expect(try store.item(id: url).kind == .url && store.item(id: url).types == [.plainText])
        #expect(try store.textPrefix(id: id, limit: 6) == "Grüß")
        // Search, by the index and by a scan; the type filter.
        #expect(try store.items(HistoryQuery(text: "unicode text")).map(\.id) == [id])
        #expect(try store.items(HistoryQuery(text: "CRLF 🎉", isRegex: true)).map(\.id) == [id])
        #expect(try store.items(HistoryQuery(text: "ü")).map(\.id) == [id])
        #expect(try store.items(HistoryQuery(type: .plainText)).map(\.id) == [url, id])
        #expect(try store.items(HistoryQuery(type: .utf8PlainText)).map(\.id) == [id])
        #expect(try store.items(HistoryQuery(type: .html)).isEmpty)
        var exported: [[Data]] = []
        try store.exportItems { result in
            if case .success(let item) = result { exported.append(item.representations.map(\.bytes)) }
        }
        #expect(exported == [[Data(text.utf8)], [Data("https://example.org/page".utf8)]])
        let stats = try store.stats()
        #expect(stats.blobCount == 2 && stats.payloadBytes == text.utf8.count + 24)
        let check = try store.checkPayloads()
        #expect(check.problems.isEmpty && check.checkedCount == 2)
    }

    /// An empty text is an empty blob in the row, never NULL (which would be no text at all).
    @Test func anEmptyTextStaysAnEmptyText() throws {
        let id = try store.record(PasteboardItem(string: "")).id
        #expect(try rows() == (0, 0, 1))
        #expect(try store.pasteboardItem(id: id).representation(forType: .utf8PlainText)?.data == Data())
        #expect(try store.restorableItem(id: id).types == [.utf8PlainText])
        #expect(try store.item(id: id).types == [.utf8PlainText])
        #expect(try store.checkPayloads().problems.isEmpty)
        #expect(try store.record(PasteboardItem(string: "")).id == id)
    }

    @Test func everythingElseKeepsItsPayloadRows() throws {
        let html = PasteboardItem([
            .init(type: .utf8PlainText, data: Data("bold".utf8)), .init(type: .html, data: Data("<b>bold</b>".utf8)),
        ])
        try store.record(html)
        try store.record(PasteboardItem(data: Data("<i>only html</i>".utf8), type: .html))  // its text is derived
        try store.record(pngItem(seed: 4))
        let long = String(repeating: "long text ", count: 7_000)  // 70,000 bytes: a payload file
        let longID = try store.record(PasteboardItem(string: long)).id
        #expect(try rows().inline == 0)
        #expect(try store.pasteboardItem(id: longID).string == long)
        #expect(try store.items(HistoryQuery(text: "only html")).count == 1)
    }

    @Test func aRepeatMergesAndARestoreGivesThePasteboardItsOwnRow() throws {
        let id = try store.record(PasteboardItem(string: "said twice")).id
        try store.record(PasteboardItem(string: "between"))
        let again = try store.record(PasteboardItem(string: "said twice"))
        #expect(again.id == id && !again.isNew)
        #expect(try store.item(id: id).copyCount == 2)
        #expect(try store.items(HistoryQuery(text: "said twice")).map(\.id) == [id])
        #expect(try rows() == (0, 0, 2))

        try store.restore(id: try store.items(HistoryQuery(text: "between"))[0].id, onto: "general")
        #expect(try rows().blobs == 1, "the clipboard keeps its own payload row")
        #expect(try store.pasteboardContents("general").items.first?.string == "between")
        // The item goes, and the clipboard holding it with it; nothing of it stays.
        try store.delete(id: try store.items(HistoryQuery(text: "between"))[0].id)
        #expect(try store.pasteboardContents("general").items.isEmpty)
        #expect(try rows() == (0, 0, 1))
        #expect(try store.items(HistoryQuery(text: "between")).isEmpty)
        #expect(try store.stats().blobCount == 1)
    }

    /// A copy with the same identity and other representations (a type `ItemIdentity` leaves out, added): the item
    /// takes them, in payload rows, and its text is no longer kept inline.
    @Test func anItemThatTakesOtherRepresentationsLeavesItsRow() throws {
        let id = try store.record(PasteboardItem(string: "shared words")).id
        let volatile = try #require(ContentType(mimeType: "application/x-copyq-owner"))
        let richer = PasteboardItem([
            .init(type: .utf8PlainText, data: Data("shared words".utf8)), .init(type: volatile, data: Data("noise".utf8)),
        ])
        let result = try store.record(richer)
        #expect(result.id == id && !result.isNew)
        #expect(try rows() == (1 + 1, 2, 0))
        #expect(try store.pasteboardItem(id: id).types == [.utf8PlainText, volatile])
        #expect(try store.items(HistoryQuery(text: "shared words")).map(\.id) == [id])
        try store.delete(id: id)
        #expect(try rows() == (0, 0, 0))
    }

    /// A store whose texts are in payload rows (written before schema 14): read as before; new texts go inline; the
    /// repacking packs both; search finds both.
    @Test func rowsWrittenBeforeAndInlineTextsLiveSideBySide() throws {
        let older = try store.record(PasteboardItem(string: "written before, in a payload row")).id
        let damaged = try store.record(PasteboardItem(string: "written before and damaged")).id
        do {
            let db = try rawConnection(location)
            try db.execute((try undoingSchema14(db)) + "PRAGMA user_version = 10")
            try db.execute(
                "UPDATE blobs SET data = CAST('written BEFORE and damaged' AS BLOB) "
                    + "WHERE data = CAST('written before and damaged' AS BLOB)")
            #expect(db.changes == 1)
            try db.close()
        }
        let reopened = try HistoryStore(location: location)
        #expect(try rows() == (2, 2, 0))
        let now = try reopened.record(PasteboardItem(string: "written now, in its row")).id
        #expect(try rows() == (2, 2, 1))
        #expect(try reopened.items(HistoryQuery(text: "written")).map(\.id) == [now, damaged, older])
        #expect(try reopened.checkPayloads().problems.map(\.itemIDs) == [[damaged]])
        #expect(try reopened.stats().blobCount == 3)

        // `pb prune --vacuum` moves an older text into its item's row, checked against the item's identity first: the
        // damaged one stays where it is, and so does a payload row the clipboard shares.
        try reopened.restore(id: older, onto: "general")
        #expect(try rows() == (2, 2, 1))
        #expect(try reopened.moveTextsIntoItemRows(batch: 2) == 1)
        #expect(try rows() == (2, 1, 2))
        #expect(try reopened.pasteboardItem(id: older).string == "written before, in a payload row")
        #expect(try reopened.pasteboardContents("general").items.first?.string == "written before, in a payload row")
        #expect(try reopened.items(HistoryQuery(text: "written")).map(\.id) == [older, now, damaged])
        #expect(try reopened.items(HistoryQuery(text: "before, in a")).map(\.id) == [older])
        #expect(try reopened.checkPayloads().problems.map(\.itemIDs) == [[damaged]])
        #expect(try reopened.moveTextsIntoItemRows() == 0)
        // Deleted, the item empties the clipboard that held it, and its payload row goes with it.
        try reopened.delete(id: older)
        #expect(try rows() == (1, 1, 1))
        #expect(try reopened.stats().blobCount == 2)
    }
}
