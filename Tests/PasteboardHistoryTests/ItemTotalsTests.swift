import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// The totals the store keeps per kind and pin (`item_totals`, kept by triggers in every writer's transaction) stay
/// equal to what counting the items gives, through every way items come and go; retention after a copy uses them and
/// reads no more of the history than it deletes.
@Suite struct ItemTotalsTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    /// The totals, and the same counted from the items, as "kind pinned items bytes" lines.
    func totals() throws -> (kept: [String], counted: [String]) {
        let db = try Connection(path: temporary.storeLocation.databaseURL.path, mode: .readOnly)
        defer { _ = Result { try db.close() } }
        func lines(_ sql: String) throws -> [String] {
            try db.rows(sql).map { row in
                "\(row.string("kind") ?? "?") \(row.int("pinned") ?? -1) \(row.int("n") ?? -1) \(row.int("bytes") ?? -1)"
            }
        }
        return (
            try lines("SELECT kind, pinned, items AS n, bytes FROM item_totals WHERE items > 0 ORDER BY kind, pinned")
                + lines("SELECT 'payloads' AS kind, in_file AS pinned, blobs AS n, bytes FROM blob_totals WHERE blobs > 0 ORDER BY in_file"),
            try lines(
                "SELECT kind, pinned <> 0 AS pinned, count(*) AS n, sum(size) AS bytes FROM items GROUP BY kind, pinned <> 0 "
                    + "ORDER BY kind, pinned")
                + lines(
                    "SELECT 'payloads' AS kind, data IS NULL AS pinned, count(*) AS n, sum(size) AS bytes FROM blobs "
                        + "GROUP BY data IS NULL ORDER BY data IS NULL")
        )
    }

    @Test func theTotalsFollowEveryChange() throws {
        var ids: [Int64] = []
        for index in 0..<40 { ids.append(try store.record(PasteboardItem(string: "text \(index)")).id) }
        ids.append(try store.record(PasteboardItem(string: "https://example.org/a")).id)
        ids.append(try store.record(pngItem(seed: 3)).id)
        try store.setPinned(true, id: ids[3])
        try store.setPinned(true, id: ids[41])
        try store.record(PasteboardItem(string: "text 5"))  // a repeat: moved, not added
        try store.delete(id: ids[7])
        let bulk = try HistoryImport(store: store)
        for index in 0..<30 {
            try bulk.add(PasteboardItem(string: "imported \(index)"), metadata: CaptureMetadata(date: Date()))
        }
        try bulk.add(PasteboardItem(string: "text 9"), metadata: CaptureMetadata(date: Date(), isPinned: true))
        try bulk.commit()
        try store.setPinned(false, id: ids[3])
        _ = try store.applyRetention(RetentionPolicy(maxItems: 50))
        var (kept, counted) = try totals()
        #expect(kept == counted)
        #expect(kept.contains { $0.hasPrefix("payloads 1 1 ") }, "the picture's payload is a file: \(kept)")
        #expect(try store.count() == 50 + 2)  // and the two pinned ones
        #expect(try store.stats().itemCount == 52)
        try store.clear(keepPinned: true)
        (kept, counted) = try totals()
        #expect(kept == counted)
        #expect(try store.count() == 2)
    }

    @Test func retentionAfterACopyKeepsTheLimits() throws {
        let temporary = try TemporaryDirectory()
        let limited = try HistoryStore(location: temporary.storeLocation)
        limited.retention = RetentionPolicy(maxItems: 5, maxBytes: 60)
        for index in 0..<12 { try limited.record(PasteboardItem(string: "copy number \(index)")) }
        let left = try limited.items(limit: 100).map(\.preview)
        // 14 bytes each: five fit the count and four the bytes.
        #expect(left == (8..<12).reversed().map { "copy number \($0)" })
        limited.retention = RetentionPolicy(maxAge: 60)
        let bulk = try HistoryImport(store: limited)
        try bulk.add(PasteboardItem(string: "a year old"), metadata: CaptureMetadata(date: Date().addingTimeInterval(-365 * 86_400)))
        try bulk.commit()
        #expect(try limited.count() == 5)
        try limited.record(PasteboardItem(string: "a new copy"))
        #expect(try limited.items(limit: 100).map(\.preview).contains("a year old") == false)
        #expect(try limited.count() == 5)
    }
}
