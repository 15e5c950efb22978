import Dispatch
import FoundationEssentials
import PasteboardHistory
import PasteboardModel
import Synchronization

/// A device joining with an empty history takes the newest snapshot straight into it: each live item is recorded as
/// the snapshot is read, and its sync-state entry is written once, with the item's position.
///
/// The general take-in writes every entry into the sync state first and puts the items in the history afterwards
/// (`applyArrivals`' placement): each entry is written, read back, decoded again and written a second time, and the
/// history takes the items only once the whole snapshot is in. For a join of millions of items that was most of its
/// time. With nothing in the history and nothing in the sync state there is nothing to compare or move, and the
/// snapshot lists its items in the order of their copies, which is the order the placement would give them.
///
/// What the snapshot holds is committed a batch at a time, the history first and then the entries of the batch, so
/// that the history's search index is built meanwhile (by the daemon, between batches) and a join cut short by the
/// end of the process goes on from what is committed (the next take-in is then the general one). The entries are
/// written on a queue of their own, through a connection of their own, while the next batch goes into the history:
/// the sync state's index of identities takes as long to fill as the history's rows, and there are two cores. A snapshot that
/// fails part way (changed under this device's feet, or holding a malformed operation) is rejected whole: the items
/// it recorded are deleted again and the entries it wrote are removed, as the general take-in's savepoint does.
extension SyncEngine {
    /// Entries written by one batch of a straight join, at most, and the bytes of the payloads it holds meanwhile.
    static let straightBatchItems = 20_000
    static let straightBatchBytes = 32 << 20

    /// Whether a take-in may go straight into the history: the sync state knows nothing yet (no entry, no clear, no
    /// placement under way) and the history is empty.
    func canJoinStraight() throws(SyncError) -> Bool {
        guard try state.hasNoEntries(), try state.clears() == SyncState.Clears(), try state.pendingPlacement() == nil else {
            return false
        }
        return try inStore { () throws(HistoryError) in try store.count() == 0 }
    }

    /// Takes the newest snapshot that holds anything new straight into the history (see above); the older ones are
    /// left to the general take-in. Returns the operations taken in. What could not be placed at once (items whose
    /// payloads have not arrived, operations on an item the snapshot named before, a clear) is left as a placement
    /// for the next `applyArrivals`, which compares the history with the state first when needed.
    func joinStraight(rejected: inout [String], now: Date) throws(SyncError) -> Int {
        for candidate in try snapshotCandidates(rejected: &rejected, now: now) {
            let covers = try newCoverage(of: candidate.header)
            guard !covers.isEmpty else {
                try state.noteFile(candidate.path, folder: folder, status: "applied", reason: nil, operations: 0, now: now)
                continue
            }
            let device = SyncFolder.parseSnapshotPath(candidate.path)?.device.rawValue ?? "sync"
            var join = try StraightJoin(engine: self, device: device, now: now)
            let clockBefore = clock
            let header: SnapshotHeader
            do throws(SyncError) {
                // An item's operations follow one another (its copy, then its delete and pin): those at the end of a
                // slice wait for the next, which may go on with them.
                var held: [SyncOperation] = []
                header = try streamSnapshot(candidate.path, now: now) { (operations) throws(SyncError) in
                    var slice = held + operations
                    held = []
                    if let last = slice.last?.identity {
                        var cut = slice.count
                        while cut > 0, slice[cut - 1].identity == last { cut -= 1 }
                        if cut > 0 {
                            held = Array(slice[cut...])
                            slice.removeSubrange(cut...)
                        }
                    }
                    try join.takeIn(slice, rejected: &rejected)
                }
                try join.takeIn(held, rejected: &rejected)
                try join.finish(rejected: &rejected)
            } catch {
                try join.undo()
                clock = clockBefore
                guard error.code == .rejected else { throw error }
                rejected.append("\(candidate.path): \(error.message)")
                try state.noteFile(candidate.path, folder: folder, status: "rejected", reason: error.message, operations: 0, now: now)
                continue
            }
            try state.transaction {
                try state.save(join.clears)
                try noteTakenIn(candidate.path, header: header, covers: covers, now: now)
                if let placement = try join.placementLeft() { try state.savePendingPlacement(placement) }
            }
            return join.operations
        }
        return 0
    }
}

/// One straight join under way (see `SyncEngine.joinStraight`).
private struct StraightJoin {
    let engine: SyncEngine
    let device: String
    let now: Date
    var operations = 0
    var clears = SyncState.Clears()
    /// Every identity taken in, in a filter: asked before looking one up (an item the snapshot names twice).
    private var seen = KeyFilter()
    /// The earliest copy of an item the snapshot named again after its entry was written: it is placed by the
    /// general placement, as is everything copied after it.
    private var earliestRepeat: HybridClock?
    /// Whether the history must be compared with the state afterwards (a clear, a later delete or pin).
    private var needsCompare = false
    /// The batch under way: entries in the snapshot's order, with the items to record for the live ones.
    private var batch: [(entry: SyncState.Entry, item: PasteboardItem?)] = []
    private var batchIdentities = Set<Data>()
    /// The identities of the last batches handed to the writer, which it may not have committed yet (it is at most
    /// `EntryWriting.depth` batches behind).
    private var handedIdentities: [Set<Data>] = []
    private var batchItems = 0
    private var batchBytes = 0
    /// The history's items this join recorded, as runs of ids (to delete them again if the snapshot fails).
    private var recorded: [ClosedRange<Int64>] = []
    private var keys = KnownKeys()
    private let writer: EntryWriting

    init(engine: SyncEngine, device: String, now: Date) throws(SyncError) {
        self.engine = engine
        self.device = device
        self.now = now
        writer = try EntryWriting(directory: engine.directory)
    }

    /// Takes in a slice of the snapshot's operations, whole items only.
    mutating func takeIn(_ slice: [SyncOperation], rejected: inout [String]) throws(SyncError) {
        var order: [Data] = []
        var entries: [Data: SyncState.Entry] = [:]
        var repeats = Set<Data>()
        for operation in slice {
            engine.clock.observe(operation.clock)
            if operation.kind == .clear {
                if clears.apply(operation) { needsCompare = true }
                continue
            }
            guard let identity = operation.identityBytes else { continue }
            if entries[identity] == nil {
                if identity.withUnsafeBytes({ seen.mightContain($0) }), let known = try entryTakenIn(identity, rejected: &rejected) {
                    entries[identity] = known
                    repeats.insert(identity)
                } else {
                    entries[identity] = SyncState.Entry(identity: identity)
                }
                order.append(identity)
            }
            if entries[identity]!.apply(operation), repeats.contains(identity) {
                earliestRepeat = min(earliestRepeat ?? operation.clock, operation.clock)
            }
        }
        operations += slice.count
        for identity in order {
            guard var entry = entries[identity] else { continue }
            identity.withUnsafeBytes { seen.insert($0) }
            if repeats.contains(identity) {
                needsCompare = true
                try writer.drain()
                try engine.state.save(entry)
                continue
            }
            var item: PasteboardItem?
            if let record = entry.record, entry.isAlive(clears) {
                item = try engine.hydrate(record, rejected: &rejected)
                if item == nil { entry.isPending = true }
            }
            batch.append((entry, item))
            batchIdentities.insert(identity)
            if let item {
                batchItems += 1
                batchBytes += item.representations.reduce(0) { $0 + $1.data.count }
            }
            if batch.count >= SyncEngine.straightBatchItems || batchBytes >= SyncEngine.straightBatchBytes {
                try flush(rejected: &rejected)
            }
        }
    }

    /// The entry of an item taken in earlier in this join, after writing the batch under way (nil: none).
    private mutating func entryTakenIn(_ identity: Data, rejected: inout [String]) throws(SyncError) -> SyncState.Entry? {
        if batchIdentities.contains(identity) { try flush(rejected: &rejected) }
        // One of the batches the writer may still be writing: wait for it. Any other is committed.
        if handedIdentities.contains(where: { $0.contains(identity) }) { try writer.drain() }
        return try engine.state.entry(identity)
    }

    /// Records the batch's items in the history (one transaction), then writes its entries with their positions
    /// (another).
    mutating func flush(rejected: inout [String]) throws(SyncError) {
        guard !batch.isEmpty else { return }
        let store = engine.store
        store.changeDevice = device
        defer { store.changeDevice = nil }
        var first: Int64?
        var last: Int64?
        if batchItems > 0 {
            let keys = self.keys
            let bulk = try engine.inStore { () throws(HistoryError) in
                try HistoryImport(store: store, ordersByDate: false, knownKeys: keys)
            }
            var ids: [Int64] = []
            for index in batch.indices {
                guard let item = batch[index].item else { continue }
                let entry = batch[index].entry
                let metadata = CaptureMetadata(source: entry.record?.source, date: entry.copy?.date ?? now, isPinned: entry.isPinned)
                let result = try engine.inStore { () throws(HistoryError) in
                    try bulk.add(item, metadata: metadata, ifIdentityIs: entry.identity)
                }
                guard let result else {
                    // Kept pending, never recorded (as the general placement does).
                    rejected.append("\(entry.record?.identity ?? "?"): its payloads do not make the item it names")
                    batch[index].entry.isPending = true
                    continue
                }
                ids.append(result.id)
                batch[index].entry.position = bulk.lastPosition
                batch[index].entry.isPending = false
            }
            (first, last) = (bulk.firstPosition, bulk.lastPosition)
            try engine.inStore { () throws(HistoryError) in try bulk.commit() }
            for id in ids.sorted() {
                if let run = recorded.last, run.upperBound + 1 == id {
                    recorded[recorded.count - 1] = run.lowerBound...id
                } else {
                    recorded.append(id...id)
                }
            }
        }
        let placed = first.flatMap { first in last.map { (first, $0) } }
        try writer.write(batch.map(\.entry), placed: placed)
        handedIdentities.append(batchIdentities)
        if handedIdentities.count > EntryWriting.depth { handedIdentities.removeFirst() }
        batch = []
        batchIdentities = []
        batchItems = 0
        batchBytes = 0
    }

    /// Writes the batch under way and waits until every entry is written.
    mutating func finish(rejected: inout [String]) throws(SyncError) {
        try flush(rejected: &rejected)
        try writer.drain()
        writer.close()
    }

    /// Takes back what the join wrote: the items it recorded and every entry (the state had none before).
    mutating func undo() throws(SyncError) {
        batch = []
        batchIdentities = []
        handedIdentities = []
        writer.drainIgnoringFailure()
        writer.close()
        let store = engine.store
        store.changeDevice = device
        defer { store.changeDevice = nil }
        var ids: [Int64] = []
        for run in recorded {
            for id in run {
                ids.append(id)
                if ids.count == 10_000 {
                    _ = try engine.inStore { () throws(HistoryError) in try store.delete(ids: ids) }
                    ids = []
                }
            }
        }
        if !ids.isEmpty { _ = try engine.inStore { () throws(HistoryError) in try store.delete(ids: ids) } }
        recorded = []
        try engine.state.transaction {
            try engine.state.run { try engine.state.db.execute("DELETE FROM entries") }
            try engine.state.setMeta("watermark", "0")
        }
    }

    /// What the next `applyArrivals` still has to do, if anything: the items waiting for a payload, the repeats and
    /// what was copied after them, and a comparison of the history with the state after a clear or a repeat.
    func placementLeft() throws(SyncError) -> PendingPlacement? {
        try writer.drain()
        let waiting = try engine.state.pendingCount()
        guard needsCompare || earliestRepeat != nil || waiting > 0 else { return nil }
        return PendingPlacement(from: earliestRepeat, after: nil, isCompared: !needsCompare, devices: device)
    }
}

/// The sync-state side of a straight join: writes each batch's entries, and moves the export's watermark over the
/// items the batch placed, on a serial queue, through a connection of its own (used on that queue only), at most
/// `depth` batches behind the join. A failure is kept and thrown by the next call.
private final class EntryWriting: @unchecked Sendable {
    private let queue = DispatchQueue(label: "pb-sync-join-entries")
    /// Batches queued or being written, at most.
    static let depth = 2
    private let room = DispatchSemaphore(value: depth)
    /// Used on `queue` only; let go by `close()`, so that its cache goes before the join returns.
    private var state: SyncState?
    private let failure = Mutex<SyncError?>(nil)

    init(directory: URL) throws(SyncError) {
        state = try SyncState(directory: directory)
    }

    /// Queues `batch` (in the snapshot's order) to be written in one transaction; `placed`, the positions the batch's
    /// import gave out, moves the watermark when the batch's items hold them all.
    func write(_ batch: [SyncState.Entry], placed: (first: Int64, last: Int64)?) throws(SyncError) {
        try check()
        room.wait()
        queue.async { [self] in
            defer { room.signal() }
            guard failure.withLock({ $0 == nil }) else { return }
            guard let state else {
                failure.withLock { $0 = SyncError(.io, "The sync state's entries were written after the join ended.") }
                return
            }
            do throws(SyncError) {
                try state.transaction {
                    for entry in batch { try state.save(entry) }
                    if let placed {
                        try state.advanceWatermark(placed: batch.filter { $0.position != nil }, first: placed.first,
                            last: placed.last)
                    }
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    /// Waits until every batch queued is written; throws the first failure.
    func drain() throws(SyncError) {
        queue.sync {}
        try check()
    }

    /// Waits until nothing is being written (the join is being taken back: its own failure is the one to report).
    func drainIgnoringFailure() {
        queue.sync {}
    }

    /// Closes the connection, once everything queued is written.
    func close() {
        queue.sync { state = nil }
    }

    private func check() throws(SyncError) {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
