import FoundationEssentials
import SQLiteSupport

/// Changes to the search index (`item_text`, see `SearchTerms`), staged in memory and written in large pieces.
///
/// FTS5 (before SQLite 3.44) writes its pending changes out as a new segment of the index whenever a statement that
/// writes several rows (or the index) starts or ends, and the many small segments then have to be merged again and
/// again: an import that wrote the index line by line took 14 minutes for a million short texts of a small
/// vocabulary, and batches of a few thousand rows still spent half of an import merging. Staged in a temporary
/// table and moved into the index by one statement per 8 MB of text, the index is written in the large pieces FTS5
/// is built for, as when `sqlite3` loads the same rows in one statement.
///
/// Used inside one write transaction of its connection (the staging table is created in it, so a rollback or a
/// killed process leaves no trace); `finish()` writes what is left and drops the table.
final class SearchIndexWriter {
    private let db: Connection
    private var pending: [(isDeletion: Bool, position: Int64, document: String)] = []
    private var pendingBytes = 0
    private var stagedBytes = 0
    private var statements: [Int: Statement] = [:]
    /// The letters and pairs of the entries added, by block (see HistoryStore+SearchBlocks.swift).
    private var grams: [Int64: SearchGrams] = [:]

    /// Texts staged by one statement, at most.
    static let batchRows = 2048
    /// Bytes of text held in memory before they are staged, at most.
    static let batchBytes = 4 << 20
    /// Bytes of text staged before they go into the search index, at most, by default.
    static let stagedLimit = 8 << 20
    private let stagedLimit: Int

    /// - Parameter stagedLimit: bytes of text moved into the index by one statement (FTS5 makes a segment of them).
    init(db: Connection, stagedLimit: Int = SearchIndexWriter.stagedLimit) throws(SQLiteError) {
        precondition(db.isInTransaction, "SearchIndexWriter works inside a write transaction")  // programmer error
        self.db = db
        self.stagedLimit = stagedLimit
        // In memory (the store sets temp_store = MEMORY).
        try db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS pb_index_text(seq INTEGER PRIMARY KEY, command TEXT, position INTEGER NOT NULL, text TEXT NOT NULL); "
                + "DELETE FROM temp.pb_index_text")
    }

    /// Adds `text` as the entry of `position`, or (`isDeletion`) removes the entry `position` has with that text (its
    /// document, `SearchTerms`, goes into the index).
    func queue(isDeletion: Bool, position: Int64, text: String) throws(SQLiteError) {
        pending.append((isDeletion, position, SearchTerms.document(text)))
        // Counted in bytes of text, as the bounds are: a document takes about two to three times its text's size.
        pendingBytes += text.utf8.count
        if !isDeletion { grams[HistoryStore.searchBlock(position), default: SearchGrams()].add(text) }
        if pending.count >= Self.batchRows || pendingBytes >= Self.batchBytes { try stage() }
    }

    /// Adds an entry made already (`SearchTerms.document` of its text) at `position`; its letters and pairs are
    /// given to `add(_:)`.
    func queue(position: Int64, document: String) throws(SQLiteError) {
        pending.append((false, position, document))
        pendingBytes += document.utf8.count / 2  // about the size of its text (see above)
        if pending.count >= Self.batchRows || pendingBytes >= Self.batchBytes { try stage() }
    }

    /// Adds the letters and pairs of entries queued by `queue(position:document:)`, by block.
    func add(_ blocks: [Int64: SearchGrams]) {
        for (block, blockGrams) in blocks { grams[block, default: SearchGrams()].formUnion(blockGrams) }
    }

    /// Writes everything queued into the index and drops the staging table.
    func finish() throws {
        try stage()
        try moveIntoIndex()
        for (block, blockGrams) in grams.sorted(by: { $0.key < $1.key }) {
            try HistoryStore.addGrams(blockGrams, block: block, db: db)
        }
        grams.removeAll()
        statements.removeAll()
        try db.execute("DROP TABLE IF EXISTS temp.pb_index_text")
    }

    /// Drops the staging table after a failure (best effort: the transaction's rollback undoes the rest).
    func abandon() {
        statements.removeAll()
        grams.removeAll()
        _ = Result { () throws(SQLiteError) in try db.execute("DROP TABLE IF EXISTS temp.pb_index_text") }
    }

    private func stage() throws(SQLiteError) {
        guard !pending.isEmpty else { return }
        let statement: Statement
        if let prepared = statements[pending.count] {
            statement = prepared
        } else {
            statement = try db.prepare(
                "INSERT INTO temp.pb_index_text(command, position, text) VALUES "
                    + Array(repeating: "(?, ?, ?)", count: pending.count).joined(separator: ", "))
            statements[pending.count] = statement
        }
        for (offset, change) in pending.enumerated() {
            let column = Int32(offset * 3)
            try statement.bind(change.isDeletion ? .text("delete") : .null, at: column + 1)
            try statement.bind(.integer(change.position), at: column + 2)
            try statement.bind(.text(change.document), at: column + 3)
        }
        try statement.runToCompletion()
        statement.reset()  // drops the bound copies of the texts
        stagedBytes += pendingBytes
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        if stagedBytes >= stagedLimit { try moveIntoIndex() }
    }

    /// Moves the staged changes into the index, in the order they were made ('delete' in the command column removes
    /// an entry).
    private func moveIntoIndex() throws(SQLiteError) {
        guard stagedBytes > 0 else { return }
        try db.execute(
            "INSERT INTO item_text(item_text, rowid, text) SELECT command, position, text FROM temp.pb_index_text ORDER BY seq; "
                + "DELETE FROM temp.pb_index_text")
        stagedBytes = 0
    }
}

/// A writer is confined to the thread of its connection.
@available(*, unavailable)
extension SearchIndexWriter: Sendable {}
