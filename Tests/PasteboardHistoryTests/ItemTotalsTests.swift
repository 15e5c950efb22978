import Foundation
@testable import PasteboardHistory
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
                + lines("SELECT 'payloads' AS kind, in_file AS pinned, blobs AS n, bytes FROM blob_totals WHERE blobs > 0 ORDER BY in_file")
                + lines("SELECT 'inline' AS kind, 0 AS pinned, texts AS n, bytes FROM inline_text_totals WHERE texts > 0"),
            try lines(
                "SELECT kind, pinned <> 0 AS pinned, count(*) AS n, sum(size) AS bytes FROM items GROUP BY kind, pinned <> 0 "
                    + "ORDER BY kind, pinned")
                + lines(
                    "SELECT 'payloads' AS kind, data IS NULL AS pinned, count(*) AS n, sum(size) AS bytes FROM blobs "
                        + "GROUP BY data IS NULL ORDER BY data IS NULL")
                + lines(
                    "SELECT 'inline' AS kind, 0 AS pinned, count(*) AS n, sum(size) AS bytes FROM items "
                        + "WHERE text_data IS NOT NULL HAVING count(*) > 0")
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

    /// The store's insert triggers, by name, with their definitions.
    func insertTriggers() throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try store.db.rows(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '%_insert'"
            ).map { ($0.string("name") ?? "?", $0.string("sql") ?? "?") })
    }

    /// A bulk import counts the totals itself, without the insert triggers (SuspendedTotals), and ends with the same
    /// totals and the same triggers as a trigger would have: through batches, a dictionary learned half-way, repeats
    /// of rows already written, pins, a payload in a file, a rollback and a write that fails.
    @Test func aBulkImportKeepsTheTotalsWithoutItsTriggers() throws {
        let triggers = try insertTriggers()
        #expect(triggers.count == 5, "\(triggers.keys.sorted())")
        try store.record(PasteboardItem(string: "copied before"))
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
        let bulk = try HistoryImport(store: store)
        for index in 0..<5000 {
            let text = (0..<8).map { words[(index * 7 + $0 * 3) % words.count] }.joined(separator: " ") + " \(index)"
            try bulk.add(
                PasteboardItem(string: text), metadata: CaptureMetadata(date: Date(), isPinned: index % 97 == 0))
            if index == 2000 {
                // Repeats of rows written in earlier batches (one pinned now), a picture kept in a file.
                try bulk.add(
                    PasteboardItem(string: "alpha bravo"), metadata: CaptureMetadata(date: Date(), isPinned: true))
                try bulk.add(pngItem(seed: 9), metadata: CaptureMetadata(date: Date()))
            }
            if index == 10 {
                try bulk.add(PasteboardItem(string: "alpha bravo"), metadata: CaptureMetadata(date: Date()))
            }
        }
        #expect(try insertTriggers().isEmpty, "the insert triggers are dropped during the import")
        try bulk.commit()
        #expect(try insertTriggers() == triggers, "the triggers are back as they were")
        let (kept, counted) = try totals()
        #expect(kept == counted)
        #expect(kept.contains { $0.hasPrefix("payloads 1 1 ") }, "the picture's payload is a file: \(kept)")
        let packed = try store.db.row(
            "SELECT (SELECT count(*) FROM blobs WHERE packing IS NOT NULL) "
                + "+ (SELECT count(*) FROM items WHERE text_packing IS NOT NULL) AS n")?.int("n") ?? 0
        #expect(packed > 500, "the dictionary was learned during the import")
        #expect(try store.db.row("SELECT sum(uses) AS n FROM packing_uses")?.int("n") == packed)
        #expect(try store.count() == 5003)

        // Rolled back: triggers and totals as they were.
        let before = try totals().kept
        let abandoned = try HistoryImport(store: store)
        for index in 0..<1000 {
            try abandoned.add(PasteboardItem(string: "abandoned \(index)"), metadata: CaptureMetadata(date: Date()))
        }
        abandoned.rollBack()
        #expect(try insertTriggers() == triggers)
        #expect(try totals().kept == before)

        // A batch that cannot be written (the database may not grow): the import rolls back at once and says so
        // from then on; the store is as it was, triggers included.
        let failing = try HistoryImport(store: store)
        let pages = try store.db.row("PRAGMA page_count")?.int(0) ?? 0
        try store.db.execute("PRAGMA max_page_count = \(pages + 2)")
        var failure: HistoryError?
        do {
            for index in 0..<5000 {
                let text = "does not fit \(index) " + String(repeating: "x", count: 200)
                try failing.add(PasteboardItem(string: text), metadata: CaptureMetadata(date: Date()))
            }
        } catch {
            failure = error
        }
        try store.db.execute("PRAGMA max_page_count = 4294967294")
        #expect(failure?.code == .full, "\(String(describing: failure))")
        #expect(store.db.isInTransaction == false)
        #expect(throws: HistoryError.self) {
            try failing.add(PasteboardItem(string: "later"), metadata: CaptureMetadata(date: Date()))
        }
        #expect(throws: HistoryError.self) { try failing.commit() }
        #expect(try insertTriggers() == triggers)
        #expect(try totals().kept == before)
        #expect(try store.count() == 5003)
        try store.record(PasteboardItem(string: "copied after"))
        #expect(try totals().kept == totals().counted)
    }
}
