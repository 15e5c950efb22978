import Foundation
public import PasteboardModel
import SQLiteSupport

/// Many items recorded as one transaction: everything added lands together at `commit()`, or nothing does.
///
/// An item is recorded exactly as `HistoryStore.record(_:metadata:)` records it (a repeat merges into the existing
/// item: moved to the top, counts added, a pin kept, of two expiries the later one), through statements prepared
/// once, so that a million lines import at the speed of SQLite rather than of a million one-off queries. The write
/// lock is held from `init` to `commit()`; an import that is abandoned (or whose process dies) rolls back.
///
/// ```swift
/// let bulk = try HistoryImport(store: store)
/// for item in items { try bulk.add(item, metadata: CaptureMetadata(date: then)) }
/// try bulk.commit()
/// ```
public final class HistoryImport {
    private let store: HistoryStore
    private var isOpen = true
    private var nextPosition: Int64
    private let previousCacheSize: Int64
    private let findIdentity: Statement
    private let retainBlob: Statement
    private let insertItem: Statement
    private let insertRepresentation: Statement
    private let insertText: Statement
    private let deleteText: Statement
    private let updateMerged: Statement

    /// Pages SQLite may keep in memory while importing, in KiB: a million-line import rewrites the same index
    /// pages again and again, and with the default 2 MiB every rewrite went through the WAL. Fixed, so memory
    /// stays bounded whatever the file's size.
    static let cacheKiB: Int64 = 64 * 1024

    /// Starts the transaction, waiting (up to the busy timeout) for other writers to finish.
    public init(store: HistoryStore) throws(HistoryError) {
        self.store = store
        let db = store.db
        (previousCacheSize, nextPosition, findIdentity, retainBlob, insertItem, insertRepresentation, insertText,
         deleteText, updateMerged) = try store.perform {
            precondition(!db.isInTransaction, "HistoryImport starts its own transaction")  // programmer error
            let cache = try db.row("PRAGMA cache_size")?.int(0) ?? -2000
            try db.execute("PRAGMA cache_size = -\(Self.cacheKiB)")
            try db.execute("BEGIN IMMEDIATE")
            let position = try store.nextPosition()
            return (
                cache, position,
                try db.prepare("SELECT id, position, text_blob FROM items WHERE identity = ?"),
                try db.prepare(
                    """
                    INSERT INTO blobs(hash, size, data, refcount) VALUES (?, ?, ?, ?)
                    ON CONFLICT(hash) DO UPDATE SET refcount = refcount + excluded.refcount RETURNING id
                    """),
                try db.prepare(
                    """
                    INSERT INTO items(position, identity, created, last_copied, copy_count, pinned, kind, size,
                        text_blob, source, selection, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """),
                try db.prepare("INSERT INTO representations(item_id, ordinal, type_id, blob_id) VALUES (?, ?, ?, ?)"),
                try db.prepare("INSERT INTO item_text(rowid, text) VALUES (?, ?)"),
                try db.prepare("INSERT INTO item_text(item_text, rowid, text) VALUES ('delete', ?, ?)"),
                try db.prepare(HistoryStore.mergeSQL))
        }
    }

    deinit {
        if isOpen { rollBack() }
    }

    /// Records one item inside the import's transaction; returns its id and whether it is new.
    @discardableResult
    public func add(_ item: PasteboardItem, metadata: CaptureMetadata) throws(HistoryError) -> RecordResult {
        precondition(isOpen, "add(_:metadata:) after commit() or rollBack()")  // programmer error
        guard !item.isEmpty else { throw HistoryError(.invalidInput, "Nothing to record: the item has no content.") }
        try metadata.validateDates()
        let prepared = try item.representations.map { representation throws(HistoryError) in
            (representation.type, try store.prepareBlob(representation))
        }
        let identity = HistoryStore.identity(of: prepared.map { ($0.0, $0.1.hash) })
        let textType = ItemText.textType(of: item)
        let derived = textType == nil ? try store.prepareBlob(Data(ItemText.derivedText(of: item).utf8)) : nil
        let kind = ItemText.kind(of: item)
        let position = nextPosition
        let result = try store.perform { () throws -> RecordResult in
            try identity.withUnsafeBytes { try findIdentity.bind(blob: $0, at: 1) }
            if try findIdentity.next() {
                let id = findIdentity.int64(at: 0)
                let oldPosition = findIdentity.int64(at: 1)
                let textBlob = findIdentity.isNull(at: 2) ? nil : findIdentity.int64(at: 2)
                findIdentity.rewind()
                try merge(id: id, oldPosition: oldPosition, textBlob: textBlob, position: position, metadata: metadata)
                return RecordResult(id: id, isNew: false)
            }
            var textBlob: Int64?
            var blobIDs: [Int64] = []
            blobIDs.reserveCapacity(prepared.count)
            for (type, blob) in prepared {
                // The item's text blob is referenced twice: as a representation and as the item's text.
                let blobID = try retain(blob, references: type == textType ? 2 : 1)
                blobIDs.append(blobID)
                if type == textType { textBlob = blobID }
            }
            if textBlob == nil, let derived { textBlob = try retain(derived, references: 1) }
            try identity.withUnsafeBytes { try insertItem.bind(blob: $0, at: 2) }
            try insertItem.bind(position, at: 1)
            try insertItem.bind((metadata.created ?? metadata.date).timeIntervalSince1970, at: 3)
            try insertItem.bind(metadata.date.timeIntervalSince1970, at: 4)
            try insertItem.bind(Int64(max(1, metadata.copyCount)), at: 5)
            try insertItem.bind(metadata.isPinned, at: 6)
            try insertItem.bind(kind.rawValue, at: 7)
            try insertItem.bind(Int64(item.byteCount), at: 8)
            if let textBlob { try insertItem.bind(textBlob, at: 9) } else { try insertItem.bindNull(at: 9) }
            try insertItem.bind(metadata.source, at: 10)
            try insertItem.bind(metadata.selection, at: 11)
            if let expiry = metadata.expiresAt {
                try insertItem.bind(expiry.timeIntervalSince1970, at: 12)
            } else {
                try insertItem.bindNull(at: 12)
            }
            try insertItem.runToCompletion()
            let id = store.db.lastInsertRowID
            for (ordinal, (type, _)) in prepared.enumerated() {
                try insertRepresentation.bind(id, at: 1)
                try insertRepresentation.bind(Int64(ordinal), at: 2)
                try insertRepresentation.bind(try store.typeID(type), at: 3)
                try insertRepresentation.bind(blobIDs[ordinal], at: 4)
                try insertRepresentation.runToCompletion()
            }
            if textBlob != nil {
                let text: String
                if let textType, let representation = item.representation(forType: textType) {
                    text = ItemText.indexString(representation.prefix(ItemText.indexedPrefix))
                } else {
                    text = ItemText.indexString(derived?.inline ?? Data())
                }
                try insertText.bind(position, at: 1)
                try insertText.bind(text, at: 2)
                try insertText.runToCompletion()
            }
            return RecordResult(id: id, isNew: true)
        }
        nextPosition += 1
        return result
    }

    /// Adds references to a blob, inserting it if new; returns its id.
    private func retain(_ blob: HistoryStore.PreparedBlob, references: Int64) throws -> Int64 {
        try blob.hash.withUnsafeBytes { try retainBlob.bind(blob: $0, at: 1) }
        try retainBlob.bind(Int64(blob.size), at: 2)
        if let inline = blob.inline {
            try inline.withUnsafeBytes { try retainBlob.bind(blob: $0, at: 3) }
        } else {
            try retainBlob.bindNull(at: 3)
        }
        try retainBlob.bind(references, at: 4)
        guard try retainBlob.next() else { throw HistoryError(.io, "A payload could not be stored.") }
        let id = retainBlob.int64(at: 0)
        retainBlob.rewind()
        return id
    }

    /// A repeat of an existing item: the same update `HistoryStore.record` makes.
    private func merge(id: Int64, oldPosition: Int64, textBlob: Int64?, position: Int64, metadata: CaptureMetadata) throws {
        if let textBlob {
            let text = ItemText.indexString(try store.blobIndexBytes(textBlob))
            try deleteText.bind(oldPosition, at: 1)
            try deleteText.bind(text, at: 2)
            try deleteText.runToCompletion()
            try insertText.bind(position, at: 1)
            try insertText.bind(text, at: 2)
            try insertText.runToCompletion()
        }
        let expiry = metadata.expiresAt?.timeIntervalSince1970
        try updateMerged.bind(position, at: 1)
        try updateMerged.bind(metadata.date.timeIntervalSince1970, at: 2)
        try updateMerged.bind(Int64(max(1, metadata.copyCount)), at: 3)
        try updateMerged.bind(metadata.isPinned, at: 4)
        try updateMerged.bind(metadata.source, at: 5)
        try updateMerged.bind(metadata.selection, at: 6)
        try updateMerged.bind(metadata.isPinned, at: 7)
        for index: Int32 in [8, 9] {
            if let expiry { try updateMerged.bind(expiry, at: index) } else { try updateMerged.bindNull(at: index) }
        }
        try updateMerged.bind(id, at: 10)
        try updateMerged.runToCompletion()
    }

    /// Makes every added item part of the history at once.
    public func commit() throws(HistoryError) {
        precondition(isOpen, "commit() twice")  // programmer error
        let db = store.db
        do {
            try store.perform {
                try db.execute("COMMIT")
                try db.execute("PRAGMA cache_size = \(previousCacheSize)")
            }
        } catch {
            rollBack()
            throw error
        }
        isOpen = false
    }

    /// Abandons the import: the history is as it was before `init`.
    public func rollBack() {
        guard isOpen else { return }
        isOpen = false
        let db = store.db
        // Rolling back is best effort: SQLite rolls back by itself when it cannot (the journal stays consistent),
        // and the error that made the import stop is the one to report.
        if db.isInTransaction { _ = Result { try db.execute("ROLLBACK") } }
        _ = Result { try db.execute("PRAGMA cache_size = \(previousCacheSize)") }
    }
}

/// An import is confined to the thread of its store.
@available(*, unavailable)
extension HistoryImport: Sendable {}
