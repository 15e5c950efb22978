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

    /// Writes a new item's inline text columns (`text_data`, `text_packing`, `text_type`) for `blob` of `type`.
    /// Inside a write transaction.
    func inlineTextColumns(_ blob: PreparedBlob, type: ContentType) throws -> (data: Data, packing: Int64?, type: Int64) {
        let (stored, packing) = try self.packing.packed(blob.inline ?? Data())
        return (stored, packing, try typeID(type))
    }
}
