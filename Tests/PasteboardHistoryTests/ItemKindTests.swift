import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Kinds follow the richest representation: an item with a picture is an image (issue 26, defect 9), recorded now
/// and migrated from schema 4.
@Suite struct ItemKindTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

    func pictureWithText() -> PasteboardItem {
        var item = PasteboardItem(string: "screenshot 2026-12-05.png")
        item.setData(Self.png, forType: .png)
        return item
    }

    @Test func aPictureWithTextIsAnImage() throws {
        let store = try HistoryStore(location: location)
        let picture = try store.record(pictureWithText()).id
        var page = PasteboardItem(string: "<b>cells</b>")
        page.setData(Data("<b>cells</b>".utf8), forType: .html)
        page.setData(Self.png, forType: .png)
        let cells = try store.record(page).id
        let text = try store.record(PasteboardItem(string: "just text")).id
        #expect(try store.item(id: picture).kind == .image)
        #expect(try store.item(id: cells).kind == .image)
        #expect(try store.item(id: text).kind == .text)
        #expect(try store.stats().kinds.first { $0.kind == .image }?.count == 2)
    }

    @Test func aStoreOfSchemaFourReKindsItsPictures() throws {
        var ids: [Int64] = []
        do {
            let store = try HistoryStore(location: location)
            ids.append(try store.record(pictureWithText()).id)
            ids.append(try store.record(PasteboardItem(string: "stays text")).id)
        }
        // What schema 4 recorded: a picture with text was text.
        do {
            let db = try rawConnection(location)
            try db.execute((try undoingSchema14(db)) + "UPDATE items SET kind = 'text'; DROP TABLE recognized_text; PRAGMA user_version = 4")
        }
        let store = try HistoryStore(location: location)
        #expect(try store.stats().schemaVersion == 15)
        #expect(try store.item(id: ids[0]).kind == .image)
        #expect(try store.item(id: ids[1]).kind == .text)
        #expect(try store.pasteboardItem(id: ids[0]).data(forType: .png) == Self.png)
    }
}
