public import FoundationEssentials
public import PasteboardModel
import SQLiteSupport

extension HistoryStore {
    /// Deletes unpinned items beyond the policy's limits; returns how many went. Nothing of them stays readable
    /// (see `purge()`).
    @discardableResult
    public func applyRetention(_ policy: RetentionPolicy, now: Date = Date()) throws(HistoryError) -> Int {
        let mark = residue.generation
        let count = try retire(policy, now: now)
        try purge(ifFreedSince: mark)
        return count
    }

    /// `applyRetention` without the purge: the policy's own limits over every unpinned item, then each kind's
    /// limits (`RetentionPolicy.byKind`) over the unpinned items of that kind.
    func retire(_ policy: RetentionPolicy, now: Date) throws(HistoryError) -> Int {
        try write {
            var deleted = try retireInTransaction(policy, kind: nil, now: now)
            for (kind, limits) in policy.byKind.sorted(by: { $0.key < $1.key }) where !limits.hasNoOwnLimit {
                deleted += try retireInTransaction(limits, kind: kind, now: now)
            }
            return deleted
        }
    }

    /// Deletes the unpinned items (of `kind` only, when given) beyond `policy`'s own limits.
    private func retireInTransaction(_ policy: RetentionPolicy, kind: String?, now: Date) throws -> Int {
        // The kind is bound, never spliced: "" matches every item when no kind is given.
        let scope = "NOT pinned AND (? = '' OR kind = ?)"
        let kindValue = kind ?? ""
        var doomed: [Int64] = []
        if let maxItems = policy.maxItems {
            doomed += try db.rows(
                "SELECT id FROM items WHERE \(scope) ORDER BY position DESC LIMIT -1 OFFSET ?", kindValue, kindValue,
                max(0, maxItems)
            ).compactMap { $0.int("id") }
        }
        if let maxAge = policy.maxAge {
            doomed += try db.rows(
                "SELECT id FROM items WHERE \(scope) AND last_copied < ?", kindValue, kindValue,
                now.timeIntervalSince1970 - maxAge
            ).compactMap { $0.int("id") }
        }
        var deleted = try deleteInTransaction(ids: Array(Set(doomed)), change: .pruned)
        if let maxBytes = policy.maxBytes {
            var total =
                try db.row("SELECT coalesce(sum(size), 0) AS total FROM items WHERE \(scope)", kindValue, kindValue)?
                .int("total") ?? 0
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
