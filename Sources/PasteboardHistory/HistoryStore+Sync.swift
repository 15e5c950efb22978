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

    /// Brings `keys` up to every identity and payload hash the history holds (see KnownKeys.swift).
    package func refresh(_ keys: KnownKeys) throws(HistoryError) {
        try perform { try keys.refresh(db) }
    }

    /// Which of `identities` the history holds, with their ids and pins: looked up by the identity index, a few
    /// hundred at a time, so that what sync compares is never the whole history in memory.
    package func syncIdentities(of identities: some Collection<Data>) throws(HistoryError) -> [Data: (id: Int64, isPinned: Bool)] {
        var result: [Data: (id: Int64, isPinned: Bool)] = [:]
        var slice: [Data] = []
        func lookUp() throws(HistoryError) {
            guard let last = slice.last else { return }
            // Four statements in all (their sizes 1, 16, 128, 500), filled up with the last identity again: the
            // connection keeps each prepared, not one per size.
            let size = [1, 16, 128, 500].first { $0 >= slice.count } ?? 500
            slice += Array(repeating: last, count: size - slice.count)
            let marks = Array(repeating: "?", count: size).joined(separator: ",")
            try perform {
                let statement = try db.prepare("SELECT id, identity, pinned FROM items WHERE identity IN (\(marks))")
                try statement.bind(slice.map { $0 as any SQLiteBindable })
                while let row = try statement.step() {
                    guard let id = row.int("id"), let identity = row.data("identity") else { continue }
                    result[identity] = (id, row.int("pinned") == 1)
                }
            }
            slice.removeAll(keepingCapacity: true)
        }
        for identity in identities {
            slice.append(identity)
            if slice.count == 500 { try lookUp() }
        }
        try lookUp()
        return result
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
