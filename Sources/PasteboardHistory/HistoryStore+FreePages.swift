import SQLiteSupport

/// A store made by this pb gives the pages it no longer uses back to the file system in steps (SQLite's incremental
/// auto-vacuum), instead of keeping them in the file until `pb prune --vacuum`.
///
/// Free pages come from the search index above all: FTS5 merges its segments as they add up, and the pages of the
/// segments a merge replaced stay free in the file until later writes take them. After `pb import` of ten million
/// short texts they were 0.16× of the texts' size (bench/scale_bench.py). Most writes reuse free pages, so nothing is
/// done below `freePagesWorthReturning`; above it, `returnFreePages` moves the last pages of the file into the free
/// ones and cuts the file, a bounded number of pages per transaction.
///
/// Incremental auto-vacuum is set when the store is made (SQLite can set it only before the first table, or by
/// `VACUUM`, which `pb prune --vacuum` runs): a store made before keeps its free pages until then.
extension HistoryStore {
    /// Pages moved and cut per transaction (64 MiB of 4 KiB pages): a copy waits for at most one step.
    static let freePagesPerStep = 16_384
    /// Free pages below which nothing is given back: later writes take them (a copy's few pages, an import's slices).
    static let freePagesWorthReturning = 4_096

    /// Whether the store gives its free pages back in steps (incremental auto-vacuum).
    func returnsFreePages() throws -> Bool {
        try db.row("PRAGMA auto_vacuum")?.int(0) == 2
    }

    /// Gives the file's free pages back when there are at least `freePagesWorthReturning` of them (and the store
    /// was made with incremental auto-vacuum), `freePagesPerStep` per transaction, `steps` transactions at most;
    /// returns how many went. A step took 0.23 s for 10,840 pages of a ten-million-item store.
    /// - Parameter waiting: false gives up at once (`busy`) when another process holds the write lock.
    @discardableResult
    public func returnFreePages(waiting: Bool = true, steps: Int = .max) throws(HistoryError) -> Int {
        var returned = 0
        for _ in 0..<steps {
            let step = try perform { () throws -> Int in
                guard try returnsFreePages() else { return 0 }
                let free = Int(try db.row("PRAGMA freelist_count")?.int(0) ?? 0)
                guard free >= (returned > 0 ? 1 : Self.freePagesWorthReturning) else { return 0 }
                return min(free, Self.freePagesPerStep)
            }
            guard step > 0 else { return returned }
            // Its own transaction: incremental_vacuum does nothing inside an open one that holds no write lock yet.
            try write(waiting: waiting) { () throws in
                _ = try db.rows("PRAGMA incremental_vacuum(\(step))")
            }
            returned += step
        }
        return returned
    }
}
