package import FoundationEssentials
import Glibc
public import PasteboardModel
import SQLiteSupport

/// Many items recorded as one transaction: everything added lands together at `commit()`, or nothing does.
///
/// An item is recorded exactly as `HistoryStore.record(_:metadata:)` records it (a repeat merges into the existing
/// item: moved to the top, counts added, a pin kept, of two expiries the later one, and the bytes of the later copy
/// when they differ), but new rows are written in
/// batches, a few hundred per statement, with ids given here: a million lines then import at the speed of SQLite's
/// B-trees rather than of a million statements. The write lock is held from `init` to `commit()`; an import that
/// is abandoned (or whose process dies) rolls back.
///
/// The history stays newest first by last copy: the import keeps each line's date, and at `commit()` its items take
/// their places by that date among the items copied after the oldest of them, which move back above the older
/// imported ones (see `placeByDate()`). An item copied a minute ago stays above a thousand imported from last year,
/// and a line repeating an item with an older date adds its counts without moving it.
///
/// The items go in without their search-index entries: they join the store's search backlog (see
/// HistoryStore+SearchBacklog.swift), where search finds them at once, and `HistoryStore.indexBacklog(limit:)`
/// indexes them afterwards, a slice per transaction. Building the trigram index is most of an import's cost (SQLite
/// alone loads a million short random texts in 2 s, and takes 30 s more to index them), and indexing afterwards
/// keeps it out of the one transaction that holds the write lock.
///
/// ```swift
/// let bulk = try HistoryImport(store: store)
/// for item in items { try bulk.add(item, metadata: CaptureMetadata(date: then)) }
/// try bulk.commit()
/// ```
public final class HistoryImport {
    private let store: HistoryStore
    private var isOpen = true
    private let previousCacheSize: Int64
    private var nextPosition: Int64
    /// The first position this import gave out: everything it placed is at or above it until `placeByDate()`.
    package let firstPosition: Int64
    /// Whether the import puts its items in order of their dates (see `placeByDate()`), or as they come (sync, which
    /// orders what arrives itself and remembers each item's position).
    private let ordersByDate: Bool
    /// The dates of the items placed at or above `firstPosition`: the oldest, the newest, and whether they came in
    /// order (no date older than one before it).
    private var oldestPlaced = Double.infinity
    private var newestPlaced = -Double.infinity
    private var placedInOrder = true
    private var nextItemID: Int64
    /// For the change feed's one `imported` row: the first new item's id, and how many lines it took in.
    private var firstNewItemID: Int64?
    private var addedLines = 0
    private var nextBlobID: Int64

    private let findIdentity: Statement
    private let findBlob: Statement
    private let addBlobReferences: Statement
    private let updateMerged: Statement
    private let findRepresentations: Statement

    /// Rows waiting to be inserted together (see `writeRows`).
    private var pendingBlobs: [PendingBlob] = []
    private var pendingBlobIndex: [Data: Int] = [:]
    private var pendingItems: [PendingItem] = []
    private var pendingIdentities: Set<Data> = []
    private var pendingRepresentations: [(item: Int64, ordinal: Int64, type: Int64, blob: Int64)] = []
    private var pendingBytes = 0
    /// Removes the index entries of indexed items a line merges into (they move into the backlog).
    private let index: SearchIndexWriter
    /// Items at positions up to this one are in the search index (see HistoryStore+SearchBacklog.swift).
    private let indexedThrough: Int64
    /// Every identity and payload hash in the store, when it was small enough to read them all at the start (see
    /// `KeyFilter`): a key the filter never saw is new, without a lookup.
    private var identityFilter: KeyFilter?
    private var blobFilter: KeyFilter?
    /// After how many added lines the filters are read, when the store is small enough for them; nil once read,
    /// or never.
    private var filtersFrom: Int?
    /// The filters kept from one import to the next (sync's placement), when the caller keeps them: the import takes
    /// them at its start (brought up to date), and gives them back with its own keys when it ends.
    private let knownKeys: KnownKeys?
    /// Batch statements by table and number of rows.
    private var batchStatements: [BatchKey: Statement] = [:]
    /// Items in the store when the import began, the cache's size (KiB) now, and its ceiling (see `cacheKiB`).
    private var itemsAtStart: Int64 = 0
    private var cacheKiB = HistoryImport.cacheKiB
    private let cacheCeilingKiB = HistoryImport.cacheCeiling() / 1024
    private var itemsAtLastCacheLook = 0
    /// The totals the store's insert triggers keep, counted here instead once the import writes full batches (see
    /// `SuspendedTotals`); nil before, and for an import of fewer rows, which leaves the triggers alone.
    private var totals: SuspendedTotals?
    /// Why the import stopped, when writing its rows failed: it was rolled back, and every later call says so.
    private var failure: HistoryError?

    private struct BatchKey: Hashable {
        let table: String
        let rows: Int
    }

    private struct PendingBlob {
        let id: Int64
        let hash: Data
        let size: Int
        let inline: Data?
        var references: Int64
    }

    private struct ExistingItem {
        let id: Int64
        let position: Int64
        let textBlob: Int64?
        let lastCopied: Double
    }

    private struct PendingItem {
        let id: Int64
        let position: Int64
        let identity: Data
        let metadata: CaptureMetadata
        let kind: HistoryItem.Kind
        let size: Int
        let textBlob: Int64?
        /// The item's one text kept in its row (InlineText.swift), unpacked, and its content type's id.
        let inlineText: Data?
        let inlineType: Int64?
    }

    /// Pages SQLite may keep in memory while importing, in KiB, at least (the store's own default is 512 KiB).
    ///
    /// Each new item inserts keys at random places of two indexes (payload hashes, item identities) of about 28 bytes
    /// an item each. A page the cache dropped is written to the write-ahead log and read back, and a read of a page
    /// in the log searches its index of frames, which grows with the import (one transaction): at ten million items
    /// with 64 MiB, a sixth of the time went to that search alone (`sqlite3WalFindFrame`) and the rows committed at
    /// 32,900 items/s; with 1 GiB at 49,200 items/s. So the cache grows with the history the import writes into
    /// (`cacheBytesPerItem` each), from this floor up to `cacheCeiling()`; SQLite takes pages only as it uses them.
    /// Measured over a million random texts, rows only (the search index is built afterwards): 16 MiB took 104 s,
    /// 64 MiB 32 s, 128 MiB 42 s on the same loaded machine.
    static let cacheKiB: Int64 = 64 * 1024
    /// Cache per item in the store (the two random indexes with room to spare).
    static let cacheBytesPerItem: Int64 = 96
    /// Items added between two looks at the cache's size.
    static let cacheStepItems = 1 << 16

    /// The most the import's cache may take: a sixteenth of the machine's memory, at most 1 GiB (a history of about
    /// eleven million items fits), and never less than the floor.
    static func cacheCeiling() -> Int64 {
        let pages = Int64(sysconf(Int32(_SC_PHYS_PAGES)))
        let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let physical = pages > 0 && pageSize > 0 ? pages * pageSize : 0
        return max(cacheKiB * 1024, min(1 << 30, physical / 16))
    }

    /// Rows written by one statement, at most.
    static let batchRows = 256
    /// Items or payloads a store may hold for the import to read all their keys into its filters (about 0.1 s at
    /// this size); a larger store is asked about each key.
    static let filterPreloadLimit: Int64 = 250_000
    /// The import reads the store's keys into its filters once it has added a line for every this many keys the
    /// store holds (a chosen balance: before, each of its keys is looked up). A small import into a bigger store
    /// then never reads them: a sync join of 200,000 items commits an import at each of its thirty slices, and
    /// reading every key each time took a sixteenth of the joining daemon's processor time.
    static let linesPerPreloadedKey: Int64 = 8
    /// Bytes of payloads held for the next batch before it is written, at most.
    static let batchBytes = 4 << 20

    /// Starts the transaction, waiting (up to the busy timeout) for other writers to finish.
    public convenience init(store: HistoryStore) throws(HistoryError) {
        try self.init(store: store, ordersByDate: true)
    }

    /// Starts the transaction; `ordersByDate: false` leaves every item where `add` put it (at the top, in the order
    /// added, whatever its date), for sync, which keeps each item's position as `lastPosition` gave it.
    ///
    /// With `knownKeys` (kept by the caller from one import to the next, see KnownKeys.swift), the import asks them
    /// instead of reading the store's keys or looking each key up.
    package init(store: HistoryStore, ordersByDate: Bool, knownKeys: KnownKeys? = nil) throws(HistoryError) {
        self.store = store
        self.ordersByDate = ordersByDate
        self.knownKeys = knownKeys
        let db = store.db
        precondition(!db.isInTransaction, "HistoryImport starts its own transaction")  // programmer error
        (previousCacheSize, nextPosition, indexedThrough, index, nextItemID, nextBlobID, findIdentity, findBlob,
         addBlobReferences, updateMerged, findRepresentations) = try store.perform {
            let cache = try db.row("PRAGMA cache_size")?.int(0) ?? -2000
            // synchronous = FULL: the commit syncs the write-ahead log, so that an import reported done is on disk
            // (the store's NORMAL leaves the last commits to the next checkpoint, and a power cut could lose them).
            // It cannot change inside a transaction; `commit()` and `rollBack()` set it back.
            try db.execute("PRAGMA cache_size = -\(Self.cacheKiB); PRAGMA synchronous = FULL")
            try db.execute("BEGIN IMMEDIATE")
            store.pendingFileRemovals.removeAll()
            let next = try store.nextPosition()
            return (
                cache, next, try store.searchIndexedThrough() ?? next - 1, try SearchIndexWriter(db: db),
                (try db.row("SELECT coalesce(max(id), 0) + 1 AS next FROM items")?.int("next")) ?? 1,
                (try db.row("SELECT coalesce(max(id), 0) + 1 AS next FROM blobs")?.int("next")) ?? 1,
                try db.prepare("SELECT id, position, text_blob, last_copied FROM items WHERE identity = ?"),
                try db.prepare("SELECT id FROM blobs WHERE hash = ?"),
                try db.prepare("UPDATE blobs SET refcount = refcount + ? WHERE id = ?"),
                try db.prepare(HistoryStore.mergeSQL),
                try db.prepare(
                    """
                    SELECT r.type_id, b.hash FROM representations r LEFT JOIN blobs b ON b.id = r.blob_id
                    WHERE r.item_id = ? ORDER BY r.ordinal
                    """))
        }
        firstPosition = nextPosition
        itemsAtStart = Int64(try store.count())
        try store.perform { try growCache() }
        if let knownKeys {
            try store.perform { try knownKeys.refresh(db) }  // a failure rolls back in deinit, as above
            (identityFilter, blobFilter) = (knownKeys.identities, knownKeys.hashes)
            (knownKeys.identities, knownKeys.hashes) = (KeyFilter(), KeyFilter())  // not shared: no copy on write
            return
        }
        try store.perform {
            // From the totals the triggers keep (schema 8), not count(*): that read every item and every payload's
            // row, each time an import started (sync starts one a round, and one a slice of a join).
            let counts = try db.row(
                "SELECT (SELECT coalesce(sum(items), 0) FROM item_totals) AS items, (SELECT coalesce(sum(blobs), 0) FROM blob_totals) AS blobs")
            let (items, blobs) = (counts?.int("items") ?? .max, counts?.int("blobs") ?? .max)
            guard items <= Self.filterPreloadLimit, blobs <= Self.filterPreloadLimit else { return }
            filtersFrom = Int(max(items, blobs) / Self.linesPerPreloadedKey)
            try loadFiltersIfDue()
        }
    }

    /// Reads every identity and payload hash into the filters once the import has added `filtersFrom` lines (see
    /// `linesPerPreloadedKey`), with those of the rows still waiting for their batch.
    private func loadFiltersIfDue() throws {
        guard let from = filtersFrom, addedLines >= from else { return }
        filtersFrom = nil
        var identities = try Self.filter(store.db, "SELECT identity FROM items")
        for identity in pendingIdentities { identity.withUnsafeBytes { identities.insert($0) } }
        var hashes = try Self.filter(store.db, "SELECT hash FROM blobs")
        for hash in pendingBlobIndex.keys { hash.withUnsafeBytes { hashes.insert($0) } }
        (identityFilter, blobFilter) = (identities, hashes)
    }

    /// A filter holding every key the query returns (also `KnownKeys`'s).
    static func filter(_ db: Connection, _ sql: String) throws -> KeyFilter {
        var filter = KeyFilter()
        let statement = try db.prepare(sql)
        while try statement.next() {
            statement.withBlob(at: 0) { filter.insert($0) }
        }
        return filter
    }

    deinit {
        if isOpen { rollBack() }
    }

    /// The position of the item the last `add` recorded or moved to the top (sync keeps it; an import ordering by
    /// date may move it again at `commit()`).
    package var lastPosition: Int64 { nextPosition - 1 }

    // MARK: - Adding

    /// Records one item inside the import's transaction; returns its id and whether it is new.
    ///
    /// The item's bytes are copied before this returns, so they may live in a buffer the caller reuses.
    ///
    /// - Parameter mergingRepeats: false leaves an item already in the history (or added earlier in this import)
    ///   exactly as it is, instead of counting the line as another copy of it: for histories read from other
    ///   managers, which a second import must not change.
    @discardableResult
    public func add(
        _ item: PasteboardItem, metadata: CaptureMetadata, mergingRepeats: Bool = true
    ) throws(HistoryError) -> RecordResult {
        // Without an identity to match, an item is always added.
        try add(item, metadata: metadata, mergingRepeats: mergingRepeats, ifIdentityIs: nil)!
    }

    /// Adds `item` as `add(_:metadata:mergingRepeats:)` does, only when its identity is `expected` (sync's check
    /// that the payloads it holds make the item an operation names, without hashing them twice); nil, with nothing
    /// added, when it is not.
    package func add(
        _ item: PasteboardItem, metadata: CaptureMetadata, mergingRepeats: Bool = true, ifIdentityIs expected: Data?
    ) throws(HistoryError) -> RecordResult? {
        if let failure { throw failure }
        precondition(isOpen, "add(_:metadata:) after commit() or rollBack()")  // programmer error
        guard !item.isEmpty else { throw HistoryError(.invalidInput, "Nothing to record: the item has no content.") }
        try metadata.validateDates()
        let prepared = try item.representations.map { representation throws(HistoryError) in
            (representation.type, try store.prepareBlob(representation))
        }
        let identity = ItemIdentity.of(item, addresses: prepared.map { $0.1.hash })
        if let expected, identity != expected { return nil }
        return try store.perform { () throws -> RecordResult in
            try loadFiltersIfDue()
            let mightExist = identityFilter.map { filter in identity.withUnsafeBytes { filter.mightContain($0) } } ?? true
            // A repeat of a line earlier in this batch: write the batch, then find the item as any other.
            if mightExist && pendingIdentities.contains(identity) { try writeRows() }
            if mightExist, let existing = try existingItem(identity) {
                guard mergingRepeats else { return RecordResult(id: existing.id, isNew: false) }
                try merge(existing, metadata: metadata)
                // The same content with other bytes (see ItemIdentity): the item keeps those of the later copy.
                if metadata.date.timeIntervalSince1970 >= existing.lastCopied,
                    try representationsDiffer(id: existing.id, from: prepared)
                {
                    try replaceRepresentations(id: existing.id, item: item, prepared: prepared)
                }
                addedLines += 1
                return RecordResult(id: existing.id, isNew: false)
            }
            let textType = ItemText.textType(of: item)
            let position = nextPosition
            let id = nextItemID
            var textBlob: Int64?
            var inlineText: Data?
            var inlineType: Int64?
            if HistoryStore.keepsTextInline(prepared, textType: textType), let (type, blob) = prepared.first {
                // One text alone stays in the item's row (InlineText.swift).
                inlineText = blob.inline.map { data in data.withUnsafeBytes { Data($0) } }  // see `add`: copied
                inlineType = try store.typeID(type)
                pendingBytes += blob.size
            } else {
                for (ordinal, (type, blob)) in prepared.enumerated() {
                    // The item's text blob is referenced twice: as a representation and as the item's text.
                    let blobID = try retain(blob, references: type == textType ? 2 : 1)
                    if type == textType { textBlob = blobID }
                    pendingRepresentations.append((id, Int64(ordinal), try store.typeID(type), blobID))
                }
                if textBlob == nil {
                    let blob = try store.prepareBlob(Data(ItemText.derivedText(of: item).utf8))
                    textBlob = try retain(blob, references: 1)
                }
            }
            pendingItems.append(
                PendingItem(
                    id: id, position: position, identity: identity, metadata: metadata, kind: ItemText.kind(of: item),
                    size: item.byteCount, textBlob: textBlob, inlineText: inlineText, inlineType: inlineType))
            pendingIdentities.insert(identity)
            identity.withUnsafeBytes { identityFilter?.insert($0) }
            if firstNewItemID == nil { firstNewItemID = id }
            notePlaced(metadata.date)
            addedLines += 1
            nextItemID += 1
            nextPosition += 1
            if addedLines - itemsAtLastCacheLook >= Self.cacheStepItems { try growCache() }
            if pendingItems.count >= Self.batchRows || pendingBlobs.count >= Self.batchRows
                || pendingRepresentations.count >= Self.batchRows || pendingBytes >= Self.batchBytes
            {
                try writeRows()
            }
            return RecordResult(id: id, isNew: true)
        }
    }

    private func existingItem(_ identity: Data) throws -> ExistingItem? {
        try identity.withUnsafeBytes { try findIdentity.bind(blob: $0, at: 1) }
        defer { findIdentity.rewind() }
        guard try findIdentity.next() else { return nil }
        return ExistingItem(
            id: findIdentity.int64(at: 0), position: findIdentity.int64(at: 1),
            textBlob: findIdentity.isNull(at: 2) ? nil : findIdentity.int64(at: 2),
            lastCopied: findIdentity.double(at: 3))
    }

    /// Adds references to a blob: one already stored or waiting gets them added, a new one waits for the batch.
    private func retain(_ blob: HistoryStore.PreparedBlob, references: Int64) throws -> Int64 {
        let mightExist = blobFilter.map { filter in blob.hash.withUnsafeBytes { filter.mightContain($0) } } ?? true
        if mightExist, let index = pendingBlobIndex[blob.hash] {
            pendingBlobs[index].references += references
            return pendingBlobs[index].id
        }
        var found: Int64?
        if mightExist {
            try blob.hash.withUnsafeBytes { try findBlob.bind(blob: $0, at: 1) }
            found = try findBlob.next() ? findBlob.int64(at: 0) : nil
            findBlob.rewind()
        }
        if let found {
            try addBlobReferences.bind(references, at: 1)
            try addBlobReferences.bind(found, at: 2)
            try addBlobReferences.runToCompletion()
            return found
        }
        let id = nextBlobID
        nextBlobID += 1
        // Its file stays: an earlier line may have dropped the last reference to the same payload (see
        // `replaceRepresentations`).
        store.pendingFileRemovals.removeAll { $0 == blob.hash }
        // A copy: the caller's bytes may be overwritten by the next line before the batch is written.
        let inline = blob.inline.map { data in data.withUnsafeBytes { Data($0) } }
        pendingBlobIndex[blob.hash] = pendingBlobs.count
        blob.hash.withUnsafeBytes { blobFilter?.insert($0) }
        pendingBlobs.append(PendingBlob(id: id, hash: blob.hash, size: blob.size, inline: inline, references: references))
        pendingBytes += inline?.count ?? 0
        return id
    }

    /// Notes the date of an item placed at the top (see `placeByDate()`).
    private func notePlaced(_ date: Date) {
        let time = date.timeIntervalSince1970
        if time < newestPlaced { placedInOrder = false }
        newestPlaced = max(newestPlaced, time)
        oldestPlaced = min(oldestPlaced, time)
    }

    /// A repeat of an existing item: the same update `HistoryStore.record` makes. A repeat older than the item's
    /// last copy (ordering by date) adds its counts and leaves the item where it is, with its last copy's date.
    private func merge(_ existing: ExistingItem, metadata: CaptureMetadata) throws {
        if ordersByDate && metadata.date.timeIntervalSince1970 < existing.lastCopied {
            try bindMerge(position: existing.position, date: existing.lastCopied, metadata: metadata, keepsSource: true)
            try updateMerged.bind(existing.id, at: 12)
            try updateMerged.runToCompletion()
            return
        }
        let position = nextPosition
        nextPosition += 1
        notePlaced(metadata.date)
        if existing.position <= indexedThrough,
            let text = try store.searchEntry(itemID: existing.id, textBlob: existing.textBlob)
        {
            // Its entry goes: the item moves to a position in the backlog. (Stored already: an item waiting in the
            // batch is written before it is looked up, see `add`.)
            try index.queue(isDeletion: true, position: existing.position, text: text)
        }
        try bindMerge(position: position, date: metadata.date.timeIntervalSince1970, metadata: metadata, keepsSource: false)
        try updateMerged.bind(existing.id, at: 12)
        try updateMerged.runToCompletion()
    }

    /// Binds `HistoryStore.mergeSQL`'s values but the item's id; `keepsSource` keeps the item's source and selection
    /// (those of its later copy).
    private func bindMerge(position: Int64, date: Double, metadata: CaptureMetadata, keepsSource: Bool) throws {
        let expiry = metadata.expiresAt?.timeIntervalSince1970
        try updateMerged.bind(position, at: 1)
        try updateMerged.bind(date, at: 2)
        try updateMerged.bind(Int64(max(1, metadata.copyCount)), at: 3)
        try updateMerged.bind(metadata.isPinned, at: 4)
        try updateMerged.bind(keepsSource ? nil : metadata.source, at: 5)
        try updateMerged.bind(keepsSource ? nil : metadata.selection, at: 6)
        try updateMerged.bind(metadata.isPinned, at: 7)
        for index: Int32 in [8, 9] {
            if let expiry { try updateMerged.bind(expiry, at: index) } else { try updateMerged.bindNull(at: index) }
        }
        try updateMerged.bind(metadata.asksBeforePaste, at: 10)
        if let created = metadata.created?.timeIntervalSince1970 {
            try updateMerged.bind(created, at: 11)
        } else {
            try updateMerged.bindNull(at: 11)
        }
    }

    // MARK: - Order

    /// Puts the history back in order of last copy, after `add` put every item it placed at the top in the order
    /// the lines came: the existing items copied after the oldest of them (found from the top down, where the
    /// newest are) and the placed items take new positions above all, in order of their dates (an existing item
    /// first of two with the same date). Positions stay unique and only grow, so the search backlog (everything
    /// moved is above its mark, and a moved item's index entry goes) and sync's watermark (everything moved is
    /// above it, and is written out again) hold as for a copy. Nothing moves when the lines came in order and are
    /// all newer than the history (an import into an empty store, `pb export`'s oldest-first lines); when only
    /// newer existing items need to go back on top (a copy made now, lines from last year), only they move.
    private func placeByDate() throws {
        guard ordersByDate, nextPosition > firstPosition else { return }
        let db = store.db
        var later: [(id: Int64, position: Int64, textBlob: Int64?, lastCopied: Double)] = []
        let page = try db.prepare(
            "SELECT id, position, text_blob, last_copied FROM items WHERE position < ? ORDER BY position DESC LIMIT 256")
        var below = firstPosition
        walk: while true {
            try page.bind(below, at: 1)
            var rows = 0
            while try page.next() {
                rows += 1
                let lastCopied = page.double(at: 3)
                if lastCopied <= oldestPlaced { break walk }
                below = page.int64(at: 1)
                later.append(
                    (page.int64(at: 0), below, page.isNull(at: 2) ? nil : page.int64(at: 2), lastCopied))
            }
            page.rewind()
            if rows == 0 { break }
        }
        page.rewind()
        if later.isEmpty && placedInOrder { return }
        for item in later where item.position <= indexedThrough {
            guard let text = try store.searchEntry(itemID: item.id, textBlob: item.textBlob) else { continue }
            try index.queue(isDeletion: true, position: item.position, text: text)
        }
        // Oldest first: the order of the new positions.
        var moving = later.reversed().map { (id: $0.id, position: $0.position, lastCopied: $0.lastCopied) }
        let newerThanAllPlaced = later.allSatisfy { $0.lastCopied > newestPlaced }
        if !(placedInOrder && newerThanAllPlaced) {
            let placed = try db.prepare("SELECT id, position, last_copied FROM items WHERE position >= ? ORDER BY position")
            try placed.bind(firstPosition, at: 1)
            while try placed.next() {
                moving.append((placed.int64(at: 0), placed.int64(at: 1), placed.double(at: 2)))
            }
            placed.rewind()
            moving.sort { ($0.lastCopied, $0.position) < ($1.lastCopied, $1.position) }
        }
        let move = try db.prepare("UPDATE items SET position = ? WHERE id = ?")
        for item in moving {
            try move.bind(nextPosition, at: 1)
            try move.bind(item.id, at: 2)
            try move.runToCompletion()
            nextPosition += 1
        }
    }

    // MARK: - Newer bytes

    /// Whether item `id` (stored, not waiting in the batch) has other representations than `prepared`.
    private func representationsDiffer(
        id: Int64, from prepared: [(ContentType, HistoryStore.PreparedBlob)]
    ) throws -> Bool {
        if let differs = try store.inlineTextDiffers(id: id, from: prepared) { return differs }
        try findRepresentations.bind(id, at: 1)
        defer { findRepresentations.rewind() }
        var count = 0
        while try findRepresentations.next() {
            guard count < prepared.count else { return true }
            let (type, blob) = prepared[count]
            let sameBytes = findRepresentations.withBlob(at: 1) { $0.elementsEqual(blob.hash) }
            guard findRepresentations.int64(at: 0) == (try store.typeID(type)), sameBytes else { return true }
            count += 1
        }
        return count != prepared.count
    }

    /// Gives item `id` the representations `prepared` of `item`, as `HistoryStore.replaceRepresentations` does for a
    /// copy, with the payloads new to the store waiting in the batch like any others. The batch is written first, so
    /// that the item's representations (an earlier line's newer bytes among them) and their payloads' references
    /// are all stored, and released there; a file that loses its last reference goes when the import commits.
    private func replaceRepresentations(
        id: Int64, item: PasteboardItem, prepared: [(ContentType, HistoryStore.PreparedBlob)]
    ) throws {
        try writeRows()
        let db = store.db
        let textType = ItemText.textType(of: item)
        var textBlob: Int64?
        var rows: [(item: Int64, ordinal: Int64, type: Int64, blob: Int64)] = []
        for (ordinal, (type, blob)) in prepared.enumerated() {
            let blobID = try retain(blob, references: type == textType ? 2 : 1)
            if type == textType { textBlob = blobID }
            rows.append((id, Int64(ordinal), try store.typeID(type), blobID))
        }
        if textBlob == nil {
            textBlob = try retain(try store.prepareBlob(Data(ItemText.derivedText(of: item).utf8)), references: 1)
        }
        for row in try db.rows("SELECT blob_id FROM representations WHERE item_id = ?", id) {
            if let blobID = row.int("blob_id") { try store.releaseBlob(blobID) }
        }
        if let oldText = try db.row("SELECT text_blob FROM items WHERE id = ?", id)?.int("text_blob") {
            try store.releaseBlob(oldText)
        }
        try db.run("DELETE FROM representations WHERE item_id = ?", id)
        pendingRepresentations.append(contentsOf: rows)
        // An inline text (InlineText.swift) goes with the rest: the item now keeps its payloads in rows.
        try db.run(
            "UPDATE items SET kind = ?, size = ?, text_blob = ?, text_data = NULL, text_packing = NULL, text_type = NULL "
                + "WHERE id = ?", ItemText.kind(of: item).rawValue, item.byteCount, textBlob, id)
    }

    // MARK: - Writing batches

    /// Lets the page cache grow with the items in the store and added so far (see `cacheKiB`).
    private func growCache() throws {
        itemsAtLastCacheLook = addedLines
        let wanted = min(cacheCeilingKiB, (itemsAtStart + Int64(addedLines)) * Self.cacheBytesPerItem / 1024)
        guard wanted > cacheKiB else { return }
        cacheKiB = wanted
        try store.db.execute("PRAGMA cache_size = -\(wanted)")
    }

    /// One statement inserting `rows` rows of `columns` values each into `table(columns)`, prepared once.
    private func batchStatement(_ table: String, _ columns: [String], rows: Int) throws -> Statement {
        let key = BatchKey(table: table, rows: rows)
        if let statement = batchStatements[key] { return statement }
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        // OR FAIL once no trigger fires: a statement that cannot stop half-way with rows of its own written needs
        // no statement journal (see SuspendedTotals.swift). A row it refuses is a fault here all the same, and the
        // import rolls back whole (`writeRows`).
        let verb = totals == nil ? "INSERT" : "INSERT OR FAIL"
        let statement = try store.db.prepare(
            "\(verb) INTO \(table)(\(columns.joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: rows).joined(separator: ", "))
        batchStatements[key] = statement
        return statement
    }

    /// Inserts the waiting blobs, items and representations, a statement per table. When that fails the import is
    /// rolled back at once: a statement may have stopped half-way, and SQLite may have rolled the transaction back
    /// itself (a full disk), after which nothing more may be written as if it were still open.
    private func writeRows() throws {
        do {
            try writePendingRows()
        } catch {
            let cause = store.historyError(error)
            failure = HistoryError(
                cause.code, "The import stopped and was rolled back: \(cause.message)", underlying: cause)
            rollBack()
            throw cause
        }
    }

    private func writePendingRows() throws {
        if totals == nil && (pendingItems.count >= Self.batchRows || pendingBlobs.count >= Self.batchRows) {
            totals = try SuspendedTotals(db: store.db)
            batchStatements.removeAll()  // prepared before, with a plain INSERT
        }
        if !pendingBlobs.isEmpty {
            let statement = try batchStatement(
                "blobs", ["id", "hash", "size", "data", "refcount", "packing"], rows: pendingBlobs.count)
            let packed = try store.packing.packedBatch(pendingBlobs.map(\.inline))
            for (offset, blob) in pendingBlobs.enumerated() {
                let column = Int32(offset * 6)
                try statement.bind(blob.id, at: column + 1)
                try blob.hash.withUnsafeBytes { try statement.bind(blob: $0, at: column + 2) }
                try statement.bind(Int64(blob.size), at: column + 3)
                if let stored = packed[offset].stored {
                    let packing = packed[offset].packing
                    try stored.withUnsafeBytes { try statement.bind(blob: $0, at: column + 4) }
                    if let packing { try statement.bind(packing, at: column + 6) } else { try statement.bindNull(at: column + 6) }
                } else {
                    try statement.bindNull(at: column + 4)
                    try statement.bindNull(at: column + 6)
                }
                try statement.bind(blob.references, at: column + 5)
                totals?.noteBlob(
                    isInFile: packed[offset].stored == nil, size: Int64(blob.size), packing: packed[offset].packing)
            }
            try statement.runToCompletion()
            statement.reset()  // drops the bound copies of the payloads
        }
        if !pendingItems.isEmpty {
            let statement = try batchStatement(
                "items",
                ["id", "position", "identity", "created", "last_copied", "copy_count", "pinned", "kind", "size",
                 "text_blob", "source", "selection", "expires_at", "text_data", "text_packing", "text_type"],
                rows: pendingItems.count)
            let packed = try store.packing.packedBatch(pendingItems.map(\.inlineText))
            for (offset, item) in pendingItems.enumerated() {
                let column = Int32(offset * 16)
                let metadata = item.metadata
                try statement.bind(item.id, at: column + 1)
                try statement.bind(item.position, at: column + 2)
                try item.identity.withUnsafeBytes { try statement.bind(blob: $0, at: column + 3) }
                let date = metadata.date.timeIntervalSince1970
                try statement.bind(HistoryStore.storedCreated(metadata.created, lastCopied: date).sqliteValue, at: column + 4)
                try statement.bind(date, at: column + 5)
                try statement.bind(Int64(max(1, metadata.copyCount)), at: column + 6)
                try statement.bind(metadata.isPinned, at: column + 7)
                try statement.bind(item.kind.rawValue, at: column + 8)
                try statement.bind(Int64(item.size), at: column + 9)
                if let textBlob = item.textBlob { try statement.bind(textBlob, at: column + 10) } else { try statement.bindNull(at: column + 10) }
                try statement.bind(metadata.source, at: column + 11)
                try statement.bind(metadata.selection, at: column + 12)
                if let expiry = metadata.expiresAt {
                    try statement.bind(expiry.timeIntervalSince1970, at: column + 13)
                } else {
                    try statement.bindNull(at: column + 13)
                }
                let (stored, packing) = packed[offset]
                if let stored, let type = item.inlineType {
                    try stored.withUnsafeBytes { try statement.bind(blob: $0, at: column + 14) }
                    if let packing { try statement.bind(packing, at: column + 15) } else { try statement.bindNull(at: column + 15) }
                    try statement.bind(type, at: column + 16)
                } else {
                    try statement.bindNull(at: column + 14)
                    try statement.bindNull(at: column + 15)
                    try statement.bindNull(at: column + 16)
                }
                totals?.noteItem(
                    kind: item.kind.rawValue, isPinned: metadata.isPinned, size: Int64(item.size),
                    isInline: item.inlineType != nil, packing: packing)
            }
            try statement.runToCompletion()
        }
        if !pendingRepresentations.isEmpty {
            let statement = try batchStatement(
                "representations", ["item_id", "ordinal", "type_id", "blob_id"], rows: pendingRepresentations.count)
            for (offset, representation) in pendingRepresentations.enumerated() {
                let column = Int32(offset * 4)
                try statement.bind(representation.item, at: column + 1)
                try statement.bind(representation.ordinal, at: column + 2)
                try statement.bind(representation.type, at: column + 3)
                try statement.bind(representation.blob, at: column + 4)
            }
            try statement.runToCompletion()
        }
        try totals?.flush(db: store.db)
        pendingBlobs.removeAll(keepingCapacity: true)
        pendingBlobIndex.removeAll(keepingCapacity: true)
        pendingItems.removeAll(keepingCapacity: true)
        pendingIdentities.removeAll(keepingCapacity: true)
        pendingRepresentations.removeAll(keepingCapacity: true)
        pendingBytes = 0
    }

    // MARK: - Ending

    /// Makes every added item part of the history at once.
    public func commit() throws(HistoryError) {
        if let failure { throw failure }
        precondition(isOpen, "commit() twice")  // programmer error
        let db = store.db
        do {
            try store.perform {
                try writeRows()
                try placeByDate()
                try index.finish()
                batchStatements.removeAll()
                // Every position this import gave out is above the mark, in the backlog.
                if nextPosition - 1 > indexedThrough { try store.setSearchIndexedThrough(indexedThrough) }
                try totals?.restore(db: db)
                totals = nil
                if addedLines > 0 {
                    try store.noteChange(
                        .imported, itemID: firstNewItemID, lastItemID: firstNewItemID.map { _ in nextItemID - 1 },
                        count: addedLines)
                }
                let tallies = knownKeys == nil ? nil : try KnownKeys.tallies(db)
                try db.execute("COMMIT")
                knownKeys?.note(tallies)
                try db.execute("PRAGMA cache_size = \(previousCacheSize); PRAGMA synchronous = NORMAL")
            }
        } catch {
            rollBack()
            throw error
        }
        isOpen = false
        returnFilters()
        // Payload files whose last reference a line's newer bytes dropped (see `replaceRepresentations`).
        let removals = store.pendingFileRemovals
        store.pendingFileRemovals.removeAll()
        for hash in removals {
            do {
                try store.files.remove(hash: hash)
            } catch {
                throw HistoryError(
                    error.code, "The import was saved, but a payload file stayed behind: \(error.message)",
                    underlying: error)
            }
        }
    }

    /// Abandons the import: the history is as it was before `init`.
    public func rollBack() {
        guard isOpen else { return }
        isOpen = false
        let db = store.db
        // Rolling back is best effort: SQLite rolls back by itself when it cannot (the journal stays consistent),
        // and the error that made the import stop is the one to report.
        batchStatements.removeAll()
        store.pendingFileRemovals.removeAll()  // rolled back: their references are back
        index.abandon()
        if db.isInTransaction { _ = Result { try db.execute("ROLLBACK") } }
        _ = Result { try db.execute("PRAGMA cache_size = \(previousCacheSize); PRAGMA synchronous = NORMAL") }
        returnFilters()
    }

    /// Gives the kept filters back, with the keys this import added: a store rolled back to where they were noted
    /// holds fewer keys than they do, which only makes them say "perhaps" more often.
    private func returnFilters() {
        guard let knownKeys, let identityFilter, let blobFilter else { return }
        (knownKeys.identities, knownKeys.hashes) = (identityFilter, blobFilter)
        (self.identityFilter, self.blobFilter) = (nil, nil)
    }

    /// Whether the store may hold an item with `identity` (false: certainly not), by the import's filter; true when
    /// the import has none.
    package func mightHold(identity: Data) -> Bool {
        guard let identityFilter else { return true }
        return identity.withUnsafeBytes { identityFilter.mightContain($0) }
    }
}

/// An import is confined to the thread of its store.
@available(*, unavailable)
extension HistoryImport: Sendable {}
