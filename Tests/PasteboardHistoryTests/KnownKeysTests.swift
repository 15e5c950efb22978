import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Filters kept from one import to the next (`KnownKeys`, sync's placement): brought up to date from what every
/// other writer inserted meanwhile, they must never say "not there" of a key the store holds, or the next import
/// inserts a row twice (and fails on the unique index) instead of merging a repeat.
@Suite struct KnownKeysTests {
    let temporary: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
    }

    func insertions(_ store: HistoryStore) throws -> (items: Int64, blobs: Int64) {
        let db = try Connection(path: temporary.storeLocation.databaseURL.path, mode: .readOnly)
        defer { _ = Result { try db.close() } }
        let row = try #require(try db.row("SELECT items, blobs FROM key_insertions WHERE id = 1"))
        return (try #require(row.int("items")), try #require(row.int("blobs")))
    }

    /// Imports `lines` with the kept filters; returns whether each line was new.
    @discardableResult
    func importLines(_ store: HistoryStore, _ keys: KnownKeys, _ lines: [String], at offset: Double) throws -> [Bool] {
        let bulk = try HistoryImport(store: store, ordersByDate: false, knownKeys: keys)
        var new: [Bool] = []
        for (index, line) in lines.enumerated() {
            let metadata = CaptureMetadata(date: now.addingTimeInterval(offset + Double(index)))
            new.append(try bulk.add(PasteboardItem(string: line), metadata: metadata, ifIdentityIs: nil)?.isNew ?? false)
        }
        try bulk.commit()
        return new
    }

    @Test func keptFiltersFollowEveryWayKeysArrive() throws {
        let store = try HistoryStore(location: temporary.storeLocation)
        let other = try HistoryStore(location: temporary.storeLocation)  // another process's connection
        let keys = KnownKeys()
        // 300 lines: the import writes full batches, with the insert triggers suspended; it counts for them.
        #expect(try importLines(store, keys, (0..<300).map { "first \($0)" }, at: 0).allSatisfy { $0 })
        #expect(keys.fullReads == 2)  // the identities and the hashes of an empty store, once
        // Texts alone keep no payload row (InlineText.swift).
        #expect(try insertions(store) == (items: 300, blobs: 0))

        // Another connection records new items; the next import repeats them: merged, not inserted again.
        for index in 0..<3 { try other.record(PasteboardItem(string: "other \(index)"), metadata: CaptureMetadata(date: now)) }
        let readBefore = keys.keysRead
        #expect(try importLines(store, keys, ["other 0", "other 2", "second 0", "first 7"], at: 1000) == [false, false, true, false])
        #expect(keys.fullReads == 2, "caught up from the rows added, without reading every key again")
        #expect(keys.keysRead - readBefore == 3)  // three identities (their texts are in their rows, no payload rows)

        // A payload written without an item (a named pasteboard kept in the store), then copied as an item.
        try other.writePasteboard([PasteboardItem(string: "on the pasteboard")], to: "scratch")
        #expect(try importLines(store, keys, ["on the pasteboard"], at: 2000) == [true])
        #expect(keys.fullReads == 2)

        // The newest items deleted, then new ones copied: SQLite gives their ids again, below the largest noted.
        // The counts tell: every key is read again.
        // ("second 0" and "on the pasteboard"; the pasteboard keeps its payload, so no payload id comes back.)
        let largest = try Connection(path: temporary.storeLocation.databaseURL.path, mode: .readOnly)
            .rows("SELECT id FROM items ORDER BY id DESC LIMIT 2").compactMap { $0.int("id") }
        #expect(try other.delete(ids: largest) == 2)
        let reused = try other.record(PasteboardItem(string: "reused id"), metadata: CaptureMetadata(date: now))
        #expect(reused.id == largest[1])
        #expect(try importLines(store, keys, ["reused id", "third 0"], at: 3000) == [false, true])
        #expect(keys.fullReads == 3, "the identities read again, the payload hashes caught up")

        // A rolled-back import leaves filters holding keys the store does not: they say "perhaps" more, and the
        // next import (and the counts) go on from the store as it is.
        do {
            let bulk = try HistoryImport(store: store, ordersByDate: false, knownKeys: keys)
            for index in 0..<300 {
                _ = try bulk.add(PasteboardItem(string: "abandoned \(index)"), metadata: CaptureMetadata(date: now), ifIdentityIs: nil)
            }
            bulk.rollBack()
        }
        try other.record(PasteboardItem(string: "after the rollback"), metadata: CaptureMetadata(date: now))
        #expect(try importLines(store, keys, ["after the rollback", "abandoned 1"], at: 4000) == [false, true])

        let db = try Connection(path: temporary.storeLocation.databaseURL.path, mode: .readOnly)
        let counted = try #require(try db.row("SELECT (SELECT count(*) FROM items) AS items, (SELECT count(*) FROM blobs) AS blobs"))
        let (items, blobs) = (try #require(counted.int("items")), try #require(counted.int("blobs")))
        #expect(items == 307)
        // Every row counted once when inserted, none counted down: what was deleted is still in the counts.
        // (The deleted items kept their texts in their rows: no payload row went.)
        #expect(try insertions(store) == (items: items + 2, blobs: blobs))
        #expect(blobs == 1)  // the pasteboard's
        #expect(try db.row("PRAGMA integrity_check")?.string("integrity_check") == "ok")
    }

    /// A store whose counting trigger is gone (a tool dropped it) counts no more: every refresh reads every key, and
    /// an import repeating an item added since still merges it.
    @Test func withoutItsTriggerEveryKeyIsReadAgain() throws {
        let store = try HistoryStore(location: temporary.storeLocation)
        let keys = KnownKeys()
        try importLines(store, keys, ["one", "two"], at: 0)
        #expect(keys.fullReads == 2)
        let db = try Connection(path: temporary.storeLocation.databaseURL.path, mode: .readWrite(create: false))
        try db.execute("DROP TRIGGER items_insertions")
        try store.record(PasteboardItem(string: "three"), metadata: CaptureMetadata(date: now))
        #expect(try importLines(store, keys, ["three", "four"], at: 10) == [false, true])
        #expect(keys.fullReads == 4)
        #expect(try importLines(store, keys, ["four"], at: 20) == [false])
        #expect(keys.fullReads == 6)
    }

    /// Schema 12 counts from 0 in a store made before it; the import's own counting leaves the triggers in place.
    @Test func theCountsAndTheirTriggersSurviveAnImport() throws {
        let store = try HistoryStore(location: temporary.storeLocation)
        let bulk = try HistoryImport(store: store)
        for index in 0..<600 { try bulk.add(PasteboardItem(string: "line \(index)"), metadata: CaptureMetadata(date: now)) }
        try bulk.commit()
        try store.record(PasteboardItem(string: "one more"), metadata: CaptureMetadata(date: now))
        #expect(try insertions(store) == (items: 601, blobs: 0))  // texts in their items' rows
        let db = try Connection(path: temporary.storeLocation.databaseURL.path, mode: .readOnly)
        let triggers = try db.rows("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '%insertions' ORDER BY name")
        #expect(triggers.compactMap { $0.string("name") } == ["blobs_insertions", "items_insertions"])
    }
}
