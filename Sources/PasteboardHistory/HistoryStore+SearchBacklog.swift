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

    /// How long the daemon's `indexBacklog` waits for the write lock with its slice made, in milliseconds.
    static let preparedSliceWait = 100

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
    /// For the daemon (`waiting` false), the slice's texts are read and turned into index entries first, without the
    /// write lock (most of the work: another writer, an import or a sync join recording items, goes on meanwhile);
    /// they are written under the lock only if the mark and every row the slice read are still as they were, else
    /// the slice is read again under the lock.
    ///
    /// - Parameter waiting: false gives up at once (`busy`) when another process holds the write lock, instead of
    ///   waiting the busy timeout (the daemon, which must not stall, tries again later).
    @discardableResult
    public func indexBacklog(
        limit: Int = backlogSliceItems, bytes: Int = backlogSliceBytes, waiting: Bool = true
    ) throws(HistoryError) -> Int {
        try indexBacklog(limit: limit, bytes: bytes, waiting: waiting, afterPreparing: nil)
    }

    /// `indexBacklog(limit:bytes:waiting:)`, with `afterPreparing` run between the slice's preparation and its
    /// write (tests change the store there).
    func indexBacklog(
        limit: Int, bytes: Int, waiting: Bool, afterPreparing: (() throws -> Void)?
    ) throws(HistoryError) -> Int {
        precondition(limit > 0, "indexBacklog(limit:) of nothing")  // programmer error
        // A cheap look first: most calls find nothing to do, and need no write lock for that.
        guard let mark = try perform({ try searchIndexedThrough() }) else { return 0 }
        // Prepared before the lock only for the daemon (`waiting` false), whose slices are small: a slice of `pb
        // import` (tens of MB of text) is written as it is read, not held.
        // One made earlier, that another writer kept from being written, is taken as it is (it is checked below).
        var prepared: BacklogSlice?
        if !waiting {
            if let kept = preparedBacklogSlice, kept.mark == mark, kept.limit == limit, kept.bytes == bytes {
                prepared = kept
            } else {
                prepared = try perform { try prepareBacklogSlice(after: mark, limit: limit, bytes: bytes) }
            }
        }
        preparedBacklogSlice = nil
        try perform { try afterPreparing?() }
        // With the slice made, the lock is worth a short wait: another writer's transactions come in turns (an
        // import's batches, a sync join's).
        let indexed: Int
        do {
            indexed = try write(waitingAtMost: waiting ? nil : Self.preparedSliceWait) { () throws -> Int in
                try writeBacklogSlice(prepared, mark: mark, limit: limit, bytes: bytes)
            }
        } catch where error.code == .busy {
            preparedBacklogSlice = prepared
            throw error
        }
        // The index is complete: the pages its merges freed go back to the file system (HistoryStore+FreePages.swift);
        // one step of them for the daemon (`waiting` false), whose turn a copy may be waiting for.
        if indexed > 0, try perform({ try searchIndexedThrough() }) == nil {
            try returnFreePages(waiting: waiting, steps: waiting ? .max : 1)
        }
        return indexed
    }

    /// Writes a slice of the backlog inside the caller's write transaction: `prepared` when the mark is still `mark`
    /// and its rows are unchanged, else the slice read now; moves the mark. Returns how many items it took.
    private func writeBacklogSlice(_ prepared: BacklogSlice?, mark: Int64, limit: Int, bytes: Int) throws -> Int {
        guard let current = try searchIndexedThrough() else { return 0 }
        let writer = try SearchIndexWriter(db: db, stagedLimit: bytes)
        let last: Int64
        let count: Int
        if let prepared, try current == mark && isUnchanged(prepared) {
            for entry in prepared.entries { try writer.queue(position: entry.position, document: entry.document) }
            writer.add(prepared.grams)
            (last, count) = (prepared.rows.last?.position ?? mark, prepared.rows.count)
        } else {
            (last, count) = try readBacklogSlice(after: current, limit: limit, bytes: bytes) { position, text in
                try writer.queue(isDeletion: false, position: position, text: text)
            }
        }
        try writer.finish()
        let above = try db.row("SELECT 1 FROM items WHERE position > ? LIMIT 1", last) != nil
        if above {
            try db.run("UPDATE search_backlog SET indexed_through = ? WHERE id = 1", last)
        } else {
            try db.run("DELETE FROM search_backlog")
        }
        return count
    }

    /// A slice of the backlog read and turned into index entries: every row read (for `isUnchanged`), the entries of
    /// those with text, and their letters and pairs by block.
    struct BacklogSlice {
        var mark: Int64
        var limit: Int
        var bytes: Int
        var rows: [(position: Int64, hash: Data?, recognized: String?)] = []
        var entries: [(position: Int64, document: String)] = []
        var grams: [Int64: SearchGrams] = [:]
    }

    /// The backlog's rows above a mark (bound first), oldest first, at most a count (bound second): what
    /// `backlogRowsSQL` reads, and `isUnchanged` compares.
    private static let backlogRowsFrom =
        "FROM items i LEFT JOIN blobs b ON b.id = i.text_blob "
        + "LEFT JOIN recognized_text r ON r.item_id = i.id AND r.text <> '' "
        + "WHERE i.position > ? ORDER BY i.position LIMIT ?"

    private static let backlogRowsSQL =
        "SELECT i.position, \(textHashSQL) AS hash, \(textInFileSQL) AS inFile, "
        + "substr(\(textBytesSQL), 1, \(ItemText.indexedPrefix)) AS head, "
        + "substr(r.text, 1, \(ItemText.indexedPrefix)) AS recognized " + backlogRowsFrom

    /// Reads the oldest items above `mark`, at most `limit` (and about `bytes` of text, beyond one item's indexed
    /// prefix), and makes their index entries (one statement: one consistent read).
    private func prepareBacklogSlice(after mark: Int64, limit: Int, bytes: Int) throws -> BacklogSlice {
        var slice = BacklogSlice(mark: mark, limit: limit, bytes: bytes)
        _ = try readBacklogSlice(after: mark, limit: limit, bytes: bytes) { position, text in
            slice.entries.append((position, SearchTerms.document(text)))
            slice.grams[Self.searchBlock(position), default: SearchGrams()].add(text)
        } row: { position, hash, recognized in
            slice.rows.append((position, hash, recognized))
        }
        return slice
    }

    /// Reads the oldest items above `mark`, at most `limit` (and about `bytes` of text), handing each one's entry
    /// text (`searchEntry`'s: the item's text, then the text recognized in its picture) to `entry`, and every row
    /// read to `row`; returns the last position read (`mark` when none) and how many rows.
    private func readBacklogSlice(
        after mark: Int64, limit: Int, bytes: Int, entry: (Int64, String) throws -> Void,
        row: ((Int64, Data?, String?) -> Void)? = nil
    ) throws -> (last: Int64, count: Int) {
        let rows = try db.prepare(Self.backlogRowsSQL)
        defer { rows.reset() }
        try rows.bind([mark, limit])
        var textBytes = 0
        var (last, count) = (mark, 0)
        while textBytes < bytes, let read = try rows.step() {
            guard let position = read.int(0) else { continue }
            let hash = read.data("hash")
            let recognized = read.string("recognized")
            row?(position, hash, recognized)
            (last, count) = (position, count + 1)
            var parts: [String] = []
            if let hash {
                var head = read.data("head") ?? Data()
                if read.int("inFile") == 1 { head = files.prefix(hash: hash, count: ItemText.indexedPrefix) }
                parts.append(ItemText.indexString(head))
            }
            if let recognized { parts.append(ItemText.indexString(Data(recognized.utf8))) }
            guard !parts.isEmpty else { continue }  // no text: nothing to index
            let text = parts.joined(separator: "\n")
            textBytes += text.utf8.count
            try entry(position, text)
        }
        return (last, count)
    }

    /// Whether the rows above the slice's mark are still the ones it read, with the same texts (a text is named by
    /// its hash; the recognized text is compared whole).
    private func isUnchanged(_ slice: BacklogSlice) throws -> Bool {
        let rows = try db.prepare(
            "SELECT i.position, \(Self.textHashSQL) AS hash, substr(r.text, 1, \(ItemText.indexedPrefix)) AS recognized "
                + Self.backlogRowsFrom)
        defer { rows.reset() }
        try rows.bind([slice.mark, slice.rows.count])
        var index = 0
        while let row = try rows.step() {
            guard index < slice.rows.count else { return false }
            let read = slice.rows[index]
            guard row.int(0) == read.position, row.data("hash") == read.hash, row.string("recognized") == read.recognized
            else { return false }
            index += 1
        }
        return index == slice.rows.count
    }
}
