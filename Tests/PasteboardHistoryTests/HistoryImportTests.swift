import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// `HistoryImport`, the batched path under `pb import`: it must leave exactly what `record` leaves.
@Suite struct HistoryImportTests {
    let temporary: TemporaryDirectory
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
    }

    func location(_ name: String) -> StoreLocation {
        StoreLocation(directory: temporary.url.appendingPathComponent(name, isDirectory: true))
    }

    /// A sequence with everything that makes recording subtle: repeats inside one batch and across batches, the
    /// same bytes under two types, HTML with and without text, an image (derived text), a payload stored as a file,
    /// pins and expiries merging.
    func sequence() -> [(PasteboardItem, CaptureMetadata)] {
        var items: [(PasteboardItem, CaptureMetadata)] = []
        for index in 0..<700 {
            let date = now.addingTimeInterval(Double(index))
            var metadata = CaptureMetadata(source: index % 3 == 0 ? "app\(index % 5)" : nil, date: date)
            let item: PasteboardItem
            switch index % 10 {
            case 0: item = PasteboardItem(string: "repeat \(index % 30)")  // repeats across batches
            case 1: item = htmlItem("<b>bold \(index)</b>", plain: "bold \(index)")
            case 2:
                var both = PasteboardItem()
                both.setData(Data("same bytes \(index % 4)".utf8), forType: .utf8PlainText)
                both.setData(Data("same bytes \(index % 4)".utf8), forType: .plainText)
                item = both
            case 3: item = PasteboardItem(data: Data("<p>only html \(index)</p>".utf8), type: .html)
            case 4: item = pngItem(count: 200, seed: UInt64(index % 7))  // small, inline, repeated
            case 5: item = pngItem(count: 70_000, seed: UInt64(index % 3))  // in a file, repeated
            case 6:
                item = PasteboardItem(string: "pinned \(index % 20)")
                metadata.isPinned = index % 40 == 6
            case 7:
                item = PasteboardItem(string: "expiring \(index % 20)")
                metadata.expiresAt = index % 3 == 0 ? nil : date.addingTimeInterval(Double(1000 * (index % 4)))
            case 8: item = PasteboardItem(string: "https://example.com/\(index % 50)")
            default: item = PasteboardItem(string: "plain \(index) " + String(repeating: "x", count: index % 97))
            }
            items.append((item, metadata))
        }
        // A repeat right after its first copy, within one batch.
        items.insert((PasteboardItem(string: "plain 9 xxxxxxxxx"), CaptureMetadata(date: now.addingTimeInterval(10.5))), at: 11)
        return items
    }

    /// Every row of the store's tables, for comparing two stores.
    func dump(_ location: StoreLocation) throws -> [String] {
        let db = try Connection(path: location.databaseURL.path, mode: .readOnly)
        var lines: [String] = []
        for (table, order) in [
            ("items", "id"), ("blobs", "id"), ("representations", "item_id, ordinal"), ("content_types", "id"),
        ] {
            for row in try db.rows("SELECT * FROM \(table) ORDER BY \(order)") {
                lines.append(table + ": " + row.values.map(Self.text).joined(separator: " | "))
            }
        }
        return lines
    }

    static func text(_ value: SQLiteValue) -> String {
        if case .blob(let bytes) = value { return "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'" }
        return "\(value)"
    }

    @Test func importLeavesWhatRecordingOneByOneLeaves() throws {
        try compareImportWithRecording(fillers: 0)
    }

    /// In a store of 1,600 items the import reads every key into its filters only after 200 lines (a small import
    /// into a big store looks its keys up instead): the lines before, waiting for their batch or written, and the
    /// store's own items must all be found again after that.
    @Test func filtersReadPartWayThroughAnImportMissNoRepeat() throws {
        try compareImportWithRecording(fillers: 1600)
    }

    func compareImportWithRecording(fillers: Int) throws {
        let recorded = try HistoryStore(location: location("recorded"))
        let imported = try HistoryStore(location: location("imported"))
        // Something already there, which lines of the import merge into.
        for store in [recorded, imported] {
            try store.transaction {
                for index in 0..<fillers {
                    let metadata = CaptureMetadata(date: now.addingTimeInterval(-100))
                    try store.record(PasteboardItem(string: "filler \(index)"), metadata: metadata)
                }
            }
            try store.record(PasteboardItem(string: "repeat 0"), metadata: CaptureMetadata(date: now.addingTimeInterval(-50)))
            let pinned = try store.record(PasteboardItem(string: "pinned 6"), metadata: CaptureMetadata(date: now))
            try store.setPinned(true, id: pinned.id)
        }
        var lines = sequence()
        if fillers > 0 {
            // Lines still waiting for their batch when the filters are read (the first 256 rows are written
            // together), repeated after; then repeats of the store's own items.
            // 220 of them: the sequence's sixth line (a PNG in a file) is line 225.
            let early = (0..<220).map {
                (PasteboardItem(string: "early \($0)"), CaptureMetadata(date: now.addingTimeInterval(-10)))
            }
            lines = early + lines + early.map { ($0.0, CaptureMetadata(date: now.addingTimeInterval(1000))) }
            for index in stride(from: 0, to: fillers, by: 97) {
                let metadata = CaptureMetadata(date: now.addingTimeInterval(2000))
                lines.append((PasteboardItem(string: "filler \(index)"), metadata))
            }
        }
        var recordedResults: [RecordResult] = []
        try recorded.transaction {
            for (item, metadata) in lines { recordedResults.append(try recorded.record(item, metadata: metadata)) }
        }
        let bulk = try HistoryImport(store: imported)
        var importedResults: [RecordResult] = []
        for (item, metadata) in lines { importedResults.append(try bulk.add(item, metadata: metadata)) }
        try bulk.commit()

        #expect(importedResults == recordedResults)
        let (left, right) = (try dump(location("recorded")), try dump(location("imported")))
        #expect(left.count == right.count && left.count > 700 + fillers, "\(left.count) and \(right.count) rows")
        for (a, b) in zip(left, right) where a != b { Issue.record("recorded \(a)\nimported \(b)") }
        for query in ["repeat", "bold 31", "same bytes", "only html", "PNG", "example.com/7", "xxxxxxxx", "pinned 1"] {
            #expect(
                try imported.items(HistoryQuery(text: query, limit: 1000)).map(\.id)
                    == recorded.items(HistoryQuery(text: query, limit: 1000)).map(\.id), "search for \(query)")
        }
        // Then with the imported items indexed: the same answers, from index entries equal to the recorded ones.
        #expect(try imported.unindexedCount() > 100)
        while try imported.indexBacklog(limit: 100) > 0 {}
        #expect(try imported.unindexedCount() == 0)
        for query in ["repeat", "bold 31", "same bytes", "only html", "PNG", "example.com/7", "xxxxxxxx", "pinned 1"] {
            #expect(
                try imported.items(HistoryQuery(text: query, limit: 1000)).map(\.id)
                    == recorded.items(HistoryQuery(text: query, limit: 1000)).map(\.id), "indexed search for \(query)")
            #expect(
                try indexMatchCount(location("imported"), phrase: query)
                    == indexMatchCount(location("recorded"), phrase: query), "index entries for \(query)")
        }
        let db = try Connection(path: location("imported").databaseURL.path, mode: .readOnly)
        #expect(try db.row("PRAGMA integrity_check")?.string("integrity_check") == "ok")
        let png = try imported.pasteboardItem(id: importedResults[fillers > 0 ? 225 : 5].id).data(forType: .png)
        #expect(png == pngPayload(count: 70_000, seed: 2))
    }

    @Test func anImportThatIsNotCommittedLeavesNothing() throws {
        let store = try HistoryStore(location: location("store"))
        let kept = try store.record(PasteboardItem(string: "kept"), metadata: CaptureMetadata(date: now))
        do {
            let bulk = try HistoryImport(store: store)
            for index in 0..<600 { try bulk.add(PasteboardItem(string: "abandoned \(index)"), metadata: CaptureMetadata(date: now)) }
            try bulk.add(PasteboardItem(string: "kept"), metadata: CaptureMetadata(date: now, copyCount: 5, isPinned: true))
        }  // dropped without commit()
        #expect(try store.items(limit: 10).map(\.id) == [kept.id])
        #expect(try store.item(id: kept.id).copyCount == 1)
        #expect(try store.items(HistoryQuery(text: "abandoned")).isEmpty)
        #expect(try store.stats().blobCount == 1)
        #expect(try store.record(PasteboardItem(string: "after")).isNew, "the store still takes writes")
    }

    @Test func aDateOutsideYearsOneToNineThousandIsRefused() throws {
        let store = try HistoryStore(location: location("store"))
        let bulk = try HistoryImport(store: store)
        for seconds in [-62_135_596_801.0, 253_402_300_800, .infinity, .nan] {
            expectHistoryError(.invalidInput) {
                try bulk.add(PasteboardItem(string: "dated"), metadata: CaptureMetadata(date: Date(timeIntervalSince1970: seconds)))
            }
        }
        expectHistoryError(.invalidInput) {
            try store.record(PasteboardItem(string: "x"), metadata: CaptureMetadata(expiresAt: Date(timeIntervalSince1970: 1e15)))
        }
    }

    /// Issue 27, finding 5: a repeat dated in the past (an imported line, another device's copy through sync's
    /// unordered import, a copy after the clock went back) keeps the item's later last copy and takes the earlier
    /// creation, so that it can never age a live item into `max-age`'s reach.
    @Test func aRepeatDatedInThePastNeverAgesTheItem() throws {
        let store = try HistoryStore(location: location("aging"))
        let copied = now
        let past = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01
        let id = try store.record(PasteboardItem(string: "live"), metadata: CaptureMetadata(date: copied)).id
        for ordersByDate in [true, false] {
            let bulk = try HistoryImport(store: store, ordersByDate: ordersByDate)
            try bulk.add(PasteboardItem(string: "live"), metadata: CaptureMetadata(date: past, created: past))
            try bulk.commit()
            let item = try store.item(id: id)
            #expect(item.lastCopied == copied, "ordersByDate \(ordersByDate)")
            #expect(item.created == past, "ordersByDate \(ordersByDate)")
        }
        try store.record(PasteboardItem(string: "live"), metadata: CaptureMetadata(date: past.addingTimeInterval(60)))
        #expect(try store.item(id: id).lastCopied == copied)
        try store.applyRetention(RetentionPolicy(maxAge: 90 * 86_400), now: copied.addingTimeInterval(60))
        #expect(try store.item(id: id).created == past, "still there after max-age = 90d")
    }
}
