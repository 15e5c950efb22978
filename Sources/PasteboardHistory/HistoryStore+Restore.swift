public import FoundationEssentials
public import PasteboardModel
import SQLiteSupport
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Restoring: a past item put back on the clipboard moves to the top of the history and counts a copy, as copying
/// it again would, without its payloads being read, hashed or written again. The bytes are checked against their
/// hash once, when a reader first asks for them.
extension HistoryStore {
    /// What restoring an item did.
    public struct Restoration: Sendable, Equatable {
        public let id: Int64
        /// Its position now: the top of the history.
        public let position: Int64
        /// Whether its pastes wait for the user's answer (which only the daemon can hold).
        public let asksBeforePaste: Bool
    }

    /// Restores item `id`: moves it to the top of the history and counts a copy at `date`, in one small
    /// transaction, as a repeated copy does (the pin and the source stay; the item is kept for good, as after any copy
    /// made without an expiry). With `pasteboard`, that headless pasteboard (`general`) then holds the item, sharing
    /// its stored payloads.
    ///
    /// No payload is read. A payload file must be there with its recorded size: a missing, replaced or cut file
    /// throws `missingPayload` or `damagedPayload` and nothing changes. Whether its bytes still match their hash is
    /// checked when they are served (`restorableItem(id:onDamage:)`, `pasteboardContents(_:)`).
    @discardableResult
    public func restore(id: Int64, onto pasteboard: String? = nil, date: Date = Date()) throws(HistoryError)
        -> Restoration
    {
        var mark = residue.generation
        let restoration = try write { () throws -> Restoration in
            guard let row = try db.row("SELECT ask_before_paste FROM items WHERE id = ?", id) else {
                throw Self.noSuchItems([id])
            }
            let payloads = try storedPayloads(of: id)
            for payload in payloads where payload.isFile {
                let url = files.url(forHash: payload.hash)
                if let problem = Self.problem(
                    files.presence(hash: payload.hash, size: payload.size), url: url, type: payload.type, of: .item(id))
                {
                    throw problem
                }
            }
            let position = try moveToTopInTransaction(id: id)
            try db.run(
                """
                UPDATE items SET created = nullif(coalesce(created, last_copied), ?1), last_copied = ?1,
                    copy_count = copy_count + 1, selection = 'clipboard', expires_at = NULL WHERE id = ?2
                """, date.timeIntervalSince1970, id)
            // The move leaves the search index a tombstone, as a repeated copy does: wiped by the next purge, not by
            // this one (rewriting the index on every restore cost 20 ms).
            mark = residue.generation
            if let pasteboard { try replacePasteboardInTransaction(pasteboard, with: payloads) }
            try noteChange(.restored, itemID: id)
            return Restoration(id: id, position: position, asksBeforePaste: row.int("ask_before_paste") == 1)
        }
        // What the pasteboard held before and nothing else uses is gone for good.
        try purge(ifFreedSince: mark)
        return restoration
    }

    /// Item `id`, ready to be served. Inline payloads (under 64 KiB) are checked against their hash now; a payload
    /// file is only looked at (there, with its recorded size) and checked against its hash when a reader first asks
    /// for its bytes (see `PayloadVerifier`), so putting a 50 MB item on the clipboard reads none of it. A file found
    /// damaged then is not served (the reader gets an error), and `onDamage` hears why.
    public func restorableItem(
        id: Int64, onDamage: @escaping @Sendable (HistoryError) -> Void = { _ in }
    ) throws(HistoryError) -> PasteboardItem {
        try perform { () throws -> PasteboardItem in
            let payloads = try storedPayloads(of: id)
            if payloads.isEmpty { throw HistoryError(.noSuchItem, "No history item with id \(id).") }
            var item = PasteboardItem()
            for payload in payloads {
                guard payload.isFile else {
                    item.setRepresentation(
                        try verifiedRepresentation(
                            hash: payload.hash, size: payload.size, inline: payload.inline, type: payload.type,
                            of: .item(id)))
                    continue
                }
                let url = files.url(forHash: payload.hash)
                let owner = PayloadOwner.item(id)
                if let problem = Self.problem(
                    files.presence(hash: payload.hash, size: payload.size), url: url, type: payload.type, of: owner)
                {
                    throw problem
                }
                let (files, hash, size, contentType) = (files, payload.hash, payload.size, payload.type)
                let check = PayloadVerifier {
                    guard
                        let problem = HistoryStore.problem(
                            files.check(hash: hash, size: size), url: url, type: contentType, of: owner)
                    else { return nil }
                    onDamage(problem)
                    return PasteboardError(.storage, problem.message, cause: problem)
                }
                item.setRepresentation(
                    PasteboardItem.Representation(type: payload.type, fileURL: url, size: payload.size, check: check))
            }
            return item
        }
    }

    // MARK: - Inside the transaction

    /// One representation of an item as stored: its type and its blob (inline bytes, or a file named by the hash).
    struct StoredPayload {
        let typeID: Int64
        let type: ContentType
        /// Nil for an inline text (InlineText.swift): a pasteboard given it stores it as a payload row of its own.
        let blobID: Int64?
        let hash: Data
        let size: Int
        let inline: Data?
        var isFile: Bool { inline == nil }
    }

    /// Item `id`'s representations in order, without reading a payload file; empty when the item does not exist.
    func storedPayloads(of id: Int64) throws -> [StoredPayload] {
        let rows = try db.rows(
            """
            SELECT r.type_id, r.blob_id, b.hash, b.size, pb_unpacked(b.data, b.packing, b.size) AS data FROM representations r
            LEFT JOIN blobs b ON b.id = r.blob_id WHERE r.item_id = ? ORDER BY r.ordinal
            """, id)
        // One text kept in the item's row (InlineText.swift): checked against the item's identity here, so that a
        // damaged one is neither restored nor served.
        if rows.isEmpty, let inline = try inlineRepresentation(of: id) {
            let data = inline.data
            return [
                StoredPayload(
                    typeID: try typeID(inline.type), type: inline.type, blobID: nil, hash: SHA256.address(data),
                    size: data.count, inline: data)
            ]
        }
        return try rows.map { row throws -> StoredPayload in
            let typeID = row.int("type_id") ?? 0
            let blobID = row.int("blob_id") ?? 0
            let type = try type(forID: typeID)
            guard let hash = row.data("hash") else {
                throw PayloadOwner.item(id).error(
                    .missingPayload, type: type, "is missing from the store (payload \(blobID))")
            }
            let inline: Data? = if case .blob(let data) = row["data"] { data } else { nil }
            return StoredPayload(
                typeID: typeID, type: type, blobID: blobID, hash: hash, size: Int(row.int("size") ?? -1), inline: inline
            )
        }
    }

    /// Moves item `id` to the top of the history, keeping the search index in step; returns its position. Inside a
    /// write transaction.
    func moveToTopInTransaction(id: Int64) throws -> Int64 {
        guard let row = try db.row("SELECT position, text_blob FROM items WHERE id = ?", id),
            let oldPosition = row.int("position")
        else { throw Self.noSuchItems([id]) }
        let position = try nextPosition()
        if position == oldPosition + 1,
            try db.row("SELECT 1 AS above FROM items WHERE position > ?", oldPosition) == nil
        {
            return oldPosition  // already the newest
        }
        let textBlob = row.int("text_blob")
        let indexedThrough = try searchIndexedThrough()
        if try removeFromSearchIndex(position: oldPosition, itemID: id, textBlob: textBlob, indexedThrough: indexedThrough) {
            residue.noteIndexTombstone()
        }
        // Otherwise the new position joins the backlog.
        if indexedThrough == nil, let text = try searchEntry(itemID: id, textBlob: textBlob) {
            try addSearchEntry(position: position, text: text)
        }
        try db.run("UPDATE items SET position = ? WHERE id = ?", position, id)
        return position
    }

    /// Makes pasteboard `name` hold one item made of `payloads`, which take one more reference each; what it held
    /// before is released. Inside a write transaction.
    private func replacePasteboardInTransaction(_ name: String, with payloads: [StoredPayload]) throws {
        let previous = try db.rows("SELECT blob_id FROM pasteboard_items WHERE pasteboard = ?", name).compactMap {
            $0.int("blob_id")
        }
        try db.run("DELETE FROM pasteboard_items WHERE pasteboard = ?", name)
        // The new references are taken before the old ones are given up, so a payload held by both never reaches 0.
        for (ordinal, payload) in payloads.enumerated() {
            let blobID: Int64
            if let shared = payload.blobID {
                try db.run("UPDATE blobs SET refcount = refcount + 1 WHERE id = ?", shared)
                blobID = shared
            } else {
                blobID = try retainBlob(PreparedBlob(hash: payload.hash, size: payload.size, inline: payload.inline))
            }
            try db.run(
                "INSERT INTO pasteboard_items(pasteboard, item_index, ordinal, type_id, blob_id) VALUES (?, 0, ?, ?, ?)",
                name, ordinal, payload.typeID, blobID)
        }
        for blobID in previous { try releaseBlob(blobID) }
        try db.run(
            """
            INSERT INTO pasteboards(name, change_count, persistent, updated) VALUES (?, 1, 1, ?)
            ON CONFLICT(name) DO UPDATE SET change_count = change_count + 1, updated = excluded.updated
            """, name, Date().timeIntervalSince1970)
    }
}

extension BlobFiles {
    /// Whether the payload file looks right without reading it: a regular file (not through a symbolic link) of
    /// `size` bytes is `intact` here; only `check(hash:size:)` can tell whether its bytes are still the stored ones.
    func presence(hash: Data, size: Int) -> FileState {
        var info = stat()
        if lstat(url(forHash: hash).path, &info) != 0 {
            if errno == ENOENT { return .missing }
            return .unreadable(SystemError.lastReason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notAFile }
        return Int(info.st_size) == size ? .intact : .damaged
    }
}
