import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

@testable import PasteboardApp

/// The list's rows come from the store a page at a time.
@MainActor @Suite struct HistoryRowsTests {
    let directory: URL
    let store: HistoryStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pbgtk-rows-\(UUID().uuidString)")
        store = try HistoryStore(location: StoreLocation(directory: directory))
        try store.transaction {
            for index in 0..<1_000 {
                _ = try store.record(PasteboardItem(string: "item \(index)\(index % 10 == 0 ? " tenth" : "")"))
            }
        }
    }

    @Test func everyRowIsReadOnDemandNewestFirst() {
        let rows = HistoryRows(store: store)
        #expect(rows.reload(.init()) == 1_000)
        #expect(rows.item(at: 0)?.preview == "item 999")
        #expect(rows.item(at: 999)?.preview == "item 0 tenth")
        #expect(rows.item(at: 1_000) == nil)
        #expect(rows.cachedItem(at: 500) == nil, "pages in between were never read")
        #expect(rows.position(of: rows.item(at: 250)!.id) == 250)
    }

    @Test func aSearchFindsItsFirstPageAndKnowsThereIsMore() {
        let rows = HistoryRows(store: store)
        #expect(rows.reload(.init(text: "tenth")) == 100, "the first page of 100 matches")
        #expect(rows.item(at: 0)?.preview == "item 990 tenth")
        #expect(rows.reload(.init(text: "item 99")) == 11)
        #expect(rows.reload(.init(kinds: [.image])) == 0)
    }
}
