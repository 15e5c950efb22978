import FoundationEssentials
import SQLiteSupport

/// The change feed: the `changes` table (schema 4), one row per change of the history, written in the transaction
/// of the change itself. Views follow it (the daemon turns new rows into events for `pb watch`, the app and the
/// picker), and sync exports what it lists instead of comparing the whole history.
extension HistoryStore {
    /// Rows kept when the feed is trimmed: a watcher that was away for more than this many changes reloads.
    public static let changeFeedKept = 10_000
    /// Deletes above this many go into the feed as one `pruned`/`deleted` row with a count, not one row each.
    static let changeFeedBulk = 1_000

    /// Records a change; inside the caller's write transaction.
    func noteChange(
        _ kind: HistoryChange.Kind, itemID: Int64?, lastItemID: Int64? = nil, count: Int? = nil,
        keptPinned: Bool = false, identity: Data? = nil
    ) throws {
        precondition(db.isInTransaction, "a change is recorded with the mutation, in its transaction")
        try db.run(
            "INSERT INTO changes(kind, item_id, last_item_id, count, time, device, detail, identity) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            kind.rawValue, itemID, lastItemID, count.map(Int64.init), Date().timeIntervalSince1970, changeDevice,
            keptPinned ? "kept-pinned" : nil, identity)
        // Every 1,024th change trims what is older than the newest `changeFeedKept`, whichever process writes: the
        // feed stays bounded with no daemon running, at the cost of one indexed delete now and then.
        let sequence = db.lastInsertRowID
        if sequence % 1_024 == 0 {
            try db.run("DELETE FROM changes WHERE seq <= ?", sequence - Int64(Self.changeFeedKept))
        }
    }

    /// Up to `limit` changes after `sequence`, oldest first.
    public func changes(after sequence: Int64, limit: Int = 1_000) throws(HistoryError) -> [HistoryChange] {
        try perform {
            try db.rows(
                "SELECT seq, kind, item_id, last_item_id, count, time, device, detail, identity FROM changes WHERE seq > ? "
                    + "ORDER BY seq LIMIT ?", sequence, Int64(max(1, limit))
            ).compactMap { row -> HistoryChange? in
                guard let sequence = row.int("seq"), let kind = row.string("kind").flatMap(HistoryChange.Kind.init)
                else { return nil }  // a kind a newer pb wrote: skipped, as an older reader must
                return HistoryChange(
                    sequence: sequence, kind: kind, itemID: row.int("item_id"), lastItemID: row.int("last_item_id"),
                    count: row.int("count").map(Int.init), time: Date(timeIntervalSince1970: row.double("time") ?? 0),
                    device: row.string("device"), keptPinned: row.string("detail") == "kept-pinned",
                    identity: row.data("identity"))
            }
        }
    }

    /// The newest change's sequence number (0 before the first change).
    public func latestChangeSequence() throws(HistoryError) -> Int64 {
        try perform {
            // sqlite_sequence keeps the highest number given out even after every row was trimmed.
            let given = try db.row("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")?.int("seq") ?? 0
            let present = try db.row("SELECT max(seq) AS newest FROM changes")?.int("newest") ?? 0
            return max(given, present)
        }
    }

    /// Whether every change after `sequence` is still in the feed (false once older rows were trimmed: a reader
    /// that far behind must reload what it shows).
    public func hasChanges(after sequence: Int64) throws(HistoryError) -> Bool {
        try perform {
            guard let oldest = try db.row("SELECT min(seq) AS oldest FROM changes")?.int("oldest") else {
                // An empty feed: complete unless rows after `sequence` were given out and trimmed.
                let given = try db.row("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")?.int("seq") ?? 0
                return sequence >= given
            }
            return sequence >= oldest - 1
        }
    }

    /// Deletes all but the newest `kept` changes; returns how many went.
    @discardableResult
    public func trimChanges(keeping kept: Int = changeFeedKept) throws(HistoryError) -> Int {
        try write { () throws -> Int in
            try db.run(
                "DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - ?", Int64(max(0, kept)))
            return db.changes
        }
    }
}
