import FoundationEssentials
import PasteboardModel
import SQLiteSupport

/// An item made of one text keeps it in its own row (schema 14): `items.text_data`, packed as a payload row is
/// (`text_packing`), and `items.text_type`, with no payload row, hash or representation row. Most of a history is
/// such items: a million short texts take 0.57× of their size less this way (bench/scale_bench.py).
///
/// - **Which items:** one representation, the item's text (`ItemText.textType`), small enough to stay in the
///   database (below `BlobFiles.fileThreshold`), of a type whose identity is the plain digest of its bytes (nothing
///   `VolatileContent` treats). Everything else keeps payload rows, as before; so does an item that later takes
///   other bytes (`replaceRepresentations`).
/// - **Checking:** the item's identity is `ItemIdentity.digest` of its one type and its text's SHA-256, so reading
///   the text back checks it against the identity (`verifiedInlineText`), as a payload row's bytes are checked
///   against their hash.
/// - **Readers** of an item's text read it through `textHashSQL`, `textInFileSQL` and `textBytesSQL`, over
///   `items i LEFT JOIN blobs b ON b.id = i.text_blob`: the inline text when there is one, else the payload row's.
extension HistoryStore {
    /// The item's text payload hash: a payload row's, an empty blob for an inline text, NULL for no text.
    static let textHashSQL = "iif(i.text_data IS NULL, b.hash, x'')"
    /// Whether the item's text lives in a file (1), as `b.data IS NULL` said before inline texts.
    static let textInFileSQL = "(i.text_data IS NULL AND b.data IS NULL)"
    /// The item's text bytes, unpacked: inline, else its payload row's.
    static let textBytesSQL =
        "coalesce(pb_unpacked(i.text_data, i.text_packing, i.size), pb_unpacked(b.data, b.packing, b.size))"

    /// Whether an item of `prepared` keeps its text in its row: see the type's comment.
    static func keepsTextInline(_ prepared: [(ContentType, PreparedBlob)], textType: ContentType?) -> Bool {
        guard prepared.count == 1, let (type, blob) = prepared.first, type == textType, blob.inline != nil else {
            return false
        }
        return VolatileContent.treatment(of: type) == nil
    }

    /// The inline text of item `id` as a representation, checked against the item's identity; nil when the item
    /// keeps no inline text. Throws `damagedPayload` when the bytes no longer match.
    func inlineRepresentation(of id: Int64) throws -> PasteboardItem.Representation? {
        guard let (type, data, identity) = try inlineText(of: id) else { return nil }
        try verifiedInlineText(data, type: type, identity: identity, of: id)
        return PasteboardItem.Representation(type: type, data: data)
    }

    /// Item `id`'s inline text, unchecked, with its type and the item's identity; nil when it keeps none.
    func inlineText(of id: Int64) throws -> (type: ContentType, data: Data, identity: Data)? {
        guard
            let row = try db.row(
                "SELECT identity, text_type, pb_unpacked(text_data, text_packing, size) AS data FROM items "
                    + "WHERE id = ? AND text_data IS NOT NULL", id),
            let typeID = row.int("text_type")
        else { return nil }
        return (try type(forID: typeID), row.data("data") ?? Data(), row.data("identity") ?? Data())
    }

    /// Whether item `id`'s inline text differs from `prepared` (a copy with the same identity): nil when the item
    /// keeps no inline text. Damaged bytes differ from any copy, which then replaces them.
    func inlineTextDiffers(id: Int64, from prepared: [(ContentType, PreparedBlob)]) throws -> Bool? {
        guard let inline = try inlineText(of: id) else { return nil }
        guard prepared.count == 1, let (type, blob) = prepared.first else { return true }
        return type != inline.type || blob.hash != SHA256.address(inline.data)
    }

    /// Checks an inline text against the identity of the item `id` that holds it.
    func verifiedInlineText(_ data: Data, type: ContentType, identity: Data, of id: Int64) throws(HistoryError) {
        guard Self.inlineTextMatches(data, type: type, identity: identity) else {
            throw PayloadOwner.item(id).error(.damagedPayload, type: type, Self.damagedInlineTextProblem)
        }
    }

    static func inlineTextMatches(_ data: Data, type: ContentType, identity: Data) -> Bool {
        ItemIdentity.digest([(type, SHA256.address(data))]) == identity
    }

    static let damagedInlineTextProblem = "is damaged: its bytes no longer match the item's identity (their SHA-256)"

    /// The index string of item `id`'s inline text (its indexed prefix); nil when it keeps none.
    func inlineIndexString(of id: Int64) throws -> String? {
        let row = try db.row(
            "SELECT substr(pb_unpacked(text_data, text_packing, size), 1, ?) AS head FROM items "
                + "WHERE id = ? AND text_data IS NOT NULL", ItemText.indexedPrefix, id)
        return row.map { ItemText.indexString($0.data("head") ?? Data()) }
    }

    /// A new item's inline text columns (`text_data`, `text_packing`, `text_type`) for `blob` of `type`. Inside a
    /// write transaction: packing may learn the store's dictionary first, and the type may be new to the store.
    func inlineTextColumns(_ blob: PreparedBlob, type: ContentType) throws -> (data: Data, packing: Int64?, type: Int64) {
        let (stored, packing) = try self.packing.packed(blob.inline ?? Data())
        return (stored, packing, try typeID(type))
    }
}

extension HistoryStore {
    /// Items read by one transaction of `moveTextsIntoItemRows`, at most.
    public static let inliningBatch = 4096

    /// Moves the text of every item stored before schema 14 that is made of one text (`keepsTextInline` would keep
    /// it in its row today) from its payload row into the item's row, as a copy made now stores it: `pb prune
    /// --vacuum` runs it, and the vacuum then returns the pages. Each text is checked against the item's identity
    /// first; one that does not match stays where it is (`pb doctor --check` reports it). A payload row another item
    /// or a pasteboard still uses stays too. The items are read in order of id, `batch` at a time, each batch in its
    /// own write transaction. Returns how many items moved their text.
    @discardableResult
    public func moveTextsIntoItemRows(batch: Int = inliningBatch) throws(HistoryError) -> Int {
        precondition(batch > 0, "moveTextsIntoItemRows(batch:) of nothing")  // programmer error
        var moved = 0
        var after: Int64 = 0
        while true {
            let isLast = try write { () throws -> Bool in
                let through = after + Int64(batch)
                // One representation, which is also the item's text, kept in the database.
                let rows = try db.rows(
                    """
                    SELECT i.id, i.identity, r.type_id, b.id AS blob, b.data, b.packing,
                        pb_unpacked(b.data, b.packing, b.size) AS bytes
                    FROM items i JOIN representations r ON r.item_id = i.id AND r.ordinal = 0
                        JOIN blobs b ON b.id = r.blob_id
                    WHERE i.id > ? AND i.id <= ? AND i.text_data IS NULL AND i.text_blob = r.blob_id
                        AND b.data IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM representations o WHERE o.item_id = i.id AND o.ordinal <> 0)
                    ORDER BY i.id
                    """, after, through)
                after = through
                for row in rows {
                    guard let id = row.int("id"), let typeID = row.int("type_id"), let blob = row.int("blob"),
                        let stored = row.data("data")
                    else { continue }
                    let type = try type(forID: typeID)
                    let bytes = row.data("bytes") ?? Data()
                    guard VolatileContent.treatment(of: type) == nil,
                        Self.inlineTextMatches(bytes, type: type, identity: row.data("identity") ?? Data())
                    else { continue }
                    try db.run(
                        "UPDATE items SET text_data = ?, text_packing = ?, text_type = ?, text_blob = NULL WHERE id = ?",
                        stored, row.int("packing"), typeID, id)
                    try db.run("DELETE FROM representations WHERE item_id = ?", id)
                    // Its two references: the representation and the item's text.
                    try releaseBlob(blob)
                    try releaseBlob(blob)
                    moved += 1
                }
                return try db.row("SELECT 1 AS more FROM items WHERE id > ? LIMIT 1", through) == nil
            }
            if isLast { return moved }
        }
    }
}
