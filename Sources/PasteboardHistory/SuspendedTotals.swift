import SQLiteSupport

/// The totals an insert adds (`item_totals`, `blob_totals`, `packing_uses`, `key_insertions`), counted by an import
/// instead of by the store's insert triggers, which it drops for the length of its transaction and puts back, as they
/// were, when it commits. The counts go into the totals after each batch of rows, a statement per total.
///
/// A trigger runs a statement for every row, and a statement that fires one (or that may stop on a constraint
/// with rows of its own written) makes SQLite copy every page it touches into a statement journal first, to undo
/// the statement alone: together a third of the time SQLite took to write an import's rows (a million short texts,
/// the same rows in `sqlite3` through Python: 17.5 s with the triggers, 10.3 s without them and without a
/// statement journal). The triggers are gone only inside the import's transaction, which holds the write lock:
/// no other connection sees the store without them, and a rollback (or the end of the process) puts them back
/// with everything else. The update and delete triggers stay, so a row inserted and then changed or deleted in
/// the same import counts exactly as the trigger would have counted it. A trigger the store does not have is not
/// counted for either.
struct SuspendedTotals {
    /// The insert triggers this type stands in for.
    static let triggers = [
        "items_totals_insert", "blobs_totals_insert", "blobs_packing_insert", "items_insertions", "blobs_insertions",
        "items_packing_insert", "items_inline_insert",
    ]

    /// The dropped triggers' definitions, by name, as the store had them.
    private var definitions: [(name: String, sql: String)] = []
    private var countsItems = false
    private var countsBlobs = false
    private var countsPackings = false
    private var countsItemPackings = false
    private var countsInlineTexts = false
    private var inlineTexts = Counts()
    private var countsItemInsertions = false
    private var countsBlobInsertions = false
    private var insertedItems: Int64 = 0
    private var insertedBlobs: Int64 = 0
    private var items: [ItemKey: Counts] = [:]
    private var blobs: [Bool: Counts] = [:]
    private var packings: [Int64: Int64] = [:]

    private struct ItemKey: Hashable {
        let kind: String
        let isPinned: Bool
    }

    private struct Counts {
        var rows: Int64 = 0
        var bytes: Int64 = 0

        mutating func add(_ size: Int64) {
            rows += 1
            bytes += size
        }
    }

    /// Drops the insert triggers: inside the caller's write transaction, and before any row of it is inserted.
    init(db: Connection) throws(SQLiteError) {
        precondition(db.isInTransaction, "SuspendedTotals inside the import's transaction")  // programmer error
        for name in Self.triggers {
            guard let sql = try db.row("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?", name)?
                .string("sql")
            else { continue }
            definitions.append((name, sql))
            try db.execute("DROP TRIGGER \(name)")
        }
        let names = Set(definitions.map(\.name))
        countsItems = names.contains("items_totals_insert")
        countsBlobs = names.contains("blobs_totals_insert")
        countsPackings = names.contains("blobs_packing_insert")
        countsItemPackings = names.contains("items_packing_insert")
        countsInlineTexts = names.contains("items_inline_insert")
        countsItemInsertions = names.contains("items_insertions")
        countsBlobInsertions = names.contains("blobs_insertions")
    }

    /// Counts an item row as it is inserted: `isInline` when it keeps its text in its row, `packing` the dictionary
    /// that text was packed with.
    mutating func noteItem(kind: String, isPinned: Bool, size: Int64, isInline: Bool, packing: Int64?) {
        if countsItemInsertions { insertedItems += 1 }
        if countsInlineTexts && isInline { inlineTexts.add(size) }
        if countsItemPackings, let packing { packings[packing, default: 0] += 1 }
        guard countsItems else { return }
        items[ItemKey(kind: kind, isPinned: isPinned), default: Counts()].add(size)
    }

    /// Counts a payload row as it is inserted: `isInFile` when its bytes are in a file (`data` NULL), `packing` the
    /// dictionary it was packed with.
    mutating func noteBlob(isInFile: Bool, size: Int64, packing: Int64?) {
        if countsBlobInsertions { insertedBlobs += 1 }
        if countsBlobs { blobs[isInFile, default: Counts()].add(size) }
        if countsPackings, let packing { packings[packing, default: 0] += 1 }
    }

    /// Adds what was counted since the last time to the totals: after each batch of rows, so that the totals are
    /// true again before anything reads them (the payloads' count decides when the store learns its dictionary).
    mutating func flush(db: Connection) throws(SQLiteError) {
        for (key, counts) in items {
            try db.run(
                """
                INSERT INTO item_totals(kind, pinned, items, bytes) VALUES (?, ?, ?, ?)
                ON CONFLICT(kind, pinned) DO UPDATE SET items = items + excluded.items, bytes = bytes + excluded.bytes
                """, key.kind, key.isPinned, counts.rows, counts.bytes)
        }
        for (isInFile, counts) in blobs {
            try db.run(
                """
                INSERT INTO blob_totals(in_file, blobs, bytes) VALUES (?, ?, ?)
                ON CONFLICT(in_file) DO UPDATE SET blobs = blobs + excluded.blobs, bytes = bytes + excluded.bytes
                """, isInFile, counts.rows, counts.bytes)
        }
        for (packing, uses) in packings {
            try db.run("UPDATE packing_uses SET uses = uses + ? WHERE packing = ?", uses, packing)
        }
        if insertedItems > 0 || insertedBlobs > 0 {
            try db.run(
                "UPDATE key_insertions SET items = items + ?, blobs = blobs + ? WHERE id = 1", insertedItems, insertedBlobs)
        }
        if inlineTexts.rows > 0 {
            try db.run(
                "UPDATE inline_text_totals SET texts = texts + ?, bytes = bytes + ? WHERE id = 1", inlineTexts.rows,
                inlineTexts.bytes)
        }
        (items, blobs, packings, insertedItems, insertedBlobs, inlineTexts) = ([:], [:], [:], 0, 0, Counts())
    }

    /// Adds what is left to the totals and puts the triggers back, inside the transaction, before it commits.
    mutating func restore(db: Connection) throws(SQLiteError) {
        try flush(db: db)
        for definition in definitions { try db.execute(definition.sql) }
        definitions = []
    }
}
