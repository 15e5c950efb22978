import FoundationEssentials
import PasteboardModel
import SQLiteSupport

/// A repeat whose bytes differ: the same content (one identity, see `ItemIdentity`) copied again with other
/// per-copy noise (LibreOffice's random ids, temporary paths, zip times). The item takes the newest bytes of every
/// type, so that what is pasted back is what the application offered last.
extension HistoryStore {
    /// Whether item `id`'s representations differ from `prepared`, by type, order or bytes. Inside a transaction.
    func representationsDiffer(id: Int64, from prepared: [(ContentType, PreparedBlob)]) throws -> Bool {
        let rows = try db.rows(
            """
            SELECT r.type_id, b.hash FROM representations r LEFT JOIN blobs b ON b.id = r.blob_id
            WHERE r.item_id = ? ORDER BY r.ordinal
            """, id)
        if rows.isEmpty, let differs = try inlineTextDiffers(id: id, from: prepared) { return differs }
        guard rows.count == prepared.count else { return true }
        for (row, (type, blob)) in zip(rows, prepared) {
            guard row.int("type_id") == (try typeID(type)), row.data("hash") == blob.hash else { return true }
        }
        return false
    }

    /// Replaces item `id`'s representations with `prepared` (and its text with that of `textType`, else with
    /// `derived`), inside the caller's transaction; returns the item's new text blob.
    ///
    /// The new payloads are referenced before the old ones are released, so a payload both share is never dropped
    /// on the way. An old payload nothing else uses goes as a deleted item's does: its row at once (overwritten by
    /// secure_delete), its file once the transaction commits, and what the write-ahead log still holds at the next
    /// purge (the daemon's, or any deleting command's). The caller updates the search index.
    func replaceRepresentations(
        id: Int64, with prepared: [(ContentType, PreparedBlob)], textType: ContentType?, derived: PreparedBlob?,
        kind: HistoryItem.Kind, size: Int
    ) throws -> Int64? {
        let oldBlobs = try db.rows("SELECT blob_id FROM representations WHERE item_id = ?", id).compactMap {
            $0.int("blob_id")
        }
        let oldText = try db.row("SELECT text_blob FROM items WHERE id = ?", id)?.int("text_blob")
        let (blobIDs, textBlob) = try retainBlobs(of: prepared, textType: textType, derived: derived)
        for blobID in oldBlobs { try releaseBlob(blobID) }
        if let oldText { try releaseBlob(oldText) }
        try db.run("DELETE FROM representations WHERE item_id = ?", id)
        for (ordinal, (type, _)) in prepared.enumerated() {
            try db.run(
                "INSERT INTO representations(item_id, ordinal, type_id, blob_id) VALUES (?, ?, ?, ?)",
                id, ordinal, try typeID(type), blobIDs[ordinal])
        }
        // An inline text (InlineText.swift) goes with the rest: the item now keeps its payloads in rows.
        try db.run(
            "UPDATE items SET kind = ?, size = ?, text_blob = ?, text_data = NULL, text_packing = NULL, text_type = NULL "
                + "WHERE id = ?", kind.rawValue, size, textBlob, id)
        return textBlob
    }
}
