import FoundationEssentials
import SQLiteSupport
#if canImport(Glibc)
import Glibc
#endif

/// Nothing deleted stays readable.
///
/// Deleting an item leaves copies of its text in three places besides the rows themselves:
/// - freed space in database pages: `PRAGMA secure_delete = ON` (set on every connection) overwrites deleted rows
///   and freed pages with zeros as they are freed;
/// - the write-ahead log (`history.sqlite-wal`), which keeps every earlier version of each page it holds until it
///   is reset: `purge()` checkpoints it into the database file and truncates it to zero bytes;
/// - the trigram search index: an FTS5 'delete' only adds a tombstone beside the deleted item's trigrams (enough
///   to rebuild its text), and both stay until the index is merged into one segment: `purge()` runs FTS5's
///   'optimize', which writes the index anew without them (the old segments go through secure_delete).
///
/// Payload files of deleted items are unlinked when their transaction commits.
///
/// Every deleting method purges before it returns (`delete(ids:)`, `clear`, `deleteExpired`, `applyRetention`,
/// `removePasteboard`, a pasteboard write that dropped the last use of a payload, `vacuum`), except the retention
/// that runs after each recorded copy, which would rewrite the index on every copy: it leaves the purge to the
/// next of those, or to the daemon (`hasUnpurgedDeletions`).
struct Residue {
    /// Content was freed (pages to wipe from the write-ahead log) since the last purge.
    private(set) var hasFreedContent = false
    /// Some item's trigrams were deleted from the search index item by item since the last purge.
    private(set) var hasIndexTombstones = false
    /// Counts every change of the above, so a method can tell whether it freed something itself.
    private(set) var generation = 0

    mutating func noteFreedContent() {
        hasFreedContent = true
        generation += 1
    }

    mutating func noteIndexTombstone() {
        hasIndexTombstones = true
        hasFreedContent = true
        generation += 1
    }

    mutating func reset() {
        hasFreedContent = false
        hasIndexTombstones = false
    }
}

extension HistoryStore {
    /// How long `purge()` goes on trying when other processes keep checkpointing.
    static let checkpointPatience: TimeInterval = 10

    /// Whether something deleted through this store may still be readable in the write-ahead log or the search
    /// index; `purge()` wipes it.
    public var hasUnpurgedDeletions: Bool { residue.hasFreedContent }

    /// Wipes what deleting left behind: rewrites the search index without the deleted items' trigrams (when any
    /// were deleted one by one), then copies the write-ahead log into the database file and truncates it.
    ///
    /// - Throws: `busy` when another process kept reading an older snapshot for the whole busy timeout; the
    ///   deletions themselves are saved, and the next purge (any `pb delete`, `pb clear` or `pb prune`) wipes them.
    public func purge() throws(HistoryError) {
        if residue.hasIndexTombstones {
            try perform { try db.run("INSERT INTO item_text(item_text) VALUES ('optimize')") }
        }
        // The busy handler waits for readers and writers, but never for the checkpoint lock: another process
        // checkpointing at the same moment (its own purge, an automatic checkpoint) makes this one give up at once.
        // What it leaves is little; try again for a while.
        var result = try perform { try db.checkpointAndTruncate() }
        let deadline = Date().addingTimeInterval(Self.checkpointPatience)
        while !result.isComplete && Date() < deadline {
            usleep(useconds_t.random(in: 2_000...20_000))
            result = try perform { try db.checkpointAndTruncate() }
        }
        guard result.isComplete else {
            throw HistoryError(
                .busy,
                "The change was saved, but the write-ahead log \(location.databaseURL.path)-wal could not be wiped: "
                    + "other processes kept using the store. Deleted text may stay in it until 'pb prune' is run.")
        }
        residue.reset()
    }

    /// Purges when the residue's generation moved past `mark`: something was freed since `mark` was taken.
    /// Inside a transaction nothing is purged: the outermost caller purges once it has committed.
    func purge(ifFreedSince mark: Int) throws(HistoryError) {
        if residue.generation != mark && !db.isInTransaction { try purge() }
    }
}
