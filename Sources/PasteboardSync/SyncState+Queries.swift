import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import SQLiteSupport

extension SyncState {
    /// An item sync believes is in the history, in brief.
    struct LiveEntry {
        var identity: Data
        var isPinned: Bool
        var isPending: Bool
        /// Whether sync put the item in the history (or found it there); false for one a placement has still to
        /// put there (see `PendingPlacement`).
        var isPlaced: Bool
        /// The clock of its latest copy, as text (texts sort as clocks do).
        var copy: String
    }

    /// Items alive by the merge rules (see `Entry.isAlive`), computed in SQL (clock texts sort as clocks do), after
    /// `identity` in the order of identities, at most `limit`.
    func liveEntries(after identity: Data?, limit: Int) throws(SyncError) -> [LiveEntry] {
        let clears = try clears()
        return try run {
            let statement = try db.prepare(
                """
                SELECT identity, pinned, pending, position IS NOT NULL AS placed, copy FROM entries WHERE identity > ? AND copy IS NOT NULL
                    AND (deleted IS NULL OR copy > deleted) AND copy > ? AND (copy > ? OR pinned)
                ORDER BY identity LIMIT ?
                """)
            try statement.bind([identity ?? Data(), clears.all?.text ?? "", clears.unpinned?.text ?? "", Int64(limit)])
            var result: [LiveEntry] = []
            while let row = try statement.step() {
                guard let identity = row.data("identity") else { continue }
                result.append(
                    LiveEntry(
                        identity: identity, isPinned: row.int("pinned") == 1, isPending: row.int("pending") == 1,
                        isPlaced: row.int("placed") == 1, copy: row.string("copy") ?? ""))
            }
            return result
        }
    }

    /// Clears where sync put an item, and that it waits for a payload, for every entry no longer alive.
    func unplaceDeadEntries() throws(SyncError) {
        let clears = try clears()
        try run {
            try db.run(
                """
                UPDATE entries SET position = NULL, pending = 0 WHERE (position IS NOT NULL OR pending) AND NOT (copy IS NOT NULL
                    AND (deleted IS NULL OR copy > deleted) AND copy > ? AND (copy > ? OR pinned))
                """, clears.all?.text ?? "", clears.unpinned?.text ?? "")
        }
    }

    /// Forgets the copy records (with their inline payload bytes) of every item no longer alive, and wipes them
    /// from the write-ahead log too: what the user deleted is not kept in the sync state. The clocks stay, which is
    /// all the merge needs of a dead item (a newer copy brings its own record).
    func forgetDeadRecords() throws(SyncError) {
        let clears = try clears()
        try run {
            try db.run(
                """
                UPDATE entries SET record = NULL WHERE record IS NOT NULL AND NOT (copy IS NOT NULL
                    AND (deleted IS NULL OR copy > deleted) AND copy > ? AND (copy > ? OR pinned))
                """, clears.all?.text ?? "", clears.unpinned?.text ?? "")
            if db.changes > 0 && !db.isInTransaction { _ = try db.checkpointAndTruncate() }
        }
    }

    /// `forgetDeadRecords` for the entries of `identities` alone (what one round deleted), without a pass over
    /// every entry.
    func forgetRecords(of identities: [Data]) throws(SyncError) {
        let clears = try clears()
        try run {
            var changed = 0
            for identity in identities {
                try db.run(
                    """
                    UPDATE entries SET record = NULL WHERE identity = ? AND record IS NOT NULL AND NOT (copy IS NOT NULL
                        AND (deleted IS NULL OR copy > deleted) AND copy > ? AND (copy > ? OR pinned))
                    """, identity, clears.all?.text ?? "", clears.unpinned?.text ?? "")
                changed += db.changes
            }
            if changed > 0 && !db.isInTransaction { _ = try db.checkpointAndTruncate() }
        }
    }

    func save(_ clears: Clears) throws(SyncError) {
        if let all = clears.all { try setMeta("clear-all", all.text) }
        if let unpinned = clears.unpinned { try setMeta("clear-unpinned", unpinned.text) }
    }

    // MARK: - Files

    struct FileRecord {
        var path: String
        var size: Int
        var modified: Double
        var status: String
        var reason: String?
        var operations: Int
        var seen: Date
    }

    func file(_ path: String) throws(SyncError) -> FileRecord? {
        try run { () throws -> FileRecord? in
            guard let row = try db.row("SELECT * FROM files WHERE path = ?", path) else { return nil }
            return Self.fileRecord(row)
        }
    }

    static func fileRecord(_ row: Row) -> FileRecord {
        FileRecord(
            path: row.string("path") ?? "", size: Int(row.int("size") ?? 0), modified: row.double("mtime") ?? 0,
            status: row.string("status") ?? "", reason: row.string("reason"), operations: Int(row.int("operations") ?? 0),
            seen: Date(timeIntervalSince1970: row.double("seen") ?? 0))
    }

    func noteFile(_ path: String, folder: SyncFolder, status: String, reason: String?, operations: Int, now: Date) throws(SyncError) {
        let attributes = folder.attributes(path)
        if status == "rejected", try file(path)?.status != "rejected" {
            var count = rejectedRows ?? 0
            if rejectedRows == nil {
                count = try run { Int(try db.row("SELECT count(*) AS n FROM files WHERE status = 'rejected'")?.int("n") ?? 0) }
            }
            guard count < maxRejectedRows else {
                rejectedRows = count
                // An earlier row of it (applied, say) no longer says what it is.
                try run { try db.run("DELETE FROM files WHERE path = ?", path) }
                return
            }
            rejectedRows = count + 1
        } else if rejectedRows != nil, try file(path)?.status == "rejected" {
            rejectedRows = nil  // a rejected file now applied: counted again when needed
        }
        try run {
            try db.run(
                """
                INSERT INTO files(path, size, mtime, status, reason, operations, seen) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime, status = excluded.status,
                    reason = excluded.reason, operations = excluded.operations, seen = excluded.seen
                """, path, attributes?.size ?? -1, attributes?.modified ?? 0, status, reason, operations,
                now.timeIntervalSince1970)
        }
    }

    func rejectedFiles() throws(SyncError) -> [FileRecord] {
        try run { try db.rows("SELECT * FROM files WHERE status = 'rejected' ORDER BY path").map(Self.fileRecord) }
    }

    func forgetFile(_ path: String) throws(SyncError) {
        rejectedRows = nil
        try run { try db.run("DELETE FROM files WHERE path = ?", path) }
    }

    // MARK: - Devices

    struct DeviceRecord {
        var device: DeviceID
        var clock: HybridClock
        var seen: Date
    }

    func noteDevice(_ device: DeviceID, clock: HybridClock, seen: Date) throws(SyncError) {
        try run {
            try db.run(
                """
                INSERT INTO devices(device, clock, seen) VALUES (?, ?, ?)
                ON CONFLICT(device) DO UPDATE SET clock = max(clock, excluded.clock), seen = max(seen, excluded.seen)
                """, device.rawValue, clock.text, seen.timeIntervalSince1970)
        }
    }

    func devices() throws(SyncError) -> [DeviceRecord] {
        try run {
            try db.rows("SELECT * FROM devices ORDER BY device").compactMap { row throws -> DeviceRecord? in
                guard let device = row.string("device").flatMap(DeviceID.init(rawValue:)), let text = row.string("clock") else {
                    return nil
                }
                return DeviceRecord(device: device, clock: try HybridClock(text: text), seen: Date(timeIntervalSince1970: row.double("seen") ?? 0))
            }
        }
    }

    /// The meta entries whose key starts with `prefix`, by key, the prefix dropped.
    func metas(prefix: String) throws(SyncError) -> [String: String] {
        try run {
            var result: [String: String] = [:]
            for row in try db.rows("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?", prefix.utf8.count, prefix) {
                guard let key = row.string("key"), let value = row.string("value") else { continue }
                result[String(key.dropFirst(prefix.count))] = value
            }
            return result
        }
    }

    /// Per device, the highest of its segments applied here (or held through a snapshot or a compacted segment).
    func highestApplied() throws(SyncError) -> [String: Int] {
        try run {
            var result: [String: Int] = [:]
            for row in try db.rows("SELECT device, sequence FROM floors") {
                guard let device = row.string("device"), let sequence = row.int("sequence") else { continue }
                result[device] = Int(sequence)
            }
            let statement = try db.prepare("SELECT path FROM files WHERE status = 'applied' AND path LIKE 'devices/%.pblog'")
            while let row = try statement.step() {
                guard let place = row.string("path").flatMap(SyncFolder.parseSegmentPath) else { continue }
                result[place.device.rawValue] = max(result[place.device.rawValue] ?? 0, place.sequence)
            }
            return result
        }
    }

    /// Forgets every rejected file, so that each is read again (this device took up a new key).
    func forgetRejectedFiles() throws(SyncError) {
        rejectedRows = nil
        try run { try db.run("DELETE FROM files WHERE status = 'rejected'") }
    }

    func pendingCount() throws(SyncError) -> Int {
        try run { Int(try db.row("SELECT count(*) AS n FROM entries WHERE pending")?.int("n") ?? 0) }
    }

    /// Forgets everything but the local-only marks (`pb sync leave`).
    func reset() throws(SyncError) {
        rejectedRows = nil
        try run {
            try db.execute(
                "DELETE FROM entries; DELETE FROM files; DELETE FROM devices; DELETE FROM meta; DELETE FROM floors; DELETE FROM own_payloads")
            _ = try db.checkpointAndTruncate()
        }
    }
}
