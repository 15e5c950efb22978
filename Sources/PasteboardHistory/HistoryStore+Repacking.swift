import FoundationEssentials
import SQLiteSupport

/// What `HistoryStore.packStoredPayloads` did.
public struct RepackingResult: Sendable, Equatable {
    /// Payloads packed now.
    public var packed = 0
    /// The bytes they took before, and take now.
    public var bytesBefore = 0
    public var bytesAfter = 0
    /// Whether the store has no dictionary to pack with (too few payloads to learn one, or a learning that found
    /// too few shared words): nothing was packed.
    public var hasNoDictionary = false

    public init() {}
}

extension HistoryStore {
    /// Payloads read (and packed where that pays) by one transaction of `packStoredPayloads`, at most.
    public static let repackingBatch = 4096

    /// Packs the payloads kept in the database that are stored as they are, as schema 11 packs new ones (see
    /// `PayloadPacking`): rows written before it, and those written before the store had its dictionary. The
    /// dictionary is learned first when the store has none and enough payloads for one. A payload that does not
    /// shrink by an eighth stays as it is, as when it is written.
    ///
    /// The rows are read in order of id, `batch` ids at a time (whatever they hold), each batch in its own write
    /// transaction: the daemon records copies in between, and a stop keeps what the batches before it did. Each payload is still
    /// checked against its hash when it is read, as before. The file keeps its size until it is vacuumed (`vacuum()`
    /// returns the pages packing freed).
    public func packStoredPayloads(batch: Int = repackingBatch) throws(HistoryError) -> RepackingResult {
        precondition(batch > 0, "packStoredPayloads(batch:) of nothing")  // programmer error
        var result = RepackingResult()
        // Payload rows, then the texts items keep in their rows (InlineText.swift).
        for place in [PackedPlace.blobs, .items] {
            if try pack(place, batch: batch, into: &result) { break }
        }
        return result
    }

    /// Where packed payloads are kept: a table, its bytes' and dictionary's columns.
    private struct PackedPlace {
        let table: String
        let data: String
        let packing: String
        /// Whether the table's triggers count a row packed in place (`items_packing_update`).
        let countedByTrigger: Bool

        static let blobs = PackedPlace(table: "blobs", data: "data", packing: "packing", countedByTrigger: false)
        static let items = PackedPlace(table: "items", data: "text_data", packing: "text_packing", countedByTrigger: true)
    }

    /// Packs `place`'s rows as `packStoredPayloads` says; true when the store has no dictionary to pack with.
    private func pack(_ place: PackedPlace, batch: Int, into result: inout RepackingResult) throws(HistoryError) -> Bool {
        let (table, data, packing) = (place.table, place.data, place.packing)
        var after: Int64 = 0
        while true {
            let isDone = try write { () throws -> Bool in
                guard let packer = try self.packing.currentPacker() else {
                    result.hasNoDictionary = true
                    return true
                }
                let through = after + Int64(batch)
                let rows = try db.prepare(
                    "SELECT id, \(data) AS data FROM \(table) WHERE id > ? AND id <= ? AND \(data) IS NOT NULL "
                        + "AND \(packing) IS NULL AND size >= ? ORDER BY id")
                try rows.bind([after, through, Int64(PayloadPacking.minimumSize)])
                var packed: [(id: Int64, stored: Data, before: Int)] = []
                while let row = try rows.step() {
                    guard let id = row.int(0), let data = row.data("data") else { continue }
                    let (stored, packing) = PayloadPacking.packed(data, with: packer)
                    if packing != nil { packed.append((id, stored, data.count)) }
                }
                rows.reset()
                after = through
                let isLast = try db.row("SELECT 1 AS more FROM \(table) WHERE id > ? LIMIT 1", through) == nil
                guard !packed.isEmpty else { return isLast }
                let update = try db.prepare(
                    "UPDATE \(table) SET \(data) = ?, \(packing) = ? WHERE id = ? AND \(packing) IS NULL AND \(data) IS NOT NULL")
                for payload in packed {
                    try update.bind([payload.stored, packer.id, payload.id])
                    try update.runToCompletion()
                    update.reset()
                    guard db.changes == 1 else {
                        throw HistoryError(.io, "A payload changed while it was being packed (\(table) row \(payload.id)).")
                    }
                    result.packed += 1
                    result.bytesBefore += payload.before
                    result.bytesAfter += payload.stored.count
                }
                // The triggers count the payloads packed with each dictionary as rows are inserted and deleted; a
                // payload row packed in place is counted here (an item's text by `items_packing_update`).
                if !place.countedByTrigger {
                    try db.run(
                        "UPDATE packing_uses SET uses = uses + ? WHERE packing = ?", Int64(packed.count), packer.id)
                }
                return isLast
            }
            if isDone { return result.hasNoDictionary }
        }
    }
}
