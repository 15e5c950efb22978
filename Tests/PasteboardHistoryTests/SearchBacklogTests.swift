import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// The search backlog: imported items go in without index entries, search finds them all the same, and
/// `indexBacklog` catches the index up (see HistoryStore+SearchBacklog.swift).
@Suite struct SearchBacklogTests {
    let temporary: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    /// A store holding "old 0" … "old 9" (indexed), then "new 0" … "new n-1" imported (not indexed yet).
    func storeWithBacklog(imported count: Int = 300) throws -> HistoryStore {
        let store = try HistoryStore(location: location)
        for index in 0..<10 {
            try store.record(PasteboardItem(string: "old \(index) apple"), metadata: CaptureMetadata(date: now))
        }
        let bulk = try HistoryImport(store: store)
        for index in 0..<count {
            try bulk.add(PasteboardItem(string: "new \(index) apple"), metadata: CaptureMetadata(date: now))
        }
        try bulk.commit()
        return store
    }

    func texts(_ items: [HistoryItem]) -> [String] { items.map(\.preview) }

    @Test func aSearchRightAfterAnImportFindsTheNewItems() throws {
        let store = try storeWithBacklog()
        #expect(try store.unindexedCount() == 300)
        #expect(try store.stats().unindexedCount == 300)
        #expect(try indexMatchCount(location, phrase: "new 1") == 0, "nothing of the import is in the index yet")
        #expect(try texts(store.items(HistoryQuery(text: "new 299", limit: 5))) == ["new 299 apple"])
        #expect(try texts(store.items(HistoryQuery(text: "OLD 3", limit: 5))) == ["old 3 apple"])
        // One query across both: the backlog's newest first, then the indexed items, with the window in between.
        let all = try store.items(HistoryQuery(text: "apple", limit: 1000))
        #expect(all.count == 310)
        #expect(all.first?.preview == "new 299 apple" && all.last?.preview == "old 0 apple")
        let window = try store.items(HistoryQuery(text: "apple", limit: 4, offset: 298))
        #expect(texts(window) == ["new 1 apple", "new 0 apple", "old 9 apple", "old 8 apple"])
    }

    @Test func theCatchUpIndexesEverythingOnceAndIsIdempotent() throws {
        let store = try storeWithBacklog()
        let before = try store.items(HistoryQuery(text: "apple", limit: 1000)).map(\.id)
        var slices: [Int] = []
        while true {
            let indexed = try store.indexBacklog(limit: 128)
            if indexed == 0 { break }
            slices.append(indexed)
            #expect(try store.unindexedCount() == 300 - slices.reduce(0, +))
        }
        #expect(slices == [128, 128, 44])
        #expect(try store.hasSearchBacklog() == false)
        #expect(try store.indexBacklog() == 0, "a second catch-up does nothing")
        #expect(try indexMatchCount(location, phrase: "apple") == 310, "every item has exactly one entry")
        #expect(try indexMatchCount(location, phrase: "new 217") == 1)
        #expect(try store.items(HistoryQuery(text: "apple", limit: 1000)).map(\.id) == before)
        let db = try rawConnection(location)
        #expect(try db.row("PRAGMA integrity_check")?.string("integrity_check") == "ok")
        try db.execute("INSERT INTO item_text(item_text, rank) VALUES ('integrity-check', 0)")
    }

    @Test func copiesAndRepeatsDuringTheBacklogKeepTheIndexExact() throws {
        let store = try storeWithBacklog()
        let fresh = try store.record(PasteboardItem(string: "fresh banana"), metadata: CaptureMetadata(date: now))
        let repeatedOld = try store.record(PasteboardItem(string: "old 4 apple"), metadata: CaptureMetadata(date: now))
        let repeatedNew = try store.record(PasteboardItem(string: "new 7 apple"), metadata: CaptureMetadata(date: now))
        #expect(fresh.isNew && !repeatedOld.isNew && !repeatedNew.isNew)
        #expect(try store.unindexedCount() == 302, "the new copy and the repeated old item joined the backlog")
        #expect(try indexMatchCount(location, phrase: "old") == 9, "its old entry went")
        #expect(
            try store.items(HistoryQuery(text: "apple", limit: 3)).map(\.id) == [repeatedNew.id, repeatedOld.id, 310])
        #expect(try store.items(HistoryQuery(text: "banana")).map(\.id) == [fresh.id])
        while try store.indexBacklog(limit: 100) > 0 {}
        #expect(try indexMatchCount(location, phrase: "apple") == 310)
        #expect(try indexMatchCount(location, phrase: "old") == 10)
        #expect(try indexMatchCount(location, phrase: "banana") == 1)
        #expect(try store.items(HistoryQuery(text: "old 4")).map(\.id) == [repeatedOld.id])
        // With the backlog gone, a copy is indexed at once again.
        try store.record(PasteboardItem(string: "cherry"), metadata: CaptureMetadata(date: now))
        #expect(try store.hasSearchBacklog() == false)
        #expect(try indexMatchCount(location, phrase: "cherry") == 1)
    }

    @Test func deletingAnItemNotIndexedYetLeavesNoTrace() throws {
        let store = try storeWithBacklog()
        let secret = "new 123 apple"
        let id = try #require(try store.items(HistoryQuery(text: secret)).first?.id)
        try store.delete(id: id)
        #expect(try store.items(HistoryQuery(text: secret)).isEmpty)
        #expect(try store.unindexedCount() == 299)
        #expect(try store.items(HistoryQuery(text: "old 2")).count == 1, "the indexed items are untouched")
        while try store.indexBacklog() > 0 {}
        #expect(try indexMatchCount(location, phrase: "new 123 ") == 0)
        #expect(try indexMatchCount(location, phrase: "apple") == 309)
        #expect(try store.items(HistoryQuery(text: secret)).isEmpty)
        // Nothing of it in any file of the store.
        try store.purge()
        let files = try FileManager.default.contentsOfDirectory(atPath: location.directory.path)
        #expect(files.contains(location.databaseURL.lastPathComponent))
        for file in files {
            let url = location.directory.appendingPathComponent(file)
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let bytes = try Data(contentsOf: url)
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) still holds the deleted text")
        }
    }

    @Test func clearingKeepsTheBacklogOfWhatStays() throws {
        let store = try storeWithBacklog()
        let pinnedOld = try #require(try store.items(HistoryQuery(text: "old 5")).first?.id)
        let pinnedNew = try #require(try store.items(HistoryQuery(text: "new 5 ")).first?.id)
        try store.setPinned(true, ids: [pinnedOld, pinnedNew])
        #expect(try store.clear(keepPinned: true) == 308)
        #expect(try store.items(HistoryQuery(text: "apple")).map(\.id) == [pinnedNew, pinnedOld])
        while try store.indexBacklog() > 0 {}
        #expect(try indexMatchCount(location, phrase: "apple") == 2)
        #expect(try store.items(HistoryQuery(text: "apple")).map(\.id) == [pinnedNew, pinnedOld])
    }

    @Test func aStoreOfSchemaTwoIsMigratedAndFullyIndexed() throws {
        do {
            let store = try HistoryStore(location: location)
            try store.record(PasteboardItem(string: "from before the backlog"), metadata: CaptureMetadata(date: now))
        }
        do {
            let db = try rawConnection(location)
            try db.execute((try undoingSchema14(db)) + "DROP TABLE search_backlog; DROP TABLE changes; DROP TABLE recognized_text; PRAGMA user_version = 2")
        }
        let store = try HistoryStore(location: location)
        #expect(try store.stats().schemaVersion == 15)
        // Schema 6 indexes texts without their accents: the old entries go, and every item is indexed again.
        #expect(try store.unindexedCount() == 1)
        #expect(try store.items(HistoryQuery(text: "the backlog")).count == 1)
        while try store.indexBacklog() > 0 {}
        #expect(try store.unindexedCount() == 0)
        #expect(try store.items(HistoryQuery(text: "the backlog")).count == 1)
        let bulk = try HistoryImport(store: store)
        try bulk.add(PasteboardItem(string: "imported after"), metadata: CaptureMetadata(date: now))
        try bulk.commit()
        #expect(try store.unindexedCount() == 1)
        #expect(try store.items(HistoryQuery(text: "after")).count == 1)
    }
}

extension SearchBacklogTests {
    @Test func aCopyAfterTheWholeBacklogWasDeletedStillJoinsIt() throws {
        let store = try storeWithBacklog(imported: 3)
        let backlog = try store.items(HistoryQuery(text: "new", limit: 10)).map(\.id)
        let newestIndexed = try #require(try store.items(HistoryQuery(text: "old 9")).first?.id)
        try store.delete(ids: backlog + [newestIndexed])
        let copy = try store.record(PasteboardItem(string: "after the deletes"), metadata: CaptureMetadata(date: now))
        #expect(try store.items(HistoryQuery(text: "the deletes")).map(\.id) == [copy.id])
        while try store.indexBacklog() > 0 {}
        #expect(try indexMatchCount(location, phrase: "after the deletes") == 1)
        #expect(try indexMatchCount(location, phrase: "apple") == 9)
        try store.delete(id: copy.id)
        #expect(try indexMatchCount(location, phrase: "after the deletes") == 0)
        let db = try rawConnection(location)
        try db.execute("INSERT INTO item_text(item_text, rank) VALUES ('integrity-check', 0)")
    }
}
