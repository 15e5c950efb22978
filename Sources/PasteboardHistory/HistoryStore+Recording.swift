import FoundationEssentials
public import PasteboardModel
import SQLiteSupport

extension HistoryStore {
    // MARK: - Recording

    /// Records a copied item. A copy with the identity of an existing item (same types, same bytes, but for
    /// the per-copy noise `ItemIdentity` sees past) moves that item to the top and bumps its count, keeping its pin;
    /// when its bytes differ, the item takes the copy's (see `replaceRepresentations`).
    @discardableResult
    public func record(_ item: PasteboardItem, metadata: CaptureMetadata = CaptureMetadata()) throws(HistoryError) -> RecordResult {
        guard !item.isEmpty else {
            throw HistoryError(.invalidInput, "Nothing to record: the item has no content.")
        }
        let prepared = try item.representations.map { representation throws(HistoryError) in
            (representation.type, try prepareBlob(representation))
        }
        return try record(item, metadata: metadata, prepared: prepared)
    }

    /// Records a copied item whose payloads are already in the store (`prepared`, one per representation, in
    /// order), so that a caller which just stored them does not hash and copy them a second time.
    func record(
        _ item: PasteboardItem, metadata: CaptureMetadata, prepared: [(ContentType, PreparedBlob)]
    ) throws(HistoryError) -> RecordResult {
        try metadata.validateDates()
        let identity = ItemIdentity.of(item, addresses: prepared.map { $0.1.hash })
        let textType = ItemText.textType(of: item)
        let derived: PreparedBlob? = textType == nil ? try prepareBlob(Data(ItemText.derivedText(of: item).utf8)) : nil
        let kind = ItemText.kind(of: item)
        let date = metadata.date.timeIntervalSince1970

        let result = try write { () throws -> RecordResult in
            let position = try nextPosition()
            // While the search index lags behind (see HistoryStore+SearchBacklog.swift), a new position joins the
            // backlog and is indexed with it.
            let indexedThrough = try searchIndexedThrough()
            if let existing = try db.row(
                "SELECT id, position, text_blob, last_copied FROM items WHERE identity = ?", identity),
                let id = existing.int("id"), let oldPosition = existing.int("position")
            {
                var textBlob = existing.int("text_blob")
                var removedFromIndex = false
                removedFromIndex = try removeFromSearchIndex(
                    position: oldPosition, itemID: id, textBlob: textBlob, indexedThrough: indexedThrough)
                // The same content with other bytes (see ItemIdentity): the item keeps the newest.
                if date >= existing.double("last_copied") ?? 0, try representationsDiffer(id: id, from: prepared) {
                    let replaced = try replaceRepresentations(
                        id: id, with: prepared, textType: textType, derived: derived, kind: kind, size: item.byteCount)
                    if removedFromIndex && replaced != textBlob { residue.noteIndexTombstone() }
                    textBlob = replaced
                }
                if indexedThrough == nil, let text = try searchEntry(itemID: id, textBlob: textBlob) {
                    try addSearchEntry(position: position, text: text)
                }
                // A merge never shortens what the item already had (see `mergeSQL`).
                try db.run(
                    Self.mergeSQL, position, date, max(1, metadata.copyCount), metadata.isPinned, metadata.source, metadata.selection,
                    metadata.isPinned, metadata.expiresAt?.timeIntervalSince1970, metadata.expiresAt?.timeIntervalSince1970,
                    metadata.asksBeforePaste, metadata.created?.timeIntervalSince1970, id)
                try noteChange(.repeated, itemID: id)
                return RecordResult(id: id, isNew: false)
            }
            // One text alone stays in the item's row (InlineText.swift); anything else in payload rows.
            let inline = Self.keepsTextInline(prepared, textType: textType)
            let (blobIDs, textBlob) = inline ? ([], nil) : try retainBlobs(of: prepared, textType: textType, derived: derived)
            let columns = inline ? try inlineTextColumns(prepared[0].1, type: prepared[0].0) : nil
            try db.run(
                """
                INSERT INTO items(position, identity, created, last_copied, copy_count, pinned, kind, size,
                    text_blob, source, selection, expires_at, ask_before_paste, text_data, text_packing, text_type)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, position, identity, Self.storedCreated(metadata.created, lastCopied: date), date, max(1, metadata.copyCount),
                metadata.isPinned, kind.rawValue, item.byteCount, textBlob,
                metadata.source, metadata.selection, metadata.expiresAt?.timeIntervalSince1970,
                metadata.asksBeforePaste, columns?.data, columns?.packing, columns?.type)
            let id = db.lastInsertRowID
            for (ordinal, (type, _)) in prepared.enumerated() where !inline {
                try db.run(
                    "INSERT INTO representations(item_id, ordinal, type_id, blob_id) VALUES (?, ?, ?, ?)",
                    id, ordinal, try typeID(type), blobIDs[ordinal])
            }
            if (textBlob != nil || inline) && indexedThrough == nil {
                let text: String
                if let textType, let representation = item.representation(forType: textType) {
                    text = ItemText.indexString(representation.prefix(ItemText.indexedPrefix))
                } else {
                    text = ItemText.indexString(derived?.inline ?? Data())
                }
                try addSearchEntry(position: position, text: text)
            }
            try noteChange(.added, itemID: id)
            return RecordResult(id: id, isNew: true)
        }
        if let retention, !retention.isUnlimited, !db.isInTransaction {
            // Not purged here: that would rewrite the search index on every copy (see `Residue`).
            _ = try retire(retention, now: Date())
        }
        return result
    }

    /// Takes a reference on every prepared payload (in order), and one more on the item's text: the payload of
    /// `textType`, or `derived` (the text made for an item without one). Inside a write transaction.
    func retainBlobs(
        of prepared: [(ContentType, PreparedBlob)], textType: ContentType?, derived: PreparedBlob?
    ) throws -> (blobIDs: [Int64], textBlob: Int64?) {
        var textBlob: Int64?
        var blobIDs: [Int64] = []
        for (type, blob) in prepared {
            let blobID = try retainBlob(blob)
            blobIDs.append(blobID)
            if type == textType { textBlob = blobID }
        }
        if let textBlob {
            try db.run("UPDATE blobs SET refcount = refcount + 1 WHERE id = ?", textBlob)
        } else if let derived {
            textBlob = try retainBlob(derived)
        }
        return (blobIDs, textBlob)
    }

    /// The update merging a repeat into an existing item. A merge never shortens what the item already had: a pin
    /// wins over any expiry, an item that was kept for good stays so, and of two expiries the later one holds (the
    /// right-hand sides see the row as it was before this update). Dates keep the later last copy and the earlier
    /// creation, so that a repeat dated in the past (an imported line, another device's copy) can never age an item
    /// into `max-age`'s reach. Parameters: position, date, copy count, pinned, source, selection, pinned, expiry,
    /// expiry, ask before paste, created (or NULL), id. `created` stays NULL while it is the last copy's date
    /// (see `storedCreated`).
    static let mergeSQL = """
        UPDATE items SET position = ?, last_copied = max(last_copied, ?), copy_count = copy_count + ?,
            pinned = pinned OR ?,
            source = coalesce(?, source), selection = coalesce(?, selection),
            expires_at = CASE WHEN pinned OR ? OR ? IS NULL OR expires_at IS NULL THEN NULL
                ELSE max(expires_at, ?) END,
            ask_before_paste = ask_before_paste OR ?,
            created = nullif(min(coalesce(created, last_copied), coalesce(?, created, last_copied)),
                max(last_copied, ?2))
        WHERE id = ?
        """

    /// What `items.created` holds for an item first copied at `created` and last at `lastCopied`: NULL when the
    /// two are one date (schema 15), as for every item copied once; readers read `coalesce(created, last_copied)`.
    static func storedCreated(_ created: Date?, lastCopied: Double) -> Double? {
        guard let created = created?.timeIntervalSince1970, created != lastCopied else { return nil }
        return created
    }

    /// The position of the next copy: above every item, and above the search backlog's mark (when the items above
    /// it were deleted, a new one must still be above it, see HistoryStore+SearchBacklog.swift).
    func nextPosition() throws -> Int64 {
        let sql = "SELECT max(coalesce((SELECT max(position) FROM items), 0), "
            + "coalesce((SELECT indexed_through FROM search_backlog WHERE id = 1), 0)) + 1 AS next"
        return (try db.row(sql)?.int("next")) ?? 1
    }

    // MARK: - Pins

    /// Pins or unpins an item; pinned items are exempt from retention.
    public func setPinned(_ isPinned: Bool, id: Int64) throws(HistoryError) {
        try setPinned(isPinned, ids: [id])
    }

    /// Pins or unpins every item in `ids`, or none: when one id does not exist, nothing changes and the
    /// error names every missing id.
    public func setPinned(_ isPinned: Bool, ids: [Int64]) throws(HistoryError) {
        try write {
            let missing = try ids.filter { try db.row("SELECT 1 AS found FROM items WHERE id = ?", $0) == nil }
            if !missing.isEmpty { throw Self.noSuchItems(missing) }
            for id in ids {
                try db.run("UPDATE items SET pinned = ? WHERE id = ?", isPinned, id)
                try noteChange(isPinned ? .pinned : .unpinned, itemID: id)
            }
        }
    }

    /// The error for ids that name no item: "No history item with id 7." or "No history items with ids 7, 9."
    static func noSuchItems(_ ids: [Int64]) -> HistoryError {
        let list = ids.prefix(20).map(String.init).joined(separator: ", ") + (ids.count > 20 ? ", …" : "")
        return HistoryError(.noSuchItem, ids.count == 1 ? "No history item with id \(list)." : "No history items with ids \(list).")
    }

    // MARK: - Deleting

    /// Deletes items by id; their payloads go too unless something else still references them. When the headless
    /// `general` pasteboard holds one of them, it is emptied: a deleted item is never pasted again. Nothing of them
    /// stays readable (see `purge()`); with `deferringPurge`, the write-ahead log and the search index are wiped
    /// later, by the next purge (for a capture loop that replaces an item with a longer version of itself).
    @discardableResult
    public func delete(ids: [Int64], deferringPurge: Bool = false) throws(HistoryError) -> Int {
        let mark = residue.generation
        let count = try write { () throws -> Int in
            if let general = try pasteboardIdentity(PasteboardName.general.rawValue) {
                for id in ids {
                    guard try db.row("SELECT identity FROM items WHERE id = ?", id)?.data("identity") == general else {
                        continue
                    }
                    try clearPasteboardInTransaction(PasteboardName.general.rawValue)
                    break
                }
            }
            return try deleteInTransaction(ids: ids)
        }
        if !deferringPurge { try purge(ifFreedSince: mark) }
        return count
    }

    /// Deletes every item in `ids`, or none: when one id does not exist, nothing is deleted and the error
    /// names every missing id. Returns how many items were deleted (repeated ids count once). Deleting goes
    /// as `delete(ids:)` goes: the clipboard holding one is emptied, and nothing of them stays on disk.
    @discardableResult
    public func deleteAll(ids: [Int64]) throws(HistoryError) -> Int {
        var unique: [Int64] = []
        for id in ids where !unique.contains(id) { unique.append(id) }
        let missing = try perform { () throws -> [Int64] in
            try unique.filter { try db.row("SELECT 1 AS found FROM items WHERE id = ?", $0) == nil }
        }
        if !missing.isEmpty { throw Self.noSuchItems(missing) }
        return try delete(ids: unique)
    }

    /// Deletes one item, failing when it does not exist.
    public func delete(id: Int64) throws(HistoryError) {
        let count = try delete(ids: [id])
        if count == 0 { throw HistoryError(.noSuchItem, "No history item with id \(id).") }
    }

    /// Deletes items inside the caller's transaction; with `updatingIndex` false the caller empties the search index
    /// itself. Each deleted item goes into the change feed as `change` (nil: the caller records the change), or,
    /// past `changeFeedBulk` items at once, as one row with their count.
    func deleteInTransaction(
        ids: [Int64], updatingIndex: Bool = true, change: HistoryChange.Kind? = .deleted
    ) throws -> Int {
        var deleted = 0
        let indexedThrough = updatingIndex ? try searchIndexedThrough() : nil
        for id in ids {
            guard let row = try db.row("SELECT position, text_blob, identity FROM items WHERE id = ?", id),
                let position = row.int("position")
            else { continue }
            // An item of the backlog has no entry to remove (see HistoryStore+SearchBacklog.swift).
            if updatingIndex,
                try removeFromSearchIndex(
                    position: position, itemID: id, textBlob: row.int("text_blob"), indexedThrough: indexedThrough)
            {
                residue.noteIndexTombstone()
                // Its letters go with it (see HistoryStore+SearchBlocks.swift).
                try forgetSearchBlock(position: position)
            }
            if let textBlob = row.int("text_blob") { try releaseBlob(textBlob) }
            try db.run("DELETE FROM recognized_text WHERE item_id = ?", id)
            for rep in try db.rows("SELECT blob_id FROM representations WHERE item_id = ?", id) {
                if let blobID = rep.int("blob_id") { try releaseBlob(blobID) }
            }
            try db.run("DELETE FROM representations WHERE item_id = ?", id)
            try db.run("DELETE FROM paste_log WHERE item_id = ?", id)
            try db.run("DELETE FROM items WHERE id = ?", id)
            residue.noteFreedContent()
            if let change, ids.count <= Self.changeFeedBulk {
                try noteChange(change, itemID: id, identity: row.data("identity"))
            }
            deleted += 1
        }
        if let change, ids.count > Self.changeFeedBulk, deleted > 0 { try noteChange(change, itemID: nil, count: deleted) }
        return deleted
    }

    /// Deletes every item (or every unpinned one) and, unless `keepingClipboard`, empties the headless `general`
    /// pasteboard; returns how many items went. Nothing of them stays readable (see `purge()`).
    @discardableResult
    public func clear(keepPinned: Bool = false, keepingClipboard: Bool = false) throws(HistoryError) -> Int {
        let count = try write { () throws -> Int in
            // The search index is emptied at once ('delete-all' drops every entry, so no tombstone keeps a deleted
            // item's trigrams), then the pinned items that stay are indexed again.
            try db.run("INSERT INTO item_text(item_text) VALUES ('delete-all')")
            try db.run("DELETE FROM search_blocks")
            let indexedThrough = try searchIndexedThrough()
            var total = 0
            while true {
                let sql = keepPinned
                    ? "SELECT id FROM items WHERE NOT pinned ORDER BY position LIMIT 1000"
                    : "SELECT id FROM items ORDER BY position LIMIT 1000"
                let ids = try db.rows(sql).compactMap { $0.int("id") }
                if ids.isEmpty { break }
                total += try deleteInTransaction(ids: ids, updatingIndex: false, change: nil)
            }
            for row in try db.rows(
                "SELECT id, position, text_blob FROM items i WHERE text_blob IS NOT NULL OR text_data IS NOT NULL OR EXISTS "
                    + "(SELECT 1 FROM recognized_text r WHERE r.item_id = i.id AND r.text <> '')")
            {
                guard let id = row.int("id"), let position = row.int("position") else { continue }
                if let indexedThrough, position > indexedThrough { continue }  // still in the backlog
                guard let text = try searchEntry(itemID: id, textBlob: row.int("text_blob")) else { continue }
                try addSearchEntry(position: position, text: text)
            }
            let general = PasteboardName.general.rawValue
            let holdsSomething = try db.row("SELECT 1 FROM pasteboard_items WHERE pasteboard = ? LIMIT 1", general) != nil
            if !keepingClipboard && holdsSomething { try clearPasteboardInTransaction(general) }
            // A dictionary no payload was packed with goes too (one with payloads goes with its last, by trigger).
            try db.run("DELETE FROM packings WHERE id NOT IN (SELECT packing FROM packing_uses WHERE uses > 0)")
            try db.run("DELETE FROM packing_uses WHERE uses <= 0")
            residue.noteFreedContent()
            try noteChange(.cleared, itemID: nil, count: total, keptPinned: keepPinned)
            return total
        }
        try purge()
        return count
    }
}
