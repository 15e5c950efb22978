import Foundation
import PasteboardHistory
import PasteboardModel
import Synchronization
import Testing

/// The list-and-search model of the app and the picker: keyset pages, their slices, cancellation, the model's thread.
@Suite struct HistoryListModelTests {
    let temporary: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    static let words = ["apple", "banana", "cherry", "quince", "zebra", "Straße", "kiwi", "mango", "ÉCOLE", "tenth"]

    /// 1,000 recorded items (indexed), some pinned, some images, then 300 imported (the search backlog).
    func store() throws -> HistoryStore {
        let store = try HistoryStore(location: location)
        try store.transaction {
            for index in 0..<1_000 {
                if index % 97 == 0 {
                    var item = PasteboardItem()
                    item.setData(pseudoRandomBytes(count: 64, seed: UInt64(index)), forType: .png)
                    try store.record(item, metadata: CaptureMetadata(date: now))
                    continue
                }
                let text = "\(Self.words[index % Self.words.count]) \(Self.words[(index / 10) % Self.words.count]) \(index)"
                try store.record(
                    PasteboardItem(string: text), metadata: CaptureMetadata(date: now, isPinned: index % 13 == 0))
            }
        }
        let bulk = try HistoryImport(store: store)
        for index in 0..<300 {
            try bulk.add(
                PasteboardItem(string: "imported \(Self.words[index % Self.words.count]) \(index)"),
                metadata: CaptureMetadata(date: now))
        }
        try bulk.commit()
        #expect(try store.unindexedCount() == 300)
        return store
    }

    /// Every page of `filter`, `limit` at a time, chained by position.
    func allPages(_ store: HistoryStore, _ filter: HistoryFilter, limit: Int, deadline: Bool = false) throws
        -> (items: [HistoryItem], pages: Int)
    {
        var items: [HistoryItem] = []
        var below: Int64?
        var pages = 0
        repeat {
            // With a deadline already passed, a scan stops at its first check (every 256 items): many short pages.
            let page = try store.page(filter, below: below, limit: limit, until: deadline ? .now : nil)
            items += page.items
            below = page.next
            pages += 1
            #expect(pages < 10_000)
        } while below != nil
        return (items, pages)
    }

    /// The old path: one window of `items(_:)`, by OFFSET.
    func offsetPages(_ store: HistoryStore, _ filter: HistoryFilter, limit: Int) throws -> [HistoryItem] {
        var items: [HistoryItem] = []
        while true {
            var query = HistoryQuery(
                text: filter.text.isEmpty ? nil : filter.text, isRegex: filter.mode == .regex,
                pinnedOnly: filter.pinnedOnly, limit: limit, offset: items.count, kinds: filter.kinds)
            query.isFuzzy = filter.mode == .fuzzy
            let window = try store.items(query)
            items += window
            if window.count < limit { return items }
        }
    }

    static let filters: [HistoryFilter] = [
        HistoryFilter(),
        HistoryFilter(text: "an"),  // shorter than a trigram: a scan with SQL's prefilter
        HistoryFilter(text: "ß"),  // non-ASCII and short: a scan without one
        HistoryFilter(text: "apple"),  // the trigram index and the backlog
        HistoryFilter(text: "école"),
        HistoryFilter(text: "zebra 9"),
        HistoryFilter(text: "nothing holds this"),
        HistoryFilter(text: "^(kiwi|mango) .* [0-9]+5$", mode: .regex),
        HistoryFilter(text: "qnc", mode: .fuzzy),
        HistoryFilter(kinds: [.image]),
        HistoryFilter(text: "e", kinds: [.text]),
        HistoryFilter(text: "cherry", pinnedOnly: true),
        HistoryFilter(pinnedOnly: true),
    ]

    @Test(arguments: filters)
    func keysetPagesEqualTheOffsetWindows(filter: HistoryFilter) throws {
        let store = try store()
        let offset = try offsetPages(store, filter, limit: 7)
        let keyset = try allPages(store, filter, limit: 7)
        #expect(keyset.items.map(\.id) == offset.map(\.id), "\(filter)")
        #expect(keyset.items == offset, "the same items, the same details")
        // Newest first: positions fall strictly.
        #expect(zip(keyset.items, keyset.items.dropFirst()).allSatisfy { $0.position > $1.position })
        // Cut into short slices by a deadline, the pages still add up to the same matches.
        let sliced = try allPages(store, filter, limit: 7, deadline: true)
        #expect(sliced.items.map(\.id) == offset.map(\.id), "\(filter)")
    }

    @Test func aScanCutByItsDeadlineGoesOnWhereItStopped() throws {
        let store = try store()
        // "ß" is in one item of ten: with the deadline passed, a page looks at 256 items and stops.
        let first = try store.page(HistoryFilter(text: "ß"), limit: 1_000, until: .now)
        #expect(first.items.count > 0 && first.items.count < 40, "\(first.items.count)")
        let next = try #require(first.next)
        #expect(next <= first.items.last!.position, "it goes on after the last item it looked at")
        let all = try store.items(HistoryQuery(text: "ß", limit: 1_000))
        #expect(all.prefix(first.items.count).map(\.id) == first.items.map(\.id))
        let rest = try store.page(HistoryFilter(text: "ß"), below: next, limit: 1_000)
        #expect(rest.next == nil)
        #expect((first.items + rest.items).map(\.id) == all.map(\.id))
    }

    @Test func aCancelledPageStopsWithCancelled() throws {
        let store = try store()
        let checks = Counter()
        // Cancelled after a few checks: SQLite's progress handler, or the scan's own check, stops it.
        #expect {
            _ = try store.page(HistoryFilter(text: "nothing holds this"), limit: 10) {
                checks.value.add(1, ordering: .relaxed).newValue > 3
            }
        } throws: { ($0 as? HistoryError)?.code == .cancelled }
        #expect(checks.value.load(ordering: .relaxed) > 3)
        // The connection is usable afterwards, without the check.
        #expect(try store.page(HistoryFilter(text: "apple"), limit: 3).items.count == 3)
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The updates a model delivers, as they come.
    final class Updates: Sendable {
        let received = Mutex<[HistoryListModel.Update]>([])
        /// While set, deliveries wait (the model's thread stops in `deliver`).
        let gate = Mutex<Bool>(false)

        func deliver(_ update: HistoryListModel.Update) {
            received.withLock { $0.append(update) }
            while gate.withLock({ $0 }) { usleep(1_000) }
        }

        /// Waits until `predicate` holds for the updates received, for up to 10 s.
        func wait(_ predicate: ([HistoryListModel.Update]) -> Bool) async throws -> [HistoryListModel.Update] {
            for _ in 0..<1_000 {
                let now = received.withLock { $0 }
                if predicate(now) { return now }
                try await Task.sleep(for: .milliseconds(10))
            }
            Issue.record("no such updates in 10 s: \(received.withLock { $0.count }) received")
            return received.withLock { $0 }
        }
    }

    @Test func theModelListsOffItsCallersThreadAndPagesOnByPosition() async throws {
        let store = try store()
        let updates = Updates()
        let model = HistoryListModel(location: location) { updates.deliver($0) }
        let generation = model.search(HistoryFilter(text: "apple"), limit: 16)
        let first = try await updates.wait { $0.contains { !$0.isSearching } }
        let rows = first.filter { $0.generation == generation }.flatMap(\.items)
        #expect(rows.map(\.id) == (try store.items(HistoryQuery(text: "apple", limit: 16))).map(\.id))
        let last = try #require(first.last)
        #expect(!last.isComplete && last.next == rows.last?.position)
        // More rows: below the last one, numbered after it.
        let more = model.search(HistoryFilter(text: "apple"), below: last.next!, start: rows.count, limit: 16)
        let second = try await updates.wait { $0.contains { $0.generation == more && !$0.isSearching } }
        let added = second.filter { $0.generation == more }
        #expect(added.allSatisfy { $0.start >= 16 })
        #expect(
            (rows + added.flatMap(\.items)).map(\.id)
                == (try store.items(HistoryQuery(text: "apple", limit: 32))).map(\.id))
    }

    @Test func aNewerSearchCancelsTheOneUnderWay() async throws {
        let store = try store()
        let updates = Updates()
        let model = HistoryListModel(location: location) { updates.deliver($0) }
        // The first query's first update is held in `deliver` while a newer query starts.
        updates.gate.withLock { $0 = true }
        let older = model.search(HistoryFilter(text: "ß"), limit: 500)
        _ = try await updates.wait { !$0.isEmpty }
        let newer = model.search(HistoryFilter(text: "zebra"), limit: 5)
        updates.gate.withLock { $0 = false }
        let all = try await updates.wait { $0.contains { $0.generation == newer && !$0.isSearching } }
        try await Task.sleep(for: .milliseconds(200))
        let settled = updates.received.withLock { $0 }
        #expect(settled.count == all.count, "nothing came after the newer query's last rows")
        // The older query's first update was on its way (held in `deliver`) when the newer one began; nothing of it
        // came after (whether that first update was all of it depends on the machine's speed).
        let olderUpdates = settled.indices.filter { settled[$0].generation == older }
        let firstNewer = try #require(settled.firstIndex { $0.generation == newer })
        #expect(olderUpdates.count == 1 && olderUpdates.allSatisfy { $0 < firstNewer }, "\(olderUpdates), \(firstNewer)")
        #expect(model.generation == newer)
        #expect(
            settled.filter { $0.generation == newer }.flatMap(\.items).map(\.id)
                == (try store.items(HistoryQuery(text: "zebra", limit: 5))).map(\.id))
    }

    @Test func aReloadRunsTheSameQueryAgainAndSaysSo() async throws {
        let store = try store()
        let updates = Updates()
        let model = HistoryListModel(location: location) { updates.deliver($0) }
        model.search(HistoryFilter(text: "kiwi"), limit: 5)
        _ = try await updates.wait { $0.contains { !$0.isSearching } }
        try store.record(PasteboardItem(string: "kiwi, copied just now"), metadata: CaptureMetadata(date: now))
        let reload = model.reload(limit: 8)
        let after = try await updates.wait { $0.contains { $0.generation == reload && !$0.isSearching } }
        let rows = after.filter { $0.generation == reload }
        #expect(rows.allSatisfy { $0.isReload })
        #expect(rows.flatMap(\.items).first?.preview == "kiwi, copied just now")
        #expect(rows.flatMap(\.items).count == 8)
    }
}
