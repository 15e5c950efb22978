import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// An import keeps the history newest first by last copy: its items take their places by date, and nothing copied
/// later ends up below them (issue 26, defect 4).
@Suite struct HistoryImportOrderTests {
    let temporary: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation {
        StoreLocation(directory: temporary.url.appendingPathComponent("store", isDirectory: true))
    }

    /// Texts newest first, as the history lists them.
    func listed(_ store: HistoryStore) throws -> [String] {
        try store.items(limit: 10_000).map { $0.preview }
    }

    /// January 1st of `year`, UTC.
    func year(_ year: Int) -> Date {
        Date(timeIntervalSince1970: Double(year - 1970) * 365.2425 * 86_400)
    }

    @Test func aCopyMadeNowStaysAboveOldImportedItems() throws {
        let store = try HistoryStore(location: location)
        try store.record(PasteboardItem(string: "copied in 1999"), metadata: CaptureMetadata(date: year(1999)))
        try store.record(PasteboardItem(string: "copied yesterday"), metadata: CaptureMetadata(date: now - 86_400))
        let newest = try store.record(PasteboardItem(string: "copied now"), metadata: CaptureMetadata(date: now))
        let topBefore = try #require(try store.items(limit: 1).first?.position)

        // 2001 to 2020, in no order, and one from an hour ago; in batches of several hundred rows (the last years
        // repeat many times, merging into the first lines).
        let bulk = try HistoryImport(store: store)
        for y in [2010, 2001, 2020, 2005, 2015, 2019, 2002] {
            try bulk.add(PasteboardItem(string: "from \(y)"), metadata: CaptureMetadata(date: year(y)))
        }
        try bulk.add(PasteboardItem(string: "an hour ago"), metadata: CaptureMetadata(date: now - 3600))
        for index in 0..<600 {
            try bulk.add(PasteboardItem(string: "filler \(index)"), metadata: CaptureMetadata(date: year(2003) + Double(index)))
        }
        try bulk.commit()

        let fillers = (0..<600).reversed().map { "filler \($0)" }
        #expect(
            try listed(store)
                == ["copied now", "an hour ago", "copied yesterday", "from 2020", "from 2019", "from 2015", "from 2010",
                    "from 2005"] + fillers + ["from 2002", "from 2001", "copied in 1999"])
        let items = try store.items(limit: 10_000)
        #expect(zip(items, items.dropFirst()).allSatisfy { $0.lastCopied >= $1.lastCopied }, "newest first by last copy")
        #expect(Set(items.map(\.position)).count == items.count, "positions stay unique")
        #expect(items[0].id == newest.id && items[0].lastCopied == now, "the copy keeps its id and date")

        // Sync finds this device's new items above its watermark: every imported item, and the ones moved back on top.
        let above = try store.syncRows(afterPosition: topBefore, limit: 10_000)
        #expect(above.count == items.count - 1, "all but the item from 1999, which did not move")

        // The search index holds each item once, at its position: the moved items left their entries behind.
        #expect(try store.items(HistoryQuery(text: "copied")).map(\.preview) == ["copied now", "copied yesterday", "copied in 1999"])
        while try store.indexBacklog(limit: 100) > 0 {}
        #expect(try store.unindexedCount() == 0)
        #expect(try indexMatchCount(location, phrase: "copied now") == 1)
        #expect(try indexMatchCount(location, phrase: "copied yesterday") == 1)
        #expect(try indexMatchCount(location, phrase: "filler") == 600)  // each once
        #expect(try store.items(HistoryQuery(text: "copied")).map(\.preview) == ["copied now", "copied yesterday", "copied in 1999"])
        #expect(try store.items(HistoryQuery(text: "from 20")).map(\.preview).prefix(2) == ["from 2020", "from 2019"])
        let db = try Connection(path: location.databaseURL.path, mode: .readOnly)
        #expect(try db.row("PRAGMA integrity_check")?.string("integrity_check") == "ok")

        // The next copy goes on top, above everything the import placed.
        try store.record(PasteboardItem(string: "after the import"), metadata: CaptureMetadata(date: now + 1))
        #expect(try listed(store).prefix(2) == ["after the import", "copied now"])
    }

    @Test func anOlderRepeatAddsItsCountWithoutMovingItsItem() throws {
        let store = try HistoryStore(location: location)
        let kept = try store.record(PasteboardItem(string: "kept"), metadata: CaptureMetadata(source: "editor", date: now))
        let second = try store.record(PasteboardItem(string: "second"), metadata: CaptureMetadata(date: now - 10))
        // Recorded after "kept" but older: the order of last copy is second, kept.
        let before = try store.item(id: kept.id)

        let bulk = try HistoryImport(store: store)
        try bulk.add(PasteboardItem(string: "kept"), metadata: CaptureMetadata(source: "old app", date: year(2005), copyCount: 3))
        try bulk.add(PasteboardItem(string: "second"), metadata: CaptureMetadata(date: now + 5))
        try bulk.commit()

        let after = try store.item(id: kept.id)
        #expect(after.copyCount == 4)
        #expect(after.lastCopied == now, "the older line does not change the last copy")
        #expect(after.position == before.position, "nor move the item")
        #expect(after.source == "editor", "the source is the later copy's")
        #expect(try store.item(id: second.id).lastCopied == now + 5)
        #expect(try listed(store) == ["second", "kept"])
    }

    @Test func anImportInOrderIntoAnEmptyStoreKeepsItsPositions() throws {
        let store = try HistoryStore(location: location)
        let bulk = try HistoryImport(store: store)
        var ids: [Int64] = []
        for index in 0..<1000 {
            ids.append(try bulk.add(PasteboardItem(string: "line \(index)"), metadata: CaptureMetadata(date: now + Double(index))).id)
        }
        try bulk.commit()
        let items = try store.items(limit: 2000)
        #expect(items.map(\.id) == ids.reversed())
        #expect(items.map(\.position) == Array(1...1000).reversed().map(Int64.init), "no item moved")
    }

    @Test func syncArrivalsKeepThePositionsTheImportGave() throws {
        let store = try HistoryStore(location: location)
        try store.record(PasteboardItem(string: "copied now"), metadata: CaptureMetadata(date: now))
        let bulk = try HistoryImport(store: store, ordersByDate: false)
        try bulk.add(PasteboardItem(string: "arrived"), metadata: CaptureMetadata(date: year(2010)))
        let position = bulk.lastPosition
        try bulk.commit()
        let top = try #require(try store.items(limit: 1).first)
        #expect(top.preview == "arrived" && top.position == position)
    }
}
