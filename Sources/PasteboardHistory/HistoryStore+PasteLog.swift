public import FoundationEssentials
import SQLiteSupport

/// One paste of a history item the daemon served: which application read it, when, and what became of it.
public struct PasteRecord: Sendable, Equatable {
    /// What became of a paste.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The item does not ask: it was served.
        case served
        /// The user chose Allow.
        case allowed
        /// The user chose Don't Allow.
        case refused
        /// Nobody answered in time.
        case unanswered
        /// No app was running to ask, so the paste was refused.
        case noApprover = "no-approver"

        /// Whether the reader got the data.
        public var isDelivered: Bool { self == .served || self == .allowed }
    }

    public let date: Date
    /// The reading application's name, when the backend could tell (X11 names the requestor's process).
    public let reader: String?
    public let readerPID: Int?
    public let outcome: Outcome

    public init(date: Date, reader: String?, readerPID: Int?, outcome: Outcome) {
        self.date = date
        self.reader = reader
        self.readerPID = readerPID
        self.outcome = outcome
    }
}

extension HistoryStore {
    // MARK: - Allow Paste

    /// The most entries a paste log keeps per item; older ones go as new ones come.
    public static let maxPasteLogEntries = 100

    /// Makes the items `ids` ask before they are pasted, or stop asking; all or nothing (a missing id changes
    /// nothing and is named in the error).
    public func setAsksBeforePaste(_ asks: Bool, ids: [Int64]) throws(HistoryError) {
        try write {
            let missing = try ids.filter { try db.row("SELECT 1 AS found FROM items WHERE id = ?", $0) == nil }
            if !missing.isEmpty { throw Self.noSuchItems(missing) }
            for id in ids {
                try db.run("UPDATE items SET ask_before_paste = ? WHERE id = ?", asks, id)
                try noteChange(.changed, itemID: id)
            }
        }
    }

    /// Whether item `id` asks before it is pasted; false for an item that is gone.
    public func asksBeforePaste(id: Int64) throws(HistoryError) -> Bool {
        try perform { try db.row("SELECT ask_before_paste FROM items WHERE id = ?", id)?.int(0) == 1 }
    }

    /// Adds `record` to item `id`'s paste log (nothing for an item that is gone), keeping the newest
    /// `maxPasteLogEntries`.
    public func logPaste(_ record: PasteRecord, itemID id: Int64) throws(HistoryError) {
        try write {
            guard try db.row("SELECT 1 AS found FROM items WHERE id = ?", id) != nil else { return }
            try db.run(
                "INSERT INTO paste_log(item_id, time, reader, reader_pid, outcome) VALUES (?, ?, ?, ?, ?)", id,
                record.date.timeIntervalSince1970, record.reader, record.readerPID, record.outcome.rawValue)
            try db.run(
                """
                DELETE FROM paste_log WHERE item_id = ? AND id NOT IN
                    (SELECT id FROM paste_log WHERE item_id = ? ORDER BY time DESC, id DESC LIMIT ?)
                """, id, id, Self.maxPasteLogEntries)
        }
    }

    /// Item `id`'s paste log, newest first, at most `limit` entries.
    public func pasteLog(itemID id: Int64, limit: Int = 20) throws(HistoryError) -> [PasteRecord] {
        try perform {
            try db.rows(
                """
                SELECT time, reader, reader_pid, outcome FROM paste_log WHERE item_id = ?
                    ORDER BY time DESC, id DESC LIMIT ?
                """,
                id, max(0, limit)
            ).map { row in
                PasteRecord(
                    date: Date(timeIntervalSince1970: row.double("time") ?? 0), reader: row.string("reader"),
                    readerPID: row.int("reader_pid").map(Int.init),
                    outcome: PasteRecord.Outcome(rawValue: row.string("outcome") ?? "") ?? .refused)
            }
        }
    }
}
