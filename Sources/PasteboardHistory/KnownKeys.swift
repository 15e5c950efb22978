package import FoundationEssentials
import SQLiteSupport

/// Every item identity and payload hash a store holds, in filters (`KeyFilter`) kept from one import to the next.
///
/// A sync join commits an import at each slice of its placement (the daemon serves the clipboard between them), and
/// each import into a store of more than `HistoryImport.filterPreloadLimit` keys looked each new item's identity
/// and payloads up in two indexes far larger than the page cache, and the placement looked its identity up once
/// more: the history a join builds is all new, and at a million items these misses were a fifth of its placement.
/// Reading every key again at each slice costs more than the lookups it saves.
///
/// So the filters are kept, and each time they are used they are brought up to date from what was inserted
/// meanwhile, by this connection or another. `key_insertions` (schema 12) counts the rows ever inserted into
/// `items` and `blobs`. With the counts and the largest ids noted when the filters were last complete, for each
/// table: no insertion since, nothing to do; `k` insertions and `k` rows above the largest id noted, those rows are
/// all of them (a row above it was inserted since, and none of them was deleted), and their keys are added; anything
/// else (an id given again after the newest rows were deleted, a counter that went back), every key is read again.
/// Keys of rows deleted since stay in the filters: a filter may say "perhaps" too often, never "not there" wrongly.
package final class KnownKeys {
    var identities = KeyFilter()
    var hashes = KeyFilter()
    /// What the filters hold, as of: the insertion counts and the largest ids (nil: nothing read yet).
    private var noted: Tallies?
    /// Keys read since the filters were made, for tests.
    package private(set) var keysRead = 0
    /// How many times every key was read, for tests.
    package private(set) var fullReads = 0

    struct Tally: Equatable {
        let inserted: Int64
        let largestID: Int64
    }

    typealias Tallies = (items: Tally, blobs: Tally)

    package init() {}

    /// Notes that the filters hold every key of the store as it was at `tallies` (an import put its keys in them).
    func note(_ tallies: Tallies?) {
        noted = tallies
    }

    /// Whether the store may hold an item with `identity` (false: certainly not), as of the last refresh.
    package func mightHold(identity: Data) -> Bool {
        identity.withUnsafeBytes { identities.mightContain($0) }
    }

    /// Bytes the filters take.
    package var byteCount: Int { identities.byteCount + hashes.byteCount }

    /// Brings the filters up to what `db` holds, inside a transaction or out of one: the counts are read first, so
    /// a row inserted after them is at most read again later.
    func refresh(_ db: Connection) throws {
        let now = try Self.tallies(db)
        let before = now == nil ? nil : noted  // counts not to be trusted: every key is read
        noted = nil  // until the filters are complete again
        if let before, let now, now.items != before.items {
            if !(try catchUp(db, table: "items", key: "identity", from: before.items, to: now.items, into: &identities)) {
                identities = try read(db, "SELECT identity FROM items")
            }
        } else if before == nil {
            identities = try read(db, "SELECT identity FROM items")
        }
        if let before, let now, now.blobs != before.blobs {
            if !(try catchUp(db, table: "blobs", key: "hash", from: before.blobs, to: now.blobs, into: &hashes)) {
                hashes = try read(db, "SELECT hash FROM blobs")
            }
        } else if before == nil {
            hashes = try read(db, "SELECT hash FROM blobs")
        }
        noted = now
    }

    /// What `db` holds now, to `note` once the filters hold every key of it, after the transaction commits (were
    /// the commit to fail, counts noted from the rows it rolled back could be reached again by other rows). Nil
    /// when the counts cannot be trusted (their row or one of their triggers is missing): every refresh then reads
    /// every key.
    static func tallies(_ db: Connection) throws -> Tallies? {
        guard
            let row = try db.row(
                "SELECT k.items AS items, k.blobs AS blobs, (SELECT coalesce(max(id), 0) FROM items) AS item, "
                    + "(SELECT coalesce(max(id), 0) FROM blobs) AS blob, (SELECT count(*) FROM sqlite_schema "
                    + "WHERE type = 'trigger' AND name IN ('items_insertions', 'blobs_insertions')) AS triggers "
                    + "FROM key_insertions k WHERE k.id = 1"),
            row.int("triggers") == 2, let items = row.int("items"), let blobs = row.int("blobs"),
            let item = row.int("item"), let blob = row.int("blob")
        else { return nil }
        return (Tally(inserted: items, largestID: item), Tally(inserted: blobs, largestID: blob))
    }

    /// Adds the keys of the rows inserted between `from` and `to`, when the rows above `from`'s largest id are
    /// exactly those; false when they are not (the filter is then to be read again whole).
    private func catchUp(
        _ db: Connection, table: String, key: String, from: Tally, to: Tally, into filter: inout KeyFilter
    ) throws -> Bool {
        let inserted = to.inserted - from.inserted
        guard inserted > 0 else { return false }  // a counter that went back: read again
        // Table and column names are this type's own constants.
        let statement = try db.prepare("SELECT \(key) FROM \(table) WHERE id > ?")
        try statement.bind(.integer(from.largestID), at: 1)
        // Added as they are read: when they turn out not to be all, the caller replaces the filter whole.
        var read: Int64 = 0
        while try statement.next() {
            guard read < inserted else { return false }
            statement.withBlob(at: 0) { filter.insert($0) }
            read += 1
        }
        keysRead += Int(read)
        return read == inserted
    }

    private func read(_ db: Connection, _ sql: String) throws -> KeyFilter {
        let filter = try HistoryImport.filter(db, sql)
        keysRead += filter.count
        fullReads += 1
        return filter
    }
}

/// Confined to the thread of the store it serves.
@available(*, unavailable)
extension KnownKeys: Sendable {}
