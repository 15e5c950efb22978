public import FoundationEssentials
import SystemSupport
import PasteboardHistory
#if canImport(Glibc)
import Glibc
#endif

/// What one `writeSnapshot` did, paths relative to the folder.
public struct SnapshotWritten: Sendable, Equatable {
    /// The snapshot written.
    public var path: String
    /// This device's files it made unnecessary and removed: its older snapshots and the segments it covers.
    public var removed: [String]
    /// Payload files this device wrote that nothing refers to any more, removed after the grace period.
    public var removedPayloads: [String]
    /// Payload files a live item needs that were gone from the folder (another device removed them, not knowing the
    /// item here refers to them), written again from this history.
    public var restoredPayloads: [String] = []
}

/// A snapshot to write (see `SyncEngine.snapshotJobIfDue`): everything `SyncEngine.produceSnapshot(_:)` needs, so
/// that it runs on a thread of its own.
public struct SnapshotJob: Sendable {
    let directory: URL
    let folder: SyncFolder
    let staging: AtomicFile
    let path: String
    let device: DeviceID
    let sequence: Int
    let clock: HybridClock
    let covers: [String: Int]
    let key: SyncKey
    let clears: SyncState.Clears
    let maxBytes: Int
    let now: Date
}

/// A snapshot `SyncEngine.produceSnapshot(_:)` wrote, for `SyncEngine.finishSnapshot(_:)`.
public struct ProducedSnapshot: Sendable {
    let job: SnapshotJob
    let count: Int
    /// The payload files live items refer to, and the live items whose payload file the folder lacks.
    let referenced: Set<String>
    let missing: [Data]
    /// Whether it came out larger than readers accept, and was not written.
    var isTooLarge = false
}

extension SyncEngine {
    /// The first message of a snapshot: whose it is, its number (the writer's own segments it covers), a clock of
    /// the writer newer than everything it holds, how many operations follow, and per device the sequence up to
    /// which it holds everything that device's segments decided.
    struct SnapshotHeader: Codable, Equatable {
        var device: String
        var sequence: Int
        var clock: HybridClock
        var count: Int
        var covers: [String: Int]

        enum CodingKeys: String, CodingKey {
            case device = "d", sequence = "q", clock = "c", count = "n", covers = "v"
        }
    }

    /// A snapshot is written when this device wrote segments since the last one, and either `snapshotInterval`
    /// passed since then or the new ones hold many operations (at least `snapshotOperations`).
    public static let snapshotInterval: TimeInterval = 3600
    public static let snapshotOperations = 5000
    /// How long a payload file this device wrote stays once nothing refers to it.
    public static let payloadGrace: TimeInterval = 24 * 3600

    /// What this device's merged state holds of each device's log (see `SyncState.coverage`).
    func coverage() throws(SyncError) -> [DeviceID: Int] {
        try state.coverage(own: setup.device, ownSequence: Int(try state.meta("sequence") ?? "0") ?? 0)
    }

    /// Writes a snapshot when one is due (see `snapshotInterval`); nil when not.
    @discardableResult
    public func writeSnapshotIfDue(now: Date = Date()) throws(SyncError) -> SnapshotWritten? {
        guard try isSnapshotDue(now: now) else { return nil }
        return try writeSnapshot(now: now)
    }

    /// The snapshot due (see `snapshotInterval`), to be written by `SyncEngine.produceSnapshot(_:)` on another thread
    /// and completed by `finishSnapshot(_:)`; nil when none is due. The daemon writes a big one so, serving the
    /// clipboard meanwhile.
    public func snapshotJobIfDue(now: Date = Date()) throws(SyncError) -> SnapshotJob? {
        guard try isSnapshotDue(now: now) else { return nil }
        return try withLock { () throws(SyncError) -> SnapshotJob in try prepareSnapshot(now: now, maxBytes: SyncFolder.maxSnapshotBytes) }
    }

    private func isSnapshotDue(now: Date) throws(SyncError) -> Bool {
        let sequence = Int(try state.meta("sequence") ?? "0") ?? 0
        let covered = Int(try state.meta("snapshot-sequence") ?? "0") ?? 0
        // This device's snapshot was sealed with a key retired before it was written (see `refreshKeys`).
        // One that came out too large (see `writeSnapshot`) is not tried again for an hour: the log stays meanwhile.
        if let refused = try state.meta("snapshot-too-large-at").flatMap(Double.init),
            now.timeIntervalSince1970 - refused < Self.snapshotInterval
        {
            return false
        }
        if try state.meta("snapshot-due") == "1" { return true }
        guard sequence > covered else { return false }
        guard let last = try state.meta("snapshot-at").flatMap(Double.init) else {
            // The first: the clock starts now, unless this device wrote much already.
            try state.setMeta("snapshot-at", String(now.timeIntervalSince1970))
            return (Int(try state.meta("operations-since-snapshot") ?? "0") ?? 0) >= Self.snapshotOperations
        }
        let operations = Int(try state.meta("operations-since-snapshot") ?? "0") ?? 0
        return now.timeIntervalSince1970 - last >= Self.snapshotInterval || operations >= Self.snapshotOperations
    }

    /// Writes this device's snapshot of the merged state: for every item the latest copy (when it is alive), delete
    /// and pin or unpin, and the latest clears; then removes what it makes unnecessary of this device's own files
    /// (its older snapshots, every segment of its own it covers, and payload files it wrote that nothing has
    /// referred to for `payloadGrace`).
    ///
    /// A snapshot that would be larger than readers accept (`maxBytes`, by default `SyncFolder.maxSnapshotBytes`) is
    /// not written: this device's segments stay, the error says so, and `writeSnapshotIfDue` waits an hour.
    @discardableResult
    public func writeSnapshot(
        now: Date = Date(), payloadGrace: TimeInterval = SyncEngine.payloadGrace, maxBytes: Int? = nil
    ) throws(SyncError) -> SnapshotWritten {
        try withLock { () throws(SyncError) -> SnapshotWritten in
            let job = try prepareSnapshot(now: now, maxBytes: maxBytes ?? SyncFolder.maxSnapshotBytes)
            let produced = try Self.produceSnapshot(job)
            guard let written = try finishSnapshotLocked(produced, payloadGrace: payloadGrace) else {
                throw SyncError(.io, "The folder's key changed while this device's snapshot was written; it is written again.")
            }
            return written
        }
    }

    /// Completes a snapshot `produceSnapshot` wrote (see `snapshotJobIfDue`): records it and removes what it makes
    /// unnecessary, as `writeSnapshot` does. Nil when it is no longer wanted (the folder's key changed meanwhile, or
    /// a newer snapshot of this device was written): it is removed, and another is due if needed.
    public func finishSnapshot(_ produced: ProducedSnapshot, payloadGrace: TimeInterval = SyncEngine.payloadGrace)
        throws(SyncError) -> SnapshotWritten?
    {
        try withLock { () throws(SyncError) -> SnapshotWritten? in try finishSnapshotLocked(produced, payloadGrace: payloadGrace) }
    }

    /// What writing a snapshot needs, decided under the engine's lock.
    private func prepareSnapshot(now: Date, maxBytes: Int) throws(SyncError) -> SnapshotJob {
        try state.setMeta("snapshot-due", "0")
        let sequence = Int(try state.meta("sequence") ?? "0") ?? 0
        let job = SnapshotJob(
            directory: directory, folder: folder, staging: staging,
            path: SyncFolder.snapshotPath(device: setup.device, sequence: sequence), device: setup.device, sequence: sequence,
            clock: clock.tick(now: now), covers: Dictionary(uniqueKeysWithValues: try coverage().map { ($0.key.rawValue, $0.value) }),
            key: setup.key, clears: try state.clears(), maxBytes: maxBytes, now: now)
        try saveClock()
        return job
    }

    /// Writes the snapshot `job` describes into the folder, reading the sync state through a connection of its own
    /// in one read transaction (what the engine's thread changes meanwhile is in later segments, which stay): safe
    /// on any thread, while the engine goes on. A snapshot larger than `job.maxBytes` is not written (see
    /// `ProducedSnapshot.isTooLarge`).
    public static func produceSnapshot(_ job: SnapshotJob) throws(SyncError) -> ProducedSnapshot {
        // Closing the connection (when it fails part way) ends the read transaction too.
        let state = try SyncState(directory: job.directory)
        try state.run { try state.db.execute("BEGIN") }
        let produced = try produceSnapshot(job, from: state)
        try state.run { try state.db.execute("COMMIT") }
        return produced
    }

    private static func produceSnapshot(_ job: SnapshotJob, from state: SyncState) throws(SyncError) -> ProducedSnapshot {
        let folder = job.folder
        // Two passes over the sync state, so that no more than a window of it is ever in memory: the first counts
        // what the snapshot holds (its header says how many operations, its body first how many groups) and finds
        // the payloads live items refer to; the second encodes and seals it into the file as it goes.
        var count = 0
        var groups = 0
        var referenced = Set<String>()
        var missing: [Data] = []
        try snapshotWindows(state: state, clears: job.clears) { (entry, record) throws(SyncError) in
            for representation in record.representations ?? [] {
                guard let name = representation.payload else { continue }
                referenced.insert(name)
                if !entry.isPending, !folder.exists(SyncFolder.payloadPath(name)) { missing.append(entry.identity) }
            }
        } window: { operations in
            count += operations.count
            groups += SegmentCodec.groupCount(operations)
        }
        let header = SnapshotHeader(device: job.device.rawValue, sequence: job.sequence, clock: job.clock, count: count, covers: job.covers)
        let encodedHeader: Data
        do {
            encodedHeader = try JSONEncoder().encode(header)
        } catch {
            throw SyncError(.io, "Cannot encode a snapshot header: \(error)")
        }
        var produced = ProducedSnapshot(job: job, count: count, referenced: referenced, missing: missing)
        struct TooLarge: Error {}
        do {
            try folder.write(to: job.path, staging: job.staging) { (output) throws(SyncError) in
                var sealer = try SecretStream.Sealer(key: job.key.snapshotKey, context: job.path)
                try output.append(sealer.prefix)
                try output.append(try sealer.seal(encodedHeader, final: false))
                // The body in messages of `chunkBytes`; the last (never empty: the body starts with its count) is final.
                var body = Data()
                SegmentCodec.appendVarint(&body, UInt64(groups))
                var (encoded, encodedGroups) = (0, 0)
                try snapshotWindows(state: state, clears: job.clears) { _, _ in } window: { (operations) throws(SyncError) in
                    encoded += operations.count
                    encodedGroups += SegmentCodec.appendGroups(operations, to: &body)
                    var offset = 0
                    while body.count - offset > SecretStream.chunkBytes {
                        try output.append(try sealer.seal(body[offset..<offset + SecretStream.chunkBytes], final: false))
                        offset += SecretStream.chunkBytes
                    }
                    body = body.subdata(in: offset..<body.count)
                    if output.count + body.count > job.maxBytes { throw SyncError(.io, Self.tooLargeMarker) }
                }
                guard encoded == count, encodedGroups == groups else {
                    throw SyncError(.io, "The sync state changed while its snapshot was written; it is written again at the next round.")
                }
                try output.append(try sealer.seal(body, final: true))
                if output.count > job.maxBytes { throw SyncError(.io, Self.tooLargeMarker) }
            }
        } catch where error.message == Self.tooLargeMarker {
            produced.isTooLarge = true
        }
        return produced
    }

    private static let tooLargeMarker = "the snapshot is larger than readers accept"

    private func finishSnapshotLocked(_ produced: ProducedSnapshot, payloadGrace: TimeInterval) throws(SyncError) -> SnapshotWritten? {
        let job = produced.job
        let now = job.now
        if produced.isTooLarge {
            try state.setMeta("snapshot-too-large-at", String(now.timeIntervalSince1970))
            throw SyncError(
                .io,
                "This device's snapshot would be larger than the \(job.maxBytes) bytes other devices read; its log segments "
                    + "stay in the folder instead (a device that joins reads them).")
        }
        // Sealed with a key the folder stopped using while it was written: removed, and another is due.
        if job.key != setup.key {
            if folder.exists(job.path) { try remove(job.path) }
            try state.setMeta("snapshot-due", "1")
            return nil
        }
        // Older than one of this device written meanwhile (by another process): removed, the newer one stays.
        if job.sequence < Int(try state.meta("snapshot-sequence") ?? "0") ?? 0 {
            if folder.exists(job.path) { try remove(job.path) }
            return nil
        }
        try state.setMeta("snapshot-too-large-at", "0")
        let path = job.path
        let sequence = job.sequence
        var written = SnapshotWritten(path: path, removed: [], removedPayloads: [])
        try state.transaction {
            try state.noteFile(path, folder: folder, status: "applied", reason: nil, operations: produced.count, now: now)
            try state.setMeta("snapshot-sequence", String(sequence))
            try state.setMeta("snapshot-at", String(now.timeIntervalSince1970))
            try state.setMeta("operations-since-snapshot", "0")
        }
        // What the snapshot holds, this device's files no longer need to.
        let own = (folder.snapshotPaths() + folder.segmentPaths()).filter { candidate in
            if let place = SyncFolder.parseSnapshotPath(candidate) {
                return place.device == setup.device && candidate != path
            }
            guard let place = SyncFolder.parseSegmentPath(candidate) else { return false }
            return place.device == setup.device && place.sequence <= sequence
        }
        for candidate in own {
            try remove(candidate)
            try state.forgetFile(candidate)
            written.removed.append(candidate)
        }
        written.removedPayloads = try removeUnreferencedPayloads(referenced: produced.referenced, now: now, grace: payloadGrace)
        written.restoredPayloads = try restorePayloads(of: produced.missing)
        return written
    }

    /// The operations of a snapshot of the merged state, a window of at most about `segmentOperations` at a time: for
    /// every entry (in the order of their copies, see `SyncState.entriesInCopyOrder`) its copy when it is alive, its
    /// delete and its pin or unpin; then the latest clears. `live` sees each live entry with its copy first.
    private static func snapshotWindows(
        state: SyncState, clears: SyncState.Clears, live: (SyncState.Entry, SyncOperation) throws(SyncError) -> Void,
        window: ([SyncOperation]) throws(SyncError) -> Void
    ) throws(SyncError) {
        var operations: [SyncOperation] = []
        var cursor: SyncState.CopyOrderCursor?
        var isLastPage = false
        while !isLastPage {
            let (page, next) = try state.entriesInCopyOrder(after: cursor, limit: 1000)
            cursor = next
            isLastPage = next == nil
            for entry in page {
                let identity = Hex.encode(entry.identity)
                if let record = entry.record, entry.isAlive(clears) {
                    try live(entry, record)
                    operations.append(record)
                }
                if let deleted = entry.deleted { operations.append(SyncOperation(kind: .delete, clock: deleted, identity: identity)) }
                if let pin = entry.pin {
                    operations.append(SyncOperation(kind: entry.isPinned ? .pin : .unpin, clock: pin, identity: identity))
                }
            }
            if operations.count >= Self.segmentOperations {
                try window(operations)
                operations = []
            }
        }
        if let all = clears.all { operations.append(SyncOperation(kind: .clear, clock: all, keepsPinned: false)) }
        if let unpinned = clears.unpinned { operations.append(SyncOperation(kind: .clear, clock: unpinned, keepsPinned: true)) }
        if !operations.isEmpty { try window(operations) }
    }

    /// Removes the payload files this device wrote that no item of the merged state has referred to for `grace`.
    private func removeUnreferencedPayloads(referenced: Set<String>, now: Date, grace: TimeInterval) throws(SyncError) -> [String] {
        var removed: [String] = []
        for payload in try state.ownPayloads() {
            if referenced.contains(payload.name) {
                if payload.unreferenced != nil { try state.markOwnPayload(payload.name, unreferencedSince: nil) }
            } else if let since = payload.unreferenced {
                guard now.timeIntervalSince(since) >= grace else { continue }
                let path = SyncFolder.payloadPath(payload.name)
                try remove(path)
                try state.forgetOwnPayload(payload.name)
                try state.forgetFile(path)
                removed.append(path)
            } else {
                try state.markOwnPayload(payload.name, unreferencedSince: now)
            }
        }
        return removed
    }

    /// Writes again the payload files of live items this history holds that the folder lacks.
    private func restorePayloads(of identities: [Data]) throws(SyncError) -> [String] {
        var written: [String] = []
        for identity in Set(identities) {
            guard let row = try inStore({ () throws(HistoryError) in try store.syncRow(identity: identity) }) else { continue }
            let item = try inStore { () throws(HistoryError) in try store.pasteboardItem(id: row.id) }
            for representation in item.representations where representation.data.count > SyncOperation.Representation.inlineLimit {
                let name = Hex.encode(try KeyedHash.digest(representation.data, key: setup.key.nameKey))
                let path = SyncFolder.payloadPath(name)
                guard !folder.exists(path) else { continue }
                try folder.write(try sealPayload(representation.data, path: path), to: path, staging: staging)
                try state.noteOwnPayload(name)
                written.append(path)
            }
        }
        return written
    }

    private func remove(_ path: String) throws(SyncError) { try folder.remove(path) }

    /// Opens one snapshot, checks the whole file (every message authenticated, its end there, a key it may use)
    /// and returns its header, which must name the device and number its path does. The body is not kept (see
    /// `streamSnapshot`).
    func readSnapshotHeader(_ path: String) throws(SyncError) -> SnapshotHeader {
        guard let place = SyncFolder.parseSnapshotPath(path) else { throw SyncError(.rejected, "it is not named like a snapshot") }
        var first: Data?
        let epoch = try folder.openSealed(path, limit: SyncFolder.maxSnapshotBytes, keys: setup.keys(\.snapshotKey)) { message in
            if first == nil { first = message }
        }
        guard setup.accepts(epoch: epoch, device: place.device, sequence: place.sequence) else {
            throw SyncError(.rejected, Self.retiredKeyReason)
        }
        guard let first, let header = try? JSONDecoder().decode(SnapshotHeader.self, from: first),  // reported below
            header.device == place.device.rawValue, header.sequence == place.sequence, header.count >= 0,
            header.clock.device == place.device, header.covers.keys.allSatisfy({ DeviceID(rawValue: $0) != nil })
        else { throw SyncError(.rejected, "its header does not match its name") }
        return header
    }

    /// Reads one snapshot a message at a time, handing its operations to `deliver` in slices of at most
    /// `segmentOperations` as they are decoded (each slice checked: well formed, clocks in bounds); throws when
    /// anything is wrong, possibly after some slices were delivered (the caller takes them in provisionally).
    func streamSnapshot(_ path: String, now: Date, deliver: ([SyncOperation]) throws(SyncError) -> Void) throws(SyncError)
        -> SnapshotHeader
    {
        guard let place = SyncFolder.parseSnapshotPath(path) else { throw SyncError(.rejected, "it is not named like a snapshot") }
        let malformed = SyncError(.rejected, "it holds a malformed operation")
        var header: SnapshotHeader?
        var decoder = GroupStreamDecoder()
        var pending: [SyncOperation] = []
        var delivered = 0
        func flush() throws(SyncError) {
            guard pending.allSatisfy(\.isWellFormed) else { throw malformed }
            try Self.checkClocks(pending.map(\.clock), now: now)
            delivered += pending.count
            try deliver(pending)
            pending = []
        }
        let epoch = try folder.openSealed(path, limit: SyncFolder.maxSnapshotBytes, keys: setup.keys(\.snapshotKey)) {
            (message) throws(SyncError) in
            guard header != nil else {
                guard let decoded = try? JSONDecoder().decode(SnapshotHeader.self, from: message),  // reported below
                    decoded.device == place.device.rawValue, decoded.sequence == place.sequence, decoded.count >= 0,
                    decoded.clock.device == place.device, decoded.covers.keys.allSatisfy({ DeviceID(rawValue: $0) != nil })
                else { throw SyncError(.rejected, "its header does not match its name") }
                header = decoded
                return
            }
            guard let operations = decoder.feed(message) else { throw malformed }
            pending += operations
            if pending.count >= Self.segmentOperations { try flush() }
        }
        guard setup.accepts(epoch: epoch, device: place.device, sequence: place.sequence) else {
            throw SyncError(.rejected, Self.retiredKeyReason)
        }
        guard let header else { throw SyncError(.rejected, "its header does not match its name") }
        guard let last = decoder.finish() else { throw malformed }
        pending += last
        try flush()
        guard delivered == header.count else { throw malformed }
        return header
    }

    /// Takes in the other devices' snapshots that hold more than this device has seen of some device's log, newest
    /// first (inside the caller's transaction). A snapshot that fails its checks is rejected whole, and the logs are
    /// read instead. Segments a snapshot covers are then skipped (see `SyncState.floor`).
    func takeInSnapshots(into intake: inout Intake, rejected: inout [String], now: Date) throws(SyncError) {
        for candidate in try snapshotCandidates(rejected: &rejected, now: now) {
            try takeIn(candidate, into: &intake, rejected: &rejected, now: now)
        }
    }

    /// The other devices' snapshots this device has not taken in as they are now, each checked whole (see
    /// `readSnapshotHeader`), newest first; those that fail their checks are noted rejected.
    func snapshotCandidates(rejected: inout [String], now: Date) throws(SyncError) -> [(path: String, header: SnapshotHeader)] {
        var candidates: [(path: String, header: SnapshotHeader)] = []
        for path in folder.snapshotPaths() {
            guard let place = SyncFolder.parseSnapshotPath(path), place.device != setup.device else { continue }
            guard let attributes = folder.attributes(path) else { continue }
            if let known = try state.file(path), known.size == attributes.size, known.modified == attributes.modified { continue }
            do throws(SyncError) {
                candidates.append((path, try readSnapshotHeader(path)))
            } catch {
                rejected.append("\(path): \(error.message)")
                try state.noteFile(path, folder: folder, status: "rejected", reason: error.message, operations: 0, now: now)
            }
        }
        return candidates.sorted(by: { $0.header.clock > $1.header.clock })
    }

    /// The devices and sequences a snapshot covers beyond what this device holds (empty: nothing in it is new here).
    func newCoverage(of header: SnapshotHeader) throws(SyncError) -> [(DeviceID, Int)] {
        let held = try coverage()
        let covers = header.covers.compactMap { key, value in DeviceID(rawValue: key).map { ($0, value) } }
            .filter { $0.0 != setup.device }
        return covers.contains(where: { $0.1 > held[$0.0] ?? 0 }) ? covers : []
    }

    /// Takes in one snapshot (see `takeInSnapshots(into:rejected:now:)`).
    private func takeIn(
        _ candidate: (path: String, header: SnapshotHeader), into intake: inout Intake, rejected: inout [String], now: Date
    ) throws(SyncError) {
        let covers = try newCoverage(of: candidate.header)
        guard !covers.isEmpty else {
            // Nothing in it this device lacks.
            try state.noteFile(candidate.path, folder: folder, status: "applied", reason: nil, operations: 0, now: now)
            return
        }
        if let device = SyncFolder.parseSnapshotPath(candidate.path)?.device { intake.devices.insert(device.rawValue) }
        // Streamed, in slices as segments come, inside a savepoint: a snapshot that fails part way (changed
        // under this device's feet) is rolled back, so it is still rejected whole.
        let before = (intake: intake, clock: clock)
        var failedTakingIn: SyncError?
        let header: SnapshotHeader
        try state.run { try state.db.execute("SAVEPOINT snapshot") }
        do throws(SyncError) {
            header = try streamSnapshot(candidate.path, now: now) { (operations) throws(SyncError) in
                do throws(SyncError) {
                    try takeIn(operations, into: &intake)
                } catch {
                    failedTakingIn = error
                    throw error
                }
            }
            try state.run { try state.db.execute("RELEASE snapshot") }
        } catch {
            try state.run { try state.db.execute("ROLLBACK TO snapshot; RELEASE snapshot") }
            (intake, clock) = (before.intake, before.clock)
            if let failedTakingIn { throw failedTakingIn }
            rejected.append("\(candidate.path): \(error.message)")
            try state.noteFile(candidate.path, folder: folder, status: "rejected", reason: error.message, operations: 0, now: now)
            return
        }
        try noteTakenIn(candidate.path, header: header, covers: covers, now: now)
    }

    /// Records a snapshot taken in: the floors it raises, the file as applied, its device's clock.
    func noteTakenIn(_ path: String, header: SnapshotHeader, covers: [(DeviceID, Int)], now: Date) throws(SyncError) {
        for (device, sequence) in covers { try state.raiseFloor(device, to: sequence) }
        try state.noteFile(path, folder: folder, status: "applied", reason: nil, operations: header.count, now: now)
        try state.noteDevice(header.clock.device, clock: header.clock, seen: header.clock.date)
    }
}
