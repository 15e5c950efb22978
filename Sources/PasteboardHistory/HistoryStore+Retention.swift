public import FoundationEssentials
public import PasteboardModel
import SQLiteSupport

extension HistoryStore {
    /// Deletes unpinned items beyond the policy's limits; returns how many went. Nothing of them stays readable
    /// (see `purge()`).
    ///
    /// - Parameter thorough: every item is looked at for `max-age` (an item copied again long ago may sit above
    ///   newer ones after a sync); false looks at the oldest only (see `retire`). The limits on counts and bytes cost
    ///   the same at any size (`item_totals`).
    @discardableResult
    public func applyRetention(_ policy: RetentionPolicy, now: Date = Date(), thorough: Bool = true) throws(HistoryError) -> Int {
        let mark = residue.generation
        let count = try retire(policy, now: now, thorough: thorough)
        try purge(ifFreedSince: mark)
        return count
    }

    /// `applyRetention` without the purge: the policy's own limits over every unpinned item, then each kind's
    /// limits (`RetentionPolicy.byKind`) over the unpinned items of that kind.
    ///
    /// - Parameter thorough: false (after a copy, which adds one item) reads no more of the history than what it
    ///   deletes: the counts come from `item_totals`, and `max-age` looks at the oldest items by position only,
    ///   stopping at the first one young enough. `applyRetention` (`pb prune`, the daemon's housekeeping) is thorough.
    func retire(_ policy: RetentionPolicy, now: Date, thorough: Bool = false) throws(HistoryError) -> Int {
        try write {
            var deleted = try retireInTransaction(policy, kind: nil, now: now, thorough: thorough)
            for (kind, limits) in policy.byKind.sorted(by: { $0.key < $1.key }) where !limits.hasNoOwnLimit {
                deleted += try retireInTransaction(limits, kind: kind, now: now, thorough: thorough)
            }
            return deleted
        }
    }

    /// The unpinned items (of `kind`, when given) and their bytes, from `item_totals`.
    func unpinnedTotals(kind: String?) throws -> (items: Int64, bytes: Int64) {
        let row = try db.row(
            "SELECT coalesce(sum(items), 0) AS items, coalesce(sum(bytes), 0) AS bytes FROM item_totals "
                + "WHERE pinned = 0 AND (? = '' OR kind = ?)", kind ?? "", kind ?? "")
        return (row?.int("items") ?? 0, row?.int("bytes") ?? 0)
    }

    /// Deletes the unpinned items (of `kind` only, when given) beyond `policy`'s own limits.
    private func retireInTransaction(_ policy: RetentionPolicy, kind: String?, now: Date, thorough: Bool) throws -> Int {
        // The kind is bound, never spliced: "" matches every item when no kind is given.
        let scope = "NOT pinned AND (? = '' OR kind = ?)"
        let kindValue = kind ?? ""
        var deleted = 0
        if let maxItems = policy.maxItems {
            let excess = try unpinnedTotals(kind: kind).items - Int64(max(0, maxItems))
            if excess > 0 {
                let oldest = try db.rows(
                    "SELECT id FROM items WHERE \(scope) ORDER BY position LIMIT ?", kindValue, kindValue, excess
                ).compactMap { $0.int("id") }
                deleted += try deleteInTransaction(ids: oldest, change: .pruned)
            }
        }
        if let maxAge = policy.maxAge {
            let cutoff = now.timeIntervalSince1970 - maxAge
            if thorough {
                let doomed = try db.rows(
                    "SELECT id FROM items WHERE \(scope) AND last_copied < ?", kindValue, kindValue, cutoff
                ).compactMap { $0.int("id") }
                deleted += try deleteInTransaction(ids: doomed, change: .pruned)
            } else {
                // The history is newest first by last copy: the old items are the oldest ones.
                while true {
                    let page = try db.rows(
                        "SELECT id, last_copied FROM items WHERE \(scope) ORDER BY position LIMIT 256", kindValue,
                        kindValue)
                    let doomed = page.prefix { ($0.double("last_copied") ?? cutoff) < cutoff }.compactMap { $0.int("id") }
                    if doomed.isEmpty { break }
                    deleted += try deleteInTransaction(ids: doomed, change: .pruned)
                    if doomed.count < page.count { break }
                }
            }
        }
        if let maxBytes = policy.maxBytes {
            var total = try unpinnedTotals(kind: kind).bytes
            while total > maxBytes {
                let oldest = try db.rows(
                    "SELECT id, size FROM items WHERE \(scope) ORDER BY position LIMIT 256", kindValue, kindValue)
                if oldest.isEmpty { break }
                var batch: [Int64] = []
                for row in oldest where total > maxBytes {
                    batch.append(row.int("id") ?? 0)
                    total -= row.int("size") ?? 0
                }
                deleted += try deleteInTransaction(ids: batch, change: .pruned)
            }
        }
        return deleted
    }

    /// Deletes items whose expiry time has passed (pinned or not); returns how many went.
    ///
    /// A headless `general` pasteboard still holding an expired item is cleared too. Nothing of them stays readable
    /// (see `purge()`).
    @discardableResult
    public func deleteExpired(now: Date = Date()) throws(HistoryError) -> Int {
        try deleteExpiredItems(now: now).count
    }

    /// `deleteExpired`, returning the ids of the items that went (for a daemon to stop serving them).
    public func deleteExpiredItems(now: Date = Date()) throws(HistoryError) -> [Int64] {
        let due = try perform {
            try db.row(
                "SELECT 1 FROM items WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT 1", now.timeIntervalSince1970)
        }
        guard due != nil else { return [] }
        let mark = residue.generation
        let ids = try write { () throws -> [Int64] in
            let rows = try db.rows(
                "SELECT id, identity FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?", now.timeIntervalSince1970)
            let general = try pasteboardIdentity("general")
            if let general, rows.contains(where: { $0.data("identity") == general }) {
                try clearPasteboardInTransaction("general")
            }
            let ids = rows.compactMap { $0.int("id") }
            _ = try deleteInTransaction(ids: ids, change: .expired)
            return ids
        }
        // An expiring copy is often a secret (a one-time password): nothing of it stays readable.
        try purge(ifFreedSince: mark)
        return ids
    }

    /// When the next item expires, if any does.
    public func nextExpiry() throws(HistoryError) -> Date? {
        try perform {
            try db.row("SELECT min(expires_at) AS next FROM items WHERE expires_at IS NOT NULL")?.double("next")
                .map { Date(timeIntervalSince1970: $0) }
        }
    }
}
