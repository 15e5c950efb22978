import Foundation
import SQLiteSupport

extension HistoryStore {
    /// Counts and sizes: what the history holds and what its files cost.
    public func stats() throws(HistoryError) -> HistoryStats {
        try perform {
            let items = try db.row("SELECT count(*) AS n, coalesce(sum(pinned), 0) AS p FROM items")
            var kinds: [HistoryStats.KindUsage] = []
            for row in try db.rows("SELECT kind, count(*) AS n, sum(size) AS bytes FROM items GROUP BY kind ORDER BY bytes DESC") {
                kinds.append(.init(
                    kind: HistoryItem.Kind(rawValue: row.string("kind") ?? "") ?? .data,
                    count: Int(row.int("n") ?? 0), bytes: Int(row.int("bytes") ?? 0)))
            }
            let blobs = try db.row(
                "SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes, coalesce(sum(data IS NULL), 0) AS files, "
                    + "coalesce(sum(CASE WHEN data IS NULL THEN size ELSE 0 END), 0) AS fileBytes FROM blobs")
            let pageSize = try db.row("PRAGMA page_size")?.int(0) ?? 4096
            let freePages = try db.row("PRAGMA freelist_count")?.int(0) ?? 0
            var indexBytes = 0
            if let row = try? db.row("SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name LIKE 'item_text%'") {
                indexBytes = Int(row.int("bytes") ?? 0)
            }
            func fileSize(_ path: String) -> Int {
                ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
            }
            let path = location.databaseURL.path
            return HistoryStats(
                itemCount: Int(items?.int("n") ?? 0),
                pinnedCount: Int(items?.int("p") ?? 0),
                kinds: kinds,
                payloadBytes: Int(blobs?.int("bytes") ?? 0),
                blobCount: Int(blobs?.int("n") ?? 0),
                fileBlobCount: Int(blobs?.int("files") ?? 0),
                databaseBytes: fileSize(path),
                walBytes: fileSize(path + "-wal"),
                fileBlobBytes: Int(blobs?.int("fileBytes") ?? 0),
                indexBytes: indexBytes,
                reclaimableBytes: Int(freePages * pageSize),
                schemaVersion: try Migrator.version(of: db))
        }
    }

    /// Returns free pages to the file system.
    public func vacuum() throws(HistoryError) {
        try perform { try db.execute("VACUUM") }
    }
}
