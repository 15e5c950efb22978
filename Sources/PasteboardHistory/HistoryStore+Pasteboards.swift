import FoundationEssentials
public import PasteboardModel
import SQLiteSupport
#if canImport(Glibc)
import Glibc
#endif

/// The headless pasteboards: with no display, `general`, `find` and named pasteboards live in the store,
/// shared by every process of the user.
extension HistoryStore {
    /// The contents of a pasteboard.
    public func pasteboardContents(_ name: String) throws(HistoryError) -> PasteboardContents {
        try perform { () throws -> PasteboardContents in
            try purgeOrphanedPasteboard(name)
            guard let board = try db.row("SELECT change_count FROM pasteboards WHERE name = ?", name) else {
                if PasteboardName.isSystem(name) { return PasteboardContents(items: [], changeCount: 0) }
                throw PasteboardError(.noSuchPasteboard, "No pasteboard named '\(name)'.")
            }
            var items: [PasteboardItem] = []
            var current = -1
            for row in try db.rows(
                "SELECT item_index, type_id, blob_id FROM pasteboard_items WHERE pasteboard = ? ORDER BY item_index, ordinal", name)
            {
                let index = Int(row.int("item_index") ?? 0)
                if index != current {
                    items.append(PasteboardItem())
                    current = index
                }
                items[items.count - 1].setRepresentation(
                    try blobRepresentation(
                        row.int("blob_id") ?? 0, type: try type(forID: row.int("type_id") ?? 0), of: .pasteboard(name)))
            }
            return PasteboardContents(items: items, changeCount: Int(board.int("change_count") ?? 0))
        }
    }

    /// The change count of a pasteboard (0 for one never written).
    public func pasteboardChangeCount(_ name: String) throws(HistoryError) -> Int {
        try perform { Int(try db.row("SELECT change_count FROM pasteboards WHERE name = ?", name)?.int("change_count") ?? 0) }
    }

    /// Replaces a pasteboard's contents; with `history` set, the first item is also recorded in the history.
    /// Returns the new change count and the history record.
    @discardableResult
    public func writePasteboard(
        _ items: [PasteboardItem], to name: String, history: CaptureMetadata? = nil
    ) throws(HistoryError) -> (changeCount: Int, record: RecordResult?) {
        let prepared = try items.map { item throws(HistoryError) in
            try item.representations.map { rep throws(HistoryError) in (rep.type, try prepareBlob(rep)) }
        }
        let mark = residue.generation
        let count = try write { () throws -> Int in
            let now = Date().timeIntervalSince1970
            for row in try db.rows("SELECT blob_id FROM pasteboard_items WHERE pasteboard = ?", name) {
                try releaseBlob(row.int("blob_id") ?? 0)
            }
            try db.run("DELETE FROM pasteboard_items WHERE pasteboard = ?", name)
            for (index, reps) in prepared.enumerated() {
                for (ordinal, (type, blob)) in reps.enumerated() {
                    try db.run(
                        "INSERT INTO pasteboard_items(pasteboard, item_index, ordinal, type_id, blob_id) VALUES (?, ?, ?, ?, ?)",
                        name, index, ordinal, try typeID(type), try retainBlob(blob))
                }
            }
            guard let row = try db.row(
                """
                INSERT INTO pasteboards(name, change_count, persistent, updated) VALUES (?, 1, 1, ?)
                ON CONFLICT(name) DO UPDATE SET change_count = change_count + 1, updated = excluded.updated
                RETURNING change_count
                """, name, now)
            else { throw HistoryError(.io, "The pasteboard '\(name)' could not be written.") }
            return Int(row.int("change_count") ?? 0)
        }
        // What the pasteboard held before and nothing else uses is gone for good.
        try purge(ifFreedSince: mark)
        var record: RecordResult?
        if let history, let first = items.first, !first.isEmpty {
            // The payloads are stored already: hashing and copying a large file again would double the work.
            record = try self.record(first, metadata: history, prepared: prepared[0])
        }
        return (count, record)
    }

    /// Creates a pasteboard if it does not exist. A non-persistent one belongs to this process and
    /// disappears once the process has exited.
    public func createPasteboard(_ name: String, persistent: Bool) throws(HistoryError) {
        let pid = Int64(getpid())
        let start = Self.processStartTime(pid)
        try write {
            try db.run(
                """
                INSERT INTO pasteboards(name, change_count, persistent, owner_pid, owner_start, updated)
                VALUES (?, 0, ?, ?, ?, ?) ON CONFLICT(name) DO NOTHING
                """, name, persistent, persistent ? nil : pid, persistent ? nil : start, Date().timeIntervalSince1970)
        }
    }

    /// Whether the pasteboard exists (the system ones always do).
    public func pasteboardExists(_ name: String) throws(HistoryError) -> Bool {
        if PasteboardName.isSystem(name) { return true }
        return try perform {
            try purgeOrphanedPasteboard(name)
            return try db.row("SELECT 1 FROM pasteboards WHERE name = ?", name) != nil
        }
    }

    /// Whether the pasteboard outlives its creator.
    public func pasteboardIsPersistent(_ name: String) throws(HistoryError) -> Bool {
        try perform { (try db.row("SELECT persistent FROM pasteboards WHERE name = ?", name)?.int("persistent") ?? 1) == 1 }
    }

    /// Removes a pasteboard and releases its payloads.
    public func removePasteboard(_ name: String) throws(HistoryError) {
        let mark = residue.generation
        try write { try removePasteboardInTransaction(name) }
        try purge(ifFreedSince: mark)
    }

    /// Names of existing pasteboards.
    public func pasteboardNames() throws(HistoryError) -> [String] {
        try perform {
            let names = try db.rows("SELECT name FROM pasteboards ORDER BY name").compactMap { $0.string("name") }
            for name in names { try purgeOrphanedPasteboard(name) }
            return try db.rows("SELECT name FROM pasteboards ORDER BY name").compactMap { $0.string("name") }
        }
    }

    /// The history identity of a pasteboard's first item, if it holds one.
    func pasteboardIdentity(_ name: String) throws -> Data? {
        let rows = try db.rows(
            """
            SELECT t.identifier, b.id, b.hash, b.size, b.data IS NULL AS in_file FROM pasteboard_items p
            JOIN content_types t ON t.id = p.type_id JOIN blobs b ON b.id = p.blob_id
            WHERE p.pasteboard = ? AND p.item_index = 0 ORDER BY p.ordinal
            """, name)
        if rows.isEmpty { return nil }
        var identity = ItemIdentity()
        for row in rows {
            guard let identifier = row.string("identifier"), let hash = row.data("hash") else { continue }
            identity.add(ContentType(identifier), address: hash, size: Int(row.int("size") ?? 0)) {
                // Only a payload with a volatile field, and a small one, is read (see ItemIdentity).
                if row.int("in_file") == 1 {
                    do { return Array(try Data(contentsOf: files.url(forHash: hash))) } catch { return nil }
                }
                do {
                    let stored = try db.row("SELECT pb_unpacked(data, packing, size) AS data FROM blobs WHERE id = ?", row.int("id") ?? 0)
                    return stored?.data("data").map(Array.init)
                } catch {
                    return nil
                }
            }
        }
        return identity.value
    }

    /// Empties a pasteboard (a change like any other).
    func clearPasteboardInTransaction(_ name: String) throws {
        for row in try db.rows("SELECT blob_id FROM pasteboard_items WHERE pasteboard = ?", name) {
            try releaseBlob(row.int("blob_id") ?? 0)
        }
        try db.run("DELETE FROM pasteboard_items WHERE pasteboard = ?", name)
        try db.run("UPDATE pasteboards SET change_count = change_count + 1, updated = ? WHERE name = ?", Date().timeIntervalSince1970, name)
    }

    func removePasteboardInTransaction(_ name: String) throws {
        for row in try db.rows("SELECT blob_id FROM pasteboard_items WHERE pasteboard = ?", name) {
            try releaseBlob(row.int("blob_id") ?? 0)
        }
        try db.run("DELETE FROM pasteboard_items WHERE pasteboard = ?", name)
        try db.run("DELETE FROM pasteboards WHERE name = ?", name)
    }

    /// Removes a non-persistent pasteboard whose creating process is gone.
    func purgeOrphanedPasteboard(_ name: String) throws {
        guard let row = try db.row("SELECT owner_pid, owner_start FROM pasteboards WHERE name = ? AND NOT persistent", name),
            let pid = row.int("owner_pid")
        else { return }
        if Self.processStartTime(pid) == row.string("owner_start") && Self.processStartTime(pid) != nil { return }
        try write { try removePasteboardInTransaction(name) }  // joins an open transaction if there is one
    }

    /// The start time of a process (field 22 of /proc/PID/stat), to tell a live owner from a reused pid.
    static func processStartTime(_ pid: Int64) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name, field 3 (state) is at index 0; field 22 (starttime) is at index 19.
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
