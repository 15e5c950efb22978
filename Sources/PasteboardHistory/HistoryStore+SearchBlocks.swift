import FoundationEssentials
import SQLiteSupport

/// One- and two-letter searches read only the blocks of the history that may hold them.
///
/// The trigram index answers a query of three letters or more (but "ab ", whose trigram `SearchTerms` leaves out).
/// Below that ("zz"), a search reads texts one by one: "zz" with no match read all of a million
/// items' texts (1.3 s), ten million in 13 s. So the history is cut into blocks of 1,024
/// positions, and `search_blocks` keeps, per block, the letters and pairs of letters of the entries added to the
/// search index there (`SearchGrams`, 2 KiB). The invariant, for a block at or above `search_blocks_since.block`:
///
///     a row whose grams are not NULL has every gram of every search-index entry at a position in the block;
///     no row means no entry was added there; NULL means "not known": the block is read.
///
/// Every entry goes into the index through `addSearchEntry` or `SearchIndexWriter`, which add its grams. A deleted
/// item's grams must not outlive it (a block holding only a deleted secret would keep its pairs of letters), so a
/// delete makes its block NULL, and `refreshSearchBlocks` (the daemon's housekeeping) computes it again from the
/// entries left. An item that moves (a repeat) keeps its text in the history: its old block keeps the grams.
/// Blocks below `since` (written before the store had this table) and items not indexed yet (the backlog) are
/// always read; `refreshSearchBlocks` also computes the blocks below `since`, newest first, moving it down.
extension HistoryStore {
    /// Positions per block: 2^10.
    static let searchBlockShift: Int64 = 10

    static func searchBlock(_ position: Int64) -> Int64 { position >> searchBlockShift }

    /// Adds `text` to the search index as the entry of `position`, and its grams to its block.
    func addSearchEntry(position: Int64, text: String) throws {
        try db.run("INSERT INTO item_text(rowid, text) VALUES (?, ?)", position, SearchTerms.document(text))
        var grams = SearchGrams()
        grams.add(text)
        try Self.addGrams(grams, block: Self.searchBlock(position), db: db)
    }

    /// Adds `grams` to block `block`'s, unless its grams are not known.
    static func addGrams(_ grams: SearchGrams, block: Int64, db: Connection) throws {
        if let row = try db.row("SELECT grams FROM search_blocks WHERE block = ?", block) {
            guard let stored = row.data(0), var merged = SearchGrams(stored) else { return }  // NULL: stays unknown
            merged.formUnion(grams)
            guard merged != SearchGrams(stored) else { return }
            try db.run("UPDATE search_blocks SET grams = ? WHERE block = ?", merged.data, block)
        } else {
            try db.run("INSERT INTO search_blocks(block, grams) VALUES (?, ?)", block, grams.data)
        }
    }

    /// Makes the grams of the block holding `position` unknown (an entry there was deleted).
    func forgetSearchBlock(position: Int64) throws {
        try db.run(
            "INSERT INTO search_blocks(block, grams) VALUES (?, NULL) ON CONFLICT(block) DO UPDATE SET grams = NULL",
            Self.searchBlock(position))
    }

    /// Computes, from the entries there, the grams of at most `limit` blocks: first those a delete made unknown, then
    /// (a store made before schema 9) the blocks just below `since`, which then moves down past them; returns how
    /// many it did. The daemon calls it in its housekeeping until `hasSearchBlockWork` is false.
    ///
    /// - Parameter waiting: false gives up at once (`busy`) when another process holds the write lock, instead of
    ///   waiting the busy timeout (the daemon, which must not stall, tries again later).
    @discardableResult
    public func refreshSearchBlocks(limit: Int = 16, waiting: Bool = true) throws(HistoryError) -> Int {
        guard try hasSearchBlockWork() else { return 0 }
        return try write(waiting: waiting) { () throws -> Int in
            var done = 0
            for row in try db.rows("SELECT block FROM search_blocks WHERE grams IS NULL ORDER BY block DESC LIMIT ?", limit) {
                guard let block = row.int(0) else { continue }
                try db.run("UPDATE search_blocks SET grams = ? WHERE block = ?", try computedGrams(block: block).data, block)
                done += 1
            }
            // Older blocks, newest first: each gets its row, then `since` moves below it (in this transaction).
            guard var since = try db.row("SELECT block FROM search_blocks_since WHERE id = 1")?.int(0),
                let lowest = try db.row("SELECT min(position) FROM items")?.int(0)
            else { return done }
            while done < limit, since > Self.searchBlock(lowest) {
                since -= 1
                try db.run(
                    "INSERT INTO search_blocks(block, grams) VALUES (?, ?) ON CONFLICT(block) DO UPDATE SET grams = excluded.grams",
                    since, try computedGrams(block: since).data)
                try db.run("UPDATE search_blocks_since SET block = ? WHERE id = 1", since)
                done += 1
            }
            return done
        }
    }

    /// Whether `refreshSearchBlocks` has something to do (two lookups of an index each).
    public func hasSearchBlockWork() throws(HistoryError) -> Bool {
        try perform {
            if try db.row("SELECT 1 FROM search_blocks WHERE grams IS NULL LIMIT 1") != nil { return true }
            guard let since = try db.row("SELECT block FROM search_blocks_since WHERE id = 1")?.int(0),
                let lowest = try db.row("SELECT min(position) FROM items")?.int(0)
            else { return false }
            return since > Self.searchBlock(lowest)
        }
    }

    /// The grams of every entry the items of `block` have or will have (those of the backlog too: more grams than
    /// needed only make the block read).
    private func computedGrams(block: Int64) throws -> SearchGrams {
        let first = block << Self.searchBlockShift
        var grams = SearchGrams()
        for item in try db.rows(
            "SELECT id, text_blob FROM items WHERE position BETWEEN ? AND ?", first, first + (1 << Self.searchBlockShift) - 1)
        {
            guard let id = item.int(0), let text = try searchEntry(itemID: id, textBlob: item.int(1)) else { continue }
            grams.add(text)
        }
        return grams
    }

    /// Which blocks a search needing `bits` must read, for the positions in `low...high`: nil when every one (the
    /// grams cannot tell), else a predicate on a block number, asked newest block first. It reads one byte per
    /// block and bit, `searchBlockWindow` blocks at a time as the search goes down: a common letter's first page,
    /// found in the newest block, reads one window, not the whole history's.
    func searchBlockFilter(bits: [Int], low: Int64, high: Int64) throws -> ((Int64) throws -> Bool)? {
        guard !bits.isEmpty else { return nil }
        guard let since = try db.row("SELECT block FROM search_blocks_since WHERE id = 1")?.int(0) else { return nil }
        let indexedThrough = try searchIndexedThrough()
        // Blocks with unindexed items are read: from the block holding the first of them up.
        let firstUnindexedBlock = indexedThrough.map { Self.searchBlock($0 + 1) } ?? Int64.max
        let columns = bits.map { "substr(grams, \($0 >> 3 + 1), 1)" }.joined(separator: ", ")
        let statement = try db.prepare(
            "SELECT block, grams IS NULL, \(columns) FROM search_blocks WHERE block BETWEEN ? AND ?")
        let lowest = max(since, Self.searchBlock(low))
        let window = Window()
        return { block in
            if block < since || block >= firstUnindexedBlock { return true }
            if block < window.bottom || block > window.top {
                // The window of blocks ending at this one, going down.
                window.top = block
                window.bottom = max(lowest, block - Self.searchBlockWindow + 1)
                window.reads.removeAll(keepingCapacity: true)
                try statement.bind([window.bottom, window.top])
                defer { statement.reset() }
                while let row = try statement.step() {
                    guard let number = row.int(0) else { continue }
                    if row.int(1) == 1 {
                        window.reads.insert(number)
                        continue
                    }
                    let holds = bits.enumerated().allSatisfy { offset, bit in
                        let byte = row.data(2 + offset).flatMap(\.first) ?? 0
                        return byte & (1 << UInt8(bit & 7)) != 0
                    }
                    if holds { window.reads.insert(number) }
                }
            }
            return window.reads.contains(block)
        }
    }

    /// Blocks whose grams one look reads.
    static let searchBlockWindow: Int64 = 256

    /// The blocks of the window last read, and which of them a search must read.
    private final class Window {
        var top: Int64 = -1
        var bottom: Int64 = 0
        var reads: Set<Int64> = []
    }
}
