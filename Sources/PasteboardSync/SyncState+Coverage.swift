import FoundationEssentials
import SQLiteSupport

/// Which of each device's segments this device's merged state holds (what a snapshot written here covers), and the
/// payload files this device wrote.
extension SyncState {
    /// Per device, the sequence up to which every one of its segments has been taken in here: a snapshot or a
    /// compacted segment taken in raises it at once (its *floor*); from there, segments applied one after another
    /// extend it. This device's own log is all here, up to `ownSequence`.
    func coverage(own device: DeviceID, ownSequence: Int) throws(SyncError) -> [DeviceID: Int] {
        try run {
            var result: [DeviceID: Int] = [:]
            for row in try db.rows("SELECT device, sequence FROM floors") {
                guard let device = row.string("device").flatMap(DeviceID.init(rawValue:)), let sequence = row.int("sequence") else { continue }
                result[device] = Int(sequence)
            }
            var applied: [DeviceID: Set<Int>] = [:]
            let statement = try db.prepare("SELECT path FROM files WHERE status = 'applied' AND path LIKE 'devices/%.pblog'")
            while let row = try statement.step() {
                guard let place = row.string("path").flatMap(SyncFolder.parseSegmentPath) else { continue }
                applied[place.device, default: []].insert(place.sequence)
            }
            for (device, sequences) in applied {
                var covered = result[device] ?? 0
                while sequences.contains(covered + 1) { covered += 1 }
                if covered > 0 { result[device] = covered }
            }
            if ownSequence > 0 { result[device] = ownSequence }
            return result
        }
    }

    /// The sequence up to which every segment of `device` was taken in through a snapshot or compacted segment.
    func floor(_ device: DeviceID) throws(SyncError) -> Int {
        try run { Int(try db.row("SELECT sequence FROM floors WHERE device = ?", device.rawValue)?.int("sequence") ?? 0) }
    }

    func raiseFloor(_ device: DeviceID, to sequence: Int) throws(SyncError) {
        try run {
            try db.run(
                """
                INSERT INTO floors(device, sequence) VALUES (?, ?)
                ON CONFLICT(device) DO UPDATE SET sequence = max(sequence, excluded.sequence)
                """, device.rawValue, sequence)
        }
    }

    // MARK: - Payload files written here

    func noteOwnPayload(_ name: String) throws(SyncError) {
        try run { try db.run("INSERT INTO own_payloads(name) VALUES (?) ON CONFLICT DO NOTHING", name) }
    }

    /// The payload files this device wrote, with since when no item sync knows refers to them (nil: one does).
    func ownPayloads() throws(SyncError) -> [(name: String, unreferenced: Date?)] {
        try run {
            try db.rows("SELECT name, unreferenced FROM own_payloads ORDER BY name").compactMap { row in
                guard let name = row.string("name") else { return nil }
                return (name, row.double("unreferenced").map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    func markOwnPayload(_ name: String, unreferencedSince date: Date?) throws(SyncError) {
        try run { try db.run("UPDATE own_payloads SET unreferenced = ? WHERE name = ?", date?.timeIntervalSince1970, name) }
    }

    func forgetOwnPayload(_ name: String) throws(SyncError) {
        try run { try db.run("DELETE FROM own_payloads WHERE name = ?", name) }
    }

    /// Where a walk over every entry in copy order stands: after the entry `rowid`, whose copy is `copy` (nil while
    /// the entries without a copy are walked, which come first).
    struct CopyOrderCursor: Equatable {
        var copy: String?
        var rowid: Int64
    }

    /// Every entry, a page at a time, in the order of their copies (the entries without a copy first, a delete or a
    /// pin of an item this device never saw copied): for writing a snapshot. A device that joins takes the snapshot
    /// in in that order and places its items in the same order, so its sync state is then read and written a page
    /// after another, not at random. Returns the page and the cursor for the next (nil at the end).
    func entriesInCopyOrder(after cursor: CopyOrderCursor?, limit: Int) throws(SyncError) -> (entries: [Entry], next: CopyOrderCursor?) {
        try run { () throws -> ([Entry], CopyOrderCursor?) in
            var cursor = cursor ?? CopyOrderCursor(copy: nil, rowid: 0)
            var entries: [Entry] = []
            if cursor.copy == nil {
                let rows = try db.rows(
                    "SELECT rowid AS entry_rowid, * FROM entries WHERE copy IS NULL AND rowid > ? ORDER BY rowid LIMIT ?",
                    cursor.rowid, limit)
                entries = try rows.map(Self.entry)
                if rows.count == limit, let last = rows.last?.int("entry_rowid") {
                    return (entries, CopyOrderCursor(copy: nil, rowid: last))
                }
                cursor = CopyOrderCursor(copy: "", rowid: 0)  // every copy sorts after the empty text
            }
            let rows = try db.rows(
                "SELECT rowid AS entry_rowid, * FROM entries WHERE (copy, rowid) > (?, ?) ORDER BY copy, rowid LIMIT ?",
                cursor.copy ?? "", cursor.rowid, limit - entries.count)
            entries += try rows.map(Self.entry)
            guard entries.count == limit, let last = rows.last, let copy = last.string("copy"), let rowid = last.int("entry_rowid")
            else { return (entries, nil) }
            return (entries, CopyOrderCursor(copy: copy, rowid: rowid))
        }
    }
}
