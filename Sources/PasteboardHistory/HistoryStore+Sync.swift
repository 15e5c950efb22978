package import FoundationEssentials
package import PasteboardModel
import SQLiteSupport

/// What sync (the `PasteboardSync` target) reads and changes in the store, beside the public API: items by
/// identity and position, and moving an item to the top without counting a copy.
extension HistoryStore {
    /// One item as sync sees it.
    package struct SyncRow: Sendable, Equatable {
        package let id: Int64
        package let position: Int64
        package let identity: Data
        package let isPinned: Bool
        package let size: Int
        package let source: String?
        package let expiresAt: Date?
        package let lastCopied: Date
    }

    private func syncRow(_ row: Row) -> SyncRow? {
        guard let id = row.int("id"), let position = row.int("position"), let identity = row.data("identity") else {
            return nil
        }
        return SyncRow(
            id: id, position: position, identity: identity, isPinned: row.int("pinned") == 1,
            size: Int(row.int("size") ?? 0), source: row.string("source"),
            expiresAt: row.double("expires_at").map { Date(timeIntervalSince1970: $0) },
            lastCopied: Date(timeIntervalSince1970: row.double("last_copied") ?? 0))
    }

    private static let syncColumns = "id, position, identity, pinned, size, source, expires_at, last_copied"

    /// Items copied (or moved to the top) after `position`, oldest first, at most `limit`.
    package func syncRows(afterPosition position: Int64, limit: Int) throws(HistoryError) -> [SyncRow] {
        try perform {
            try db.rows(
                "SELECT \(Self.syncColumns) FROM items WHERE position > ? ORDER BY position LIMIT ?", position, limit
            ).compactMap(syncRow)
        }
    }

    /// Items at or below `position`, newest first, at most `limit`.
    package func syncRows(atOrBelow position: Int64, limit: Int) throws(HistoryError) -> [SyncRow] {
        try perform {
            try db.rows(
                "SELECT \(Self.syncColumns) FROM items WHERE position <= ? ORDER BY position DESC LIMIT ?", position, limit
            ).compactMap(syncRow)
        }
    }

    /// Every item's identity with its id and pin, for comparing the history with what sync knows.
    package func syncIdentities() throws(HistoryError) -> [Data: (id: Int64, isPinned: Bool)] {
        try perform {
            var result: [Data: (id: Int64, isPinned: Bool)] = [:]
            let statement = try db.prepare("SELECT id, identity, pinned FROM items")
            while let row = try statement.step() {
                guard let id = row.int("id"), let identity = row.data("identity") else { continue }
                result[identity] = (id, row.int("pinned") == 1)
            }
            return result
        }
    }

    /// The item with `id`, if the history has it.
    package func syncRow(id: Int64) throws(HistoryError) -> SyncRow? {
        try perform {
            try db.row("SELECT \(Self.syncColumns) FROM items WHERE id = ?", id).flatMap(syncRow)
        }
    }

    /// The item with `identity`, if the history has it.
    package func syncRow(identity: Data) throws(HistoryError) -> SyncRow? {
        try perform {
            try db.row("SELECT \(Self.syncColumns) FROM items WHERE identity = ?", identity).flatMap(syncRow)
        }
    }

    /// The identity `record(_:)` gives `item`: equal items (same types, same bytes, but for the per-copy noise
    /// `ItemIdentity` sees past) have the same identity.
    package static func syncIdentity(of item: PasteboardItem) -> Data {
        ItemIdentity.of(item, addresses: item.representations.map { SHA256.address($0.data) })
    }

    /// Moves an item to the top of the history, as a repeated copy would, without counting a copy; returns its new
    /// position.
    @discardableResult
    package func moveToTop(id: Int64) throws(HistoryError) -> Int64 {
        try write { () throws -> Int64 in
            let before = try db.row("SELECT position FROM items WHERE id = ?", id)?.int("position")
            let position = try moveToTopInTransaction(id: id)
            if position != before { try noteChange(.moved, itemID: id) }
            return position
        }
    }
}
