public import FoundationEssentials
import PasteboardModel
import SQLiteSupport

/// Text recognized in an item's picture: derived text of the item, found by search as its own text is.
///
/// One `recognized_text` row per image item that was looked at (schema 7), written by the daemon's recognizer and
/// deleted with the item (`deleteInTransaction`). The item's search-index entry (`item_text`, at its position) is its
/// own text's indexed prefix, a line break, then the recognized text (see `searchEntry`): every path that writes or
/// removes an entry builds it here, since a contentless index removes an entry only given the text it was made of.
/// Search checks each candidate against both texts.
extension HistoryStore {
    /// The text of item `itemID`'s search-index entry: its text's indexed prefix, then the text recognized in its
    /// picture; nil when it has neither.
    func searchEntry(itemID: Int64, textBlob: Int64?) throws -> String? {
        // The item's own text: its payload row's, or the one in its row (InlineText.swift).
        let own = try textBlob.map { ItemText.indexString(try blobIndexBytes($0)) } ?? inlineIndexString(of: itemID)
        let recognized = try db.row(
            "SELECT substr(text, 1, ?) AS text FROM recognized_text WHERE item_id = ? AND text <> ''",
            ItemText.indexedPrefix, itemID)?.string("text")
        guard let recognized else { return own }
        let folded = ItemText.indexString(Data(recognized.utf8))
        guard let own else { return folded }
        return own + "\n" + folded
    }

    /// The image items not looked at yet, newest first (a copy just made before the backlog of an import), at most
    /// `limit`. Items that expire or ask before paste are included: `recordRecognition` marks them excluded.
    public func itemsAwaitingRecognition(limit: Int) throws(HistoryError) -> [Int64] {
        try perform {
            try db.rows(
                "SELECT id FROM items i WHERE kind = 'image' AND NOT EXISTS "
                    + "(SELECT 1 FROM recognized_text r WHERE r.item_id = i.id) ORDER BY position DESC LIMIT ?", limit
            ).compactMap { $0.int("id") }
        }
    }

    /// Whether item `id` may have its picture read: not secret (asks before paste) and not expiring. Items marked
    /// local-only live in the sync state; the daemon asks it too.
    public func allowsRecognition(id: Int64) throws(HistoryError) -> Bool {
        try perform {
            try db.row("SELECT 1 AS ok FROM items WHERE id = ? AND NOT ask_before_paste AND expires_at IS NULL", id) != nil
        }
    }

    /// The picture of item `id` the recognizer reads: its first PNG, JPEG, TIFF, BMP, GIF or WebP representation,
    /// checked against its hash; nil when it has none (or is gone).
    public func recognitionPicture(id: Int64) throws(HistoryError) -> Data? {
        let readable: [ContentType] = [.png, .jpeg, .tiff, .bmp, .gif, .webP]
        guard try perform({ try db.row("SELECT 1 AS found FROM items WHERE id = ?", id) }) != nil else { return nil }
        let item = try pasteboardItem(id: id)
        for type in readable {
            if let representation = item.representations.first(where: { $0.type == type }) { return representation.data }
        }
        return nil
    }

    /// Records what recognizing item `id`'s picture gave, and puts the text into its search-index entry. Does nothing
    /// when the item was deleted meanwhile, or was looked at already.
    /// - Parameter waiting: false gives up at once (`busy`) when another process holds the write lock.
    public func recordRecognition(
        id: Int64, text: String, outcome: RecognitionOutcome, languages: String, date: Date = Date(), waiting: Bool = true
    ) throws(HistoryError) {
        try write(waiting: waiting) {
            guard let row = try db.row("SELECT position, text_blob FROM items WHERE id = ?", id),
                let position = row.int("position"),
                try db.row("SELECT 1 AS found FROM recognized_text WHERE item_id = ?", id) == nil
            else { return }
            let textBlob = row.int("text_blob")
            let indexedThrough = try searchIndexedThrough()
            let indexed = indexedThrough.map { position <= $0 } ?? true
            // The entry it has now (its own text alone) goes, and the one with the recognized text comes.
            if indexed, let old = try searchEntry(itemID: id, textBlob: textBlob) {
                try removeSearchEntry(position: position, text: old)
                residue.noteIndexTombstone()
            }
            try db.run(
                "INSERT INTO recognized_text(item_id, text, outcome, languages, time) VALUES (?, ?, ?, ?, ?)", id,
                outcome == .recognized ? Self.trimmedRecognition(text) : "", outcome.rawValue, languages,
                date.timeIntervalSince1970)
            if indexed, let entry = try searchEntry(itemID: id, textBlob: textBlob) {
                try addSearchEntry(position: position, text: entry)
            }
        }
    }

    /// Tesseract's text without the blank lines and trailing spaces it leaves between blocks.
    static func trimmedRecognition(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { line in String(line.reversed().drop(while: { $0 == " " }).reversed()) }
            .filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// The text recognized in item `id`'s picture; nil when it was not looked at, or gave none.
    public func recognizedText(id: Int64) throws(HistoryError) -> String? {
        try perform {
            try db.row("SELECT text FROM recognized_text WHERE item_id = ? AND text <> ''", id)?.string("text")
        }
    }

    /// How far recognition has come: image items, and how many of them were looked at (each outcome counted).
    public func recognitionProgress() throws(HistoryError) -> RecognitionProgress {
        try perform {
            var progress = RecognitionProgress()
            progress.images = Int(try db.row("SELECT count(*) AS n FROM items WHERE kind = 'image'")?.int("n") ?? 0)
            for row in try db.rows(
                "SELECT r.outcome, count(*) AS n FROM recognized_text r JOIN items i ON i.id = r.item_id GROUP BY r.outcome")
            {
                guard let name = row.string("outcome"), let outcome = RecognitionOutcome(rawValue: name) else { continue }
                progress.outcomes[outcome] = Int(row.int("n") ?? 0)
            }
            return progress
        }
    }
}

/// How many image items there are, and what became of those looked at (`pb stats`).
public struct RecognitionProgress: Sendable, Equatable {
    public var images = 0
    public var outcomes: [RecognitionOutcome: Int] = [:]
    /// Image items looked at, whatever came of it.
    public var done: Int { outcomes.values.reduce(0, +) }

    public init() {}
}

// MARK: - Search

extension HistoryStore {
    /// The column a search reads beside an item's text (`b`, its text blob, left-joined): the recognized text.
    static let recognizedColumn =
        "CASE WHEN i.kind = 'image' THEN (SELECT substr(r.text, 1, \(ItemText.indexedPrefix)) FROM recognized_text r "
        + "WHERE r.item_id = i.id AND r.text <> '') END AS recognized"
    /// The items a search reads: those with a text, and image items (which may have recognized text).
    static let hasSearchableText = "(i.text_blob IS NOT NULL OR i.text_data IS NOT NULL OR i.kind = 'image')"

    /// Whether `matches` accepts a searched row's text (`hash`, `inFile`, `head`) or its recognized text.
    func searchableTextMatches(_ row: Row, _ matches: (Data) -> Bool) -> Bool {
        if let hash = row.data("hash") {
            var head = row.data("head") ?? Data()
            if row.int("inFile") == 1 { head = files.prefix(hash: hash, count: ItemText.indexedPrefix) }
            if matches(head) { return true }
        }
        guard let recognized = row.string("recognized") else { return false }
        return matches(Data(recognized.utf8))
    }
}
