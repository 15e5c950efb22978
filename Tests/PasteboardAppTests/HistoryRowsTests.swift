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

    @Test func aSearchStartsWithAScreenfulAndKnowsThereIsMore() {
        let rows = HistoryRows(store: store)
        #expect(rows.reload(.init(text: "tenth")) == HistoryRows.defaultFirstWindow, "a screenful of matches first")
        #expect(!rows.isComplete)
        #expect(rows.item(at: 0)?.preview == "item 990 tenth")
        #expect(rows.reload(.init(text: "item 99")) == 11)
        #expect(rows.isComplete)
        #expect(rows.reload(.init(kinds: [.image])) == 0)
    }

    @Test func aTwoCharacterSearchShowsItsMatchesAndMoreArriveWhenAsked() {
        let rows = HistoryRows(store: store)
        var grown: [(Int, Int)] = []
        rows.onGrow = { grown.append(($0, $1)) }
        // "en" (in "tenth") is below the trigram index's three characters: a scan, stopped at the first window.
        let first = rows.reload(.init(text: "en"))
        #expect(first == HistoryRows.defaultFirstWindow)
        #expect(rows.item(at: 0)?.preview == "item 990 tenth")
        rows.grow()
        #expect(grown.count == 1 && grown.first.map { $0 == (first, HistoryRows.growth) } == true, "\(grown)")
        #expect(rows.count == first + HistoryRows.growth)
        // The matches go on where the first window stopped, newest first, each once.
        let previews = (0..<rows.count).compactMap { rows.item(at: $0)?.preview }
        #expect(previews.count == rows.count && Set(previews).count == previews.count)
        #expect(previews.allSatisfy { $0.hasSuffix(" tenth") })
        let numbers = previews.compactMap { Int($0.split(separator: " ")[1]) }
        #expect(numbers == Array(stride(from: 990, through: 990 - 10 * (rows.count - 1), by: -10)), "\(numbers)")
        // Asked again and again, every match arrives, and then nothing more is read.
        while !rows.isComplete { rows.grow() }
        #expect(rows.count == 100)
        #expect(rows.item(at: 99)?.preview == "item 0 tenth")
        let calls = grown.count
        rows.loadMore()
        rows.grow()
        #expect(grown.count == calls)
    }

    @Test func theUncountedHistoryIsCountedForTheStatusLineWithoutGrowingTheList() {
        let rows = HistoryRows(store: store, countsWholeHistory: false)
        #expect(rows.reload(.init()) == HistoryRows.defaultFirstWindow)
        #expect(rows.total == nil)
        rows.countTotal()
        #expect(rows.total == 1_000)
        #expect(rows.count == HistoryRows.defaultFirstWindow, "the list keeps its screenful")
        // End: counted now, so the oldest item is a row, and so is every row of a page read only in part before.
        var grown: [(Int, Int)] = []
        rows.onGrow = { grown.append(($0, $1)) }
        rows.grow()
        grown = []
        rows.completeCount()
        #expect((0..<200).allSatisfy { rows.item(at: $0)?.preview == "item \(999 - $0)\($0 % 10 == 9 ? " tenth" : "")" })
        #expect(rows.count == 1_000)
        let read = HistoryRows.defaultFirstWindow + HistoryRows.growth
        #expect(grown.count == 1 && grown.first.map { $0 == (read, 1_000 - read) } == true, "\(grown)")
        #expect(rows.item(at: 999)?.preview == "item 0 tenth")
        // The next reload pages in again, keeping as many rows as asked for.
        #expect(rows.reload(.init(), atLeast: 40) == 40)
    }
}
