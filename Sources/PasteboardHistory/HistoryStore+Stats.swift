public import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import SQLiteSupport
import SystemSupport

extension HistoryStore {
    /// Counts and sizes: what the history holds and what its files cost.
    public func stats() throws(HistoryError) -> HistoryStats {
        try perform {
            // From the totals the store keeps (schema 8), not by reading every item.
            let items = try db.row(
                "SELECT coalesce(sum(items), 0) AS n, coalesce(sum(CASE WHEN pinned THEN items ELSE 0 END), 0) AS p "
                    + "FROM item_totals")
            var kinds: [HistoryStats.KindUsage] = []
            for row in try db.rows(
                "SELECT kind, sum(items) AS n, sum(bytes) AS bytes FROM item_totals GROUP BY kind HAVING sum(items) > 0 "
                    + "ORDER BY bytes DESC")
            {
                kinds.append(.init(
                    kind: HistoryItem.Kind(rawValue: row.string("kind") ?? "") ?? .data,
                    count: Int(row.int("n") ?? 0), bytes: Int(row.int("bytes") ?? 0)))
            }
            let blobs = try db.row(
                "SELECT coalesce(sum(blobs), 0) AS n, coalesce(sum(bytes), 0) AS bytes, "
                    + "coalesce(sum(CASE WHEN in_file THEN blobs ELSE 0 END), 0) AS files, "
                    + "coalesce(sum(CASE WHEN in_file THEN bytes ELSE 0 END), 0) AS fileBytes FROM blob_totals")
            // The texts items keep in their rows (InlineText.swift) are payloads too.
            let inline = try db.row("SELECT texts, bytes FROM inline_text_totals WHERE id = 1")
            let pageSize = try db.row("PRAGMA page_size")?.int(0) ?? 4096
            let freePages = try db.row("PRAGMA freelist_count")?.int(0) ?? 0
            var indexBytes = 0
            // Named, and summed by dbstat itself: a LIKE made it walk every page of the database.
            if let row = try? db.row(
                "SELECT coalesce(sum(pgsize), 0) AS bytes FROM dbstat WHERE name IN "
                    + "('item_text_data', 'item_text_idx', 'item_text_docsize', 'item_text_config') AND aggregate = 1")
            {
                indexBytes = Int(row.int("bytes") ?? 0)
            }
            func fileSize(_ path: String) -> Int {
                ((try? FileManager.default.attributesOfItem(atPath: path))?.fileSize ?? 0)
            }
            let path = location.databaseURL.path
            let payloads = try checkPayloads(filesOnly: true)
            return HistoryStats(
                itemCount: Int(items?.int("n") ?? 0),
                pinnedCount: Int(items?.int("p") ?? 0),
                kinds: kinds,
                payloadBytes: Int((blobs?.int("bytes") ?? 0) + (inline?.int("bytes") ?? 0)),
                blobCount: Int((blobs?.int("n") ?? 0) + (inline?.int("texts") ?? 0)),
                fileBlobCount: Int(blobs?.int("files") ?? 0),
                databaseBytes: fileSize(path),
                walBytes: fileSize(path + "-wal"),
                fileBlobBytes: Int(blobs?.int("fileBytes") ?? 0),
                indexBytes: indexBytes,
                unindexedCount: try unindexedCount(),
                reclaimableBytes: Int(freePages * pageSize),
                schemaVersion: try Migrator.version(of: db),
                missingPayloads: payloads.missingCount,
                damagedPayloads: payloads.damagedCount)
        }
    }

    /// Returns free pages to the file system, then wipes the write-ahead log, which the rewrite filled with a copy
    /// of every page (see `purge()`).
    ///
    /// SQLite builds the rewritten copy as a temporary database. The store keeps its temporary tables in memory, where
    /// that copy took about the store's size (492 MB for a store of 460 MB); it is built in a file of the store's own
    /// directory instead (unlinked as it is opened, so nothing is left behind), and the memory stays at the cache's.
    /// `temp_store_directory` is one setting for the whole process: only `pb prune`, a process of one thread, vacuums.
    public func vacuum() throws(HistoryError) {
        // Dates stored before schema 15 kept an item's first copy's date even when it was its last's.
        try write { try db.run("UPDATE items SET created = NULL WHERE created = last_copied") }
        try perform {
            let directory = location.directory.path.replacingEvery("'", with: "''")
            try db.execute("PRAGMA temp_store_directory = '\(directory)'; PRAGMA temp_store = FILE")
            // A store made before incremental auto-vacuum gains it here (HistoryStore+FreePages.swift).
            let vacuumed = Result { () throws(SQLiteError) in try db.execute("PRAGMA auto_vacuum = INCREMENTAL; VACUUM") }
            try db.execute("PRAGMA temp_store = MEMORY; PRAGMA temp_store_directory = ''")
            try vacuumed.get()
        }
        try purge()
    }
}

extension HistoryStore {
    /// Removes blob files no row refers to (left by a transaction that rolled back, e.g. an interrupted
    /// import) and returns how many bytes that freed. Files younger than a minute are left alone: another
    /// process may be about to commit the row that refers to them.
    @discardableResult
    public func collectOrphanedFiles(now: Date = Date()) throws(HistoryError) -> Int {
        let directory = location.blobDirectory
        guard let shards = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var freed = 0
        for shard in shards {
            let shardPath = directory.appendingPathComponent(shard).path
            if shard.hasPrefix(".tmp-") {
                // `BlobFiles.copy(from:)` streams a file into a temporary file here, beside the shards: one a killed
                // copy left behind is no shard to look into, but it is just as orphaned.
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: shardPath),
                    attributes[.type] as? FileAttributeType == .typeRegular,
                    let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) > 60
                else { continue }
                unlink(shardPath)
                freed += attributes.fileSize
                continue
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: shardPath) else { continue }
            for name in names {
                let path = shardPath + "/" + name
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                    let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) > 60
                else { continue }
                let size = attributes.fileSize
                if name.hasPrefix(".tmp-") {
                    unlink(path)
                    freed += size
                    continue
                }
                guard let hash = Data(hexString: name) else { continue }
                let referenced = try perform { try db.row("SELECT 1 FROM blobs WHERE hash = ?", hash) != nil }
                if !referenced {
                    unlink(path)
                    freed += size
                }
            }
        }
        return freed
    }
}

extension Data {
    /// Bytes from lowercase or uppercase hexadecimal; nil for anything else.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 48...57: return digit - 48
            case 97...102: return digit - 87
            case 65...70: return digit - 55
            default: return nil
            }
        }
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }
}
