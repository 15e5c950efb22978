import Foundation
import PasteboardModel
import SQLiteSupport
import Testing
@testable import PasteboardHistory

/// The daemon's `indexBacklog` (`waiting` false) makes a slice's index entries before it takes the write lock;
/// another process may change the store in between (HistoryStore+SearchBacklog.swift). The index stays exact
/// whatever it changes.
@Suite struct SearchBacklogPreparedTests {
    let temporary: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    /// 10 items indexed, then 300 imported ("new item0z apple" …), not indexed yet.
    func storeWithBacklog() throws -> HistoryStore {
        let store = try HistoryStore(location: location)
        for index in 0..<10 {
            try store.record(PasteboardItem(string: "old \(index) apple"), metadata: CaptureMetadata(date: now))
        }
        let bulk = try HistoryImport(store: store)
        for index in 0..<300 {
            try bulk.add(PasteboardItem(string: "new item\(index)z apple"), metadata: CaptureMetadata(date: now))
        }
        try bulk.commit()
        return store
    }

    /// Between the slice's preparation and its write, another connection deletes an item of the slice, copies
    /// another again (it moves to the top), copies something new and indexes nothing: the slice is read again under
    /// the lock, and the index ends with exactly one entry per item, none for the deleted one.
    @Test func aSliceChangedWhileItWasPreparedIsReadAgain() throws {
        let store = try storeWithBacklog()
        let other = try HistoryStore(location: location)
        let deleted = try #require(try other.items(HistoryQuery(text: "new item5z apple")).first?.id)
        let indexed = try store.indexBacklog(limit: 100, bytes: 1 << 20, waiting: false, afterPreparing: { () throws in
            try other.delete(id: deleted)
            try other.record(PasteboardItem(string: "new item7z apple"), metadata: CaptureMetadata(date: now))
            try other.record(PasteboardItem(string: "fresh banana"), metadata: CaptureMetadata(date: now))
        })
        #expect(indexed == 100)
        while try store.indexBacklog() > 0 {}
        #expect(try indexMatchCount(location, phrase: "apple") == 309)
        let five = try indexMatchCount(location, phrase: "item5z")
        let seven = try indexMatchCount(location, phrase: "item7z")
        #expect(five == 0)
        #expect(seven == 1)
        #expect(try indexMatchCount(location, phrase: "banana") == 1)
        #expect(try store.items(HistoryQuery(text: "new item7z apple")).count == 1)
        #expect(try store.items(HistoryQuery(text: "new item5z apple")).isEmpty)
        let db = try rawConnection(location)
        try db.execute("INSERT INTO item_text(item_text, rank) VALUES ('integrity-check', 0)")
    }

    /// Another connection indexes the same slice meanwhile: the mark moved, and this one indexes the next slice,
    /// nothing twice.
    @Test func aSliceIndexedMeanwhileIsNotIndexedTwice() throws {
        let store = try storeWithBacklog()
        let other = try HistoryStore(location: location)
        let indexed = try store.indexBacklog(limit: 100, bytes: 1 << 20, waiting: false, afterPreparing: { () throws in
            let meanwhile = try other.indexBacklog(limit: 100)
            #expect(meanwhile == 100)
        })
        #expect(indexed == 100)
        #expect(try store.unindexedCount() == 100)
        while try store.indexBacklog() > 0 {}
        #expect(try indexMatchCount(location, phrase: "apple") == 310)
        let db = try rawConnection(location)
        try db.execute("INSERT INTO item_text(item_text, rank) VALUES ('integrity-check', 0)")
    }

    /// Nothing changed meanwhile: the entries made before the lock are the ones written, as a slice made under it.
    @Test func anUnchangedSliceIsWrittenAsPrepared() throws {
        let store = try storeWithBacklog()
        #expect(try store.indexBacklog(limit: 120, bytes: 1 << 20, waiting: false, afterPreparing: nil) == 120)
        #expect(try store.unindexedCount() == 180)
        #expect(try indexMatchCount(location, phrase: "apple") == 130)
        #expect(try indexMatchCount(location, phrase: "item119z") == 1)
        #expect(try indexMatchCount(location, phrase: "item120z") == 0)
        #expect(try store.items(HistoryQuery(text: "item11", limit: 50)).count == 11)
    }
}
