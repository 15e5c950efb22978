import FoundationEssentials
import SQLiteSupport

/// The search index may lag behind the rows.
///
/// Building the trigram index is most of what a bulk import costs (for random texts, SQLite alone loads the rows
/// ten times faster than it indexes them), so `HistoryImport` commits its items without index entries and records
/// the position up to which the index is complete (`search_backlog.indexed_through`). Positions only grow, so the
/// items above that mark are exactly the newest ones; the invariant is:
///
///     an item is in `item_text` (at rowid = its position) ⇔ there is no backlog, or its position ≤ indexed_through
///
/// Every change keeps it: a copy recorded while a backlog exists is not indexed (it joins the backlog); a repeat or
/// a move takes the item's entry out of the index when it had one; a delete removes an entry only when there is
/// one. Search stays exact all along: `indexedSearch` scans the backlog (newest first, the same check of each text)
/// before it asks the index for the older items. `indexBacklog(limit:)` catches up, a slice per transaction, oldest
/// first; `pb import` runs it after printing its result, and the daemon in small slices between the events it
/// serves. A process killed in the middle of a slice loses that slice's work only: the mark moves with the entries.
extension HistoryStore {
    /// The position through which the search index holds every item, or nil when it holds them all.
    func searchIndexedThrough() throws -> Int64? {
        try db.row("SELECT indexed_through FROM search_backlog WHERE id = 1")?.int(0)
    }

    /// Records that items above `position` are not indexed (inside the caller's transaction).
    func setSearchIndexedThrough(_ position: Int64) throws {
        try db.run(
            "INSERT INTO search_backlog(id, indexed_through) VALUES (1, ?) "
                + "ON CONFLICT(id) DO UPDATE SET indexed_through = min(indexed_through, excluded.indexed_through)",
            position)
    }

    /// Takes an item's entry out of the search index, if it has one; returns whether it had.
    @discardableResult
    func removeFromSearchIndex(position: Int64, itemID: Int64, textBlob: Int64?, indexedThrough: Int64?) throws -> Bool {
        if let indexedThrough, position > indexedThrough { return false }
        guard let text = try searchEntry(itemID: itemID, textBlob: textBlob) else { return false }
        try removeSearchEntry(position: position, text: text)
        return true
    }

    /// Takes the entry `text` made out of the search index at `position` (a contentless index removes an entry
    /// given the document it was made of).
    func removeSearchEntry(position: Int64, text: String) throws {
        try db.run(
            "INSERT INTO item_text(item_text, rowid, text) VALUES ('delete', ?, ?)", position, SearchTerms.document(text))
    }

    /// Whether some items are not in the search index yet (cheap: one row of a small table).
    public func hasSearchBacklog() throws(HistoryError) -> Bool {
        try perform { try searchIndexedThrough() != nil }
    }

    /// How many items are not in the search index yet (0 for a store whose index is complete).
    public func unindexedCount() throws(HistoryError) -> Int {
        try perform { () throws -> Int in
            guard let mark = try searchIndexedThrough() else { return 0 }
            return Int(try db.row("SELECT count(*) FROM items WHERE position > ?", mark)?.int(0) ?? 0)
        }
    }

    /// Items indexed by one slice of `indexBacklog` at most, by default.
    public static let backlogSliceItems = 20_000
    /// Bytes of text one slice indexes at most (beyond one item's indexed prefix), by default: its memory bound.
    public static let backlogSliceBytes = 8 << 20
    /// A slice for `pb import`, which indexes what it brought with nothing else waiting: 200,000 items or 32 MB of
    /// text, moved into the index by one statement (an index segment of them; see schema 9's `hashsize`). Three
    /// million short texts were indexed in 33 s this way, 64 s in the default slices.
    public static let bulkSliceItems = 200_000
    public static let bulkSliceBytes = 32 << 20

    /// Indexes the oldest items of the backlog, at most `limit` (and about `bytes` of text), in one transaction;
    /// returns how many it indexed (0 when the index is complete). Running it again after it returned 0, or from two
    /// processes at once, does nothing twice: the mark is read and moved inside the transaction.
    ///
    /// - Parameter waiting: false gives up at once (`busy`) when another process holds the write lock, instead of
    ///   waiting the busy timeout (the daemon, which must not stall, tries again later).
    @discardableResult
    public func indexBacklog(
        limit: Int = backlogSliceItems, bytes: Int = backlogSliceBytes, waiting: Bool = true
    ) throws(HistoryError) -> Int {
        precondition(limit > 0, "indexBacklog(limit:) of nothing")  // programmer error
        // A cheap look first: most calls find nothing to do, and need no write lock for that.
        guard try perform({ try searchIndexedThrough() }) != nil else { return 0 }
        let indexed = try write(waiting: waiting) { () throws -> Int in
            guard let mark = try searchIndexedThrough() else { return 0 }
            let writer = try SearchIndexWriter(db: db, stagedLimit: bytes)
            let rows = try db.prepare(
                "SELECT i.position, \(Self.textHashSQL) AS hash, \(Self.textInFileSQL) AS inFile, "
                    + "substr(\(Self.textBytesSQL), 1, \(ItemText.indexedPrefix)) AS head, "
                    + "substr(r.text, 1, \(ItemText.indexedPrefix)) AS recognized "
                    + "FROM items i LEFT JOIN blobs b ON b.id = i.text_blob "
                    + "LEFT JOIN recognized_text r ON r.item_id = i.id AND r.text <> '' "
                    + "WHERE i.position > ? ORDER BY i.position LIMIT ?"
            )
            try rows.bind([mark, limit])
            var indexed = 0
            var last = mark
            var textBytes = 0
            while textBytes < bytes, let row = try rows.step() {
                guard let position = row.int(0) else { continue }
                last = position
                indexed += 1
                // The entry `searchEntry` makes: the item's text, then the text recognized in its picture.
                var parts: [String] = []
                if let hash = row.data("hash") {
                    var head = row.data("head") ?? Data()
                    if row.int("inFile") == 1 { head = files.prefix(hash: hash, count: ItemText.indexedPrefix) }
                    parts.append(ItemText.indexString(head))
                }
                if let recognized = row.string("recognized") { parts.append(ItemText.indexString(Data(recognized.utf8))) }
                guard !parts.isEmpty else { continue }  // no text: nothing to index
                let text = parts.joined(separator: "\n")
                textBytes += text.utf8.count
                try writer.queue(isDeletion: false, position: position, text: text)
            }
            rows.reset()
            try writer.finish()
            let above = try db.row("SELECT 1 FROM items WHERE position > ? LIMIT 1", last) != nil
            if above {
                try db.run("UPDATE search_backlog SET indexed_through = ? WHERE id = 1", last)
            } else {
                try db.run("DELETE FROM search_backlog")
            }
            return indexed
        }
        // The index is complete: the pages its merges freed go back to the file system (HistoryStore+FreePages.swift);
        // one step of them for the daemon (`waiting` false), whose turn a copy may be waiting for.
        if indexed > 0, try perform({ try searchIndexedThrough() }) == nil {
            try returnFreePages(waiting: waiting, steps: waiting ? .max : 1)
        }
        return indexed
    }
}
