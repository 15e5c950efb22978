public import FoundationEssentials
public import PasteboardModel
import SQLiteSupport

/// One item as `exportItems` hands it over: its metadata and every representation's bytes.
public struct ExportedItem {
    public var id: Int64 = 0
    /// Seconds since 1970.
    public var created: Double = 0
    public var lastCopied: Double = 0
    public var copyCount: Int64 = 1
    public var isPinned = false
    public var source: String?
    public var expiresAt: Double?
    /// The representations in the item's order.
    public var representations: [(type: ContentType, bytes: Data)] = []
}

/// An item whose payloads could not all be read: it is left out, the others go on.
public struct DamagedItem: Error, Sendable {
    public let id: Int64
    /// Why, naming what is missing or damaged.
    public let error: HistoryError
}

extension HistoryStore {
    // MARK: - Export

    /// Calls `body` with every item, oldest first (optionally only those with a representation conforming to
    /// `type`), one query streaming through the whole history: nothing but the current item is held. An item with a
    /// payload that cannot be read (a missing or damaged payload file, a lost blob) comes as a `DamagedItem` failure
    /// and the next one follows, so that one bad payload never stops a backup.
    ///
    /// The whole walk sees one snapshot of the history, however long it takes.
    public func exportItems(
        type: ContentType? = nil, _ body: (Result<ExportedItem, DamagedItem>) throws -> Void
    ) throws {
        try perform { () throws -> Void in
            let typeFilter = try typeIDs(conformingTo: type)
            if let typeFilter, typeFilter.isEmpty { return }
            let statement = try db.prepare(
                """
                SELECT i.id, coalesce(i.created, i.last_copied), i.last_copied, i.copy_count, i.pinned, i.source, i.expires_at,
                    r.type_id, b.id IS NULL AS missing, b.data IS NULL AS in_file, b.hash, pb_unpacked(b.data, b.packing, b.size), b.size,
                    i.text_type, pb_unpacked(i.text_data, i.text_packing, i.size), i.identity
                FROM items i
                    LEFT JOIN representations r ON r.item_id = i.id
                    LEFT JOIN blobs b ON b.id = r.blob_id
                """ + (typeFilter.map { " WHERE " + Self.typeCondition($0) } ?? "") + " ORDER BY i.position, r.ordinal")
            defer { statement.rewind() }
            var item = ExportedItem()
            var damage: HistoryError?
            var hasItem = false
            func finishItem() throws {
                guard hasItem else { return }
                if item.representations.isEmpty && damage == nil {
                    damage = HistoryError(.corrupt, "Item \(item.id) has no representations left in the store.")
                }
                if let damage {
                    try body(.failure(DamagedItem(id: item.id, error: damage)))
                } else {
                    try body(.success(item))
                }
            }
            while try statement.next() {
                let id = statement.int64(at: 0)
                if !hasItem || id != item.id {
                    try finishItem()
                    hasItem = true
                    damage = nil
                    item.id = id
                    item.created = statement.double(at: 1)
                    item.lastCopied = statement.double(at: 2)
                    item.copyCount = statement.int64(at: 3)
                    item.isPinned = statement.int64(at: 4) != 0
                    item.source = statement.string(at: 5)
                    item.expiresAt = statement.isNull(at: 6) ? nil : statement.double(at: 6)
                    item.representations.removeAll(keepingCapacity: true)
                }
                if damage != nil { continue }
                if statement.isNull(at: 7) {
                    // One text kept in the item's row (InlineText.swift), checked against the item's identity.
                    guard !statement.isNull(at: 13) else { continue }
                    do {
                        let type = try self.type(forID: statement.int64(at: 13))
                        let bytes = statement.withBlob(at: 14) { Data($0) }
                        try verifiedInlineText(bytes, type: type, identity: statement.withBlob(at: 15) { Data($0) }, of: id)
                        item.representations.append((type, bytes))
                    } catch let error as HistoryError {
                        damage = error
                    } catch {
                        damage = HistoryError(.io, "Item \(id): \(error)")
                    }
                    continue
                }
                do {
                    let type = try self.type(forID: statement.int64(at: 7))
                    if statement.int64(at: 8) != 0 {
                        throw HistoryError(.corrupt, "Item \(id) refers to a payload the store no longer has.")
                    }
                    let bytes: Data
                    if statement.int64(at: 9) == 0 {
                        // Inline: checked where SQLite holds the bytes, then copied once.
                        bytes = try statement.withBlob(at: 10) { (hash) throws(HistoryError) -> Data in
                            try statement.withBlob(at: 11) { (data) throws(HistoryError) -> Data in
                                try verifiedInlineBytes(hash: hash, bytes: data, type: type, of: .item(id))
                            }
                        }
                    } else {
                        let representation = try verifiedRepresentation(
                            hash: statement.withBlob(at: 10) { Data($0) }, size: Int(statement.int64(at: 12)),
                            inline: nil, type: type, of: .item(id))
                        bytes = try representation.fileURL.map { try Data(contentsOf: $0) } ?? representation.data
                    }
                    item.representations.append((type, bytes))
                } catch let error as HistoryError {
                    damage = error
                } catch {
                    damage = HistoryError(.io, "Item \(id): \(error)")
                }
            }
            try finishItem()
        }
    }

    /// The number of items `exportItems(type:_:)` goes through (for progress).
    public func count(type: ContentType?) throws(HistoryError) -> Int {
        try perform { () throws -> Int in
            guard let typeFilter = try typeIDs(conformingTo: type) else { return try count() }
            if typeFilter.isEmpty { return 0 }
            return Int(try db.row("SELECT count(*) AS n FROM items i WHERE " + Self.typeCondition(typeFilter))?.int("n") ?? 0)
        }
    }

    // MARK: - Previews

    /// Calls `body` with the id and the one-line preview (UTF-8, as `HistoryItem.preview` has it) of every item
    /// matching `query`'s pin and type filters, newest first, at most `query.limit` of them (all when nil): one
    /// query streaming through the history, for pickers that want the whole list at once.
    public func forEachPreview(
        pinnedOnly: Bool = false, type: ContentType? = nil, limit: Int? = nil,
        _ body: (Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try perform { () throws -> Void in
            let typeFilter = try typeIDs(conformingTo: type)
            if let typeFilter, typeFilter.isEmpty { return }
            var conditions: [String] = []
            if pinnedOnly { conditions.append("i.pinned") }
            if let typeFilter { conditions.append(Self.typeCondition(typeFilter)) }
            let statement = try db.prepare(
                "SELECT i.id, i.kind, i.size, substr(\(Self.textBytesSQL), 1, 1024), b.hash, b.id IS NOT NULL AND b.data IS NULL "
                    + "FROM items i LEFT JOIN blobs b ON b.id = i.text_blob"
                    + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                    + " ORDER BY i.position DESC LIMIT ?")
            defer { statement.rewind() }
            try statement.bind(Int64(limit ?? -1), at: 1)
            var preview: [UInt8] = []
            preview.reserveCapacity(1024)
            while try statement.next() {
                preview.removeAll(keepingCapacity: true)
                if statement.int64(at: 5) != 0 {
                    let hash = statement.withBlob(at: 4) { Data($0) }
                    files.prefix(hash: hash, count: 1024).withUnsafeBytes { ItemText.appendPreview(of: $0, to: &preview) }
                } else {
                    statement.withBlob(at: 3) { ItemText.appendPreview(of: $0, to: &preview) }
                }
                let kind = HistoryItem.Kind(rawValue: statement.string(at: 1) ?? "") ?? .data
                if kind == .image || kind == .data {
                    preview.append(contentsOf: " (\(ByteCountFormatting.string(Int(statement.int64(at: 2)))))".utf8)
                }
                let id = statement.int64(at: 0)
                try preview.withUnsafeBytes { try body(id, $0) }
            }
        }
    }
}
