public import FoundationEssentials
import PasteboardHistory
import PasteboardModel

/// What one round of `applyArrivals()` did.
public struct SyncArrivals: Sendable, Equatable {
    /// Operations taken in from other devices' segments.
    public var operations = 0
    /// Segments rejected this round (modified, truncated, foreign), with why.
    public var rejected: [String] = []
    /// The newest item another device copied that this round put in the history (for the universal clipboard),
    /// with the clock of that copy.
    public var newestCopy: (id: Int64, date: Date)?
    /// Why the folder's newer key cannot be taken up here (this device was removed, or its copy has not arrived).
    public var keyProblem: String?
    /// Whether items taken in are still to be put in the history: the round stopped at its deadline, and the next
    /// call goes on (see `applyArrivals(deadline:)`).
    public var isPlacementLeft = false
    /// Whether the round read the folder; false when it only went on with an earlier round's placement.
    public var hasReadFolder = true

    public static func == (a: SyncArrivals, b: SyncArrivals) -> Bool {
        a.operations == b.operations && a.rejected == b.rejected && a.newestCopy?.id == b.newestCopy?.id && a.keyProblem == b.keyProblem
    }
}

extension SyncEngine {
    /// What the take-in of one round found: the items whose state changed, the earliest copy that moved an item,
    /// whether a clear changed, and the clears as they now are.
    struct Intake {
        /// The items whose state changed, up to `touchedLimit`; beyond it `touchedMany` says so, and the history is
        /// compared whole (a page at a time) rather than item by item, so a device joining a history of millions
        /// never holds them all in memory.
        var touched = Set<Data>()
        var touchedMany = false
        /// Every identity saved this round, in a filter (two to four bytes each): asked before looking one up.
        var saved = KeyFilter()
        var earliestCopy: HybridClock?
        var clears: SyncState.Clears
        var clearsChanged = false
        var operations = 0
        /// Whether the sync state held no entry when the round began (a device joining): an item not taken in this
        /// round is then known to be new, without a look-up.
        var startedEmpty = false
        /// The devices whose segments or snapshots this round took in: the history's changes name them.
        var devices = Set<String>()
    }

    /// Reads every segment not yet applied (all of them, or only `paths`, in the order given), checks each whole
    /// before taking in any of its operations, and brings the history to the merged state. A segment that fails
    /// (another key, modified, truncated, misplaced) is recorded as rejected and nothing of it is applied.
    ///
    /// Memory stays bounded whatever the folder holds: segments are taken in one at a time (into the sync state,
    /// in one transaction), and the history is then brought in line page by page.
    ///
    /// With a `deadline`, putting the items in the history stops at the first page that ends after it (the daemon
    /// serves the clipboard between its turns), and `isPlacementLeft` says so; the next call goes on with it before
    /// reading the folder again. A placement cut short by the end of the process goes on the same way: it is kept
    /// in the sync state from the take-in on.
    ///
    /// `yieldsWhen`, asked after each page placed, ends the turn early when it says so (the daemon: something waits
    /// for its loop), so that a turn's `deadline` can be long while nothing else needs the daemon.
    @discardableResult
    public func applyArrivals(
        paths: [String]? = nil, now: Date = Date(), deadline: ContinuousClock.Instant? = nil, yieldsWhen: (() -> Bool)? = nil
    ) throws(SyncError) -> SyncArrivals {
        try withLock { () throws(SyncError) -> SyncArrivals in
            var arrivals = SyncArrivals()
            arrivals.keyProblem = try refreshKeys(now: now, announcing: false)
            // An earlier round's placement goes on first: what arrives now orders itself after it.
            if let left = try state.pendingPlacement() {
                guard try place(left, touched: nil, now: now, deadline: deadline, yieldsWhen: yieldsWhen, into: &arrivals) else {
                    arrivals.isPlacementLeft = true
                    arrivals.hasReadFolder = false
                    return arrivals
                }
            } else {
                placedNewest = nil
                hasPlacementLeft = false
            }
            var intake = Intake(clears: try state.clears())
            intake.startedEmpty = try state.hasNoEntries()
            try state.transaction {
                // A rejected file its device has since removed (replaced by a newer snapshot, compacted) is no
                // longer a warning.
                for file in try state.rejectedFiles() where folder.attributes(file.path) == nil {
                    try state.forgetFile(file.path)
                }
                if paths == nil { try takeInSnapshots(into: &intake, rejected: &arrivals.rejected, now: now) }
                for path in paths ?? folder.segmentPaths() {
                    guard let attributes = folder.attributes(path) else { continue }  // gone meanwhile
                    if let known = try state.file(path), known.size == attributes.size, known.modified == attributes.modified,
                        known.reason?.hasPrefix(Self.futureReasonPrefix) != true
                    {
                        continue  // applied or rejected as it is (one dated ahead is tried again: time passes)
                    }
                    guard let place = SyncFolder.parseSegmentPath(path) else { continue }  // listed, so named like one
                    if place.sequence <= (try state.floor(place.device)) {
                        // A snapshot or a compacted segment taken in already holds what it decided.
                        try state.noteFile(path, folder: folder, status: "applied", reason: nil, operations: 0, now: now)
                        continue
                    }
                    let read: (operations: [SyncOperation], coversFrom: Int?, written: Date?)
                    do throws(SyncError) {
                        read = try readSegment(path, now: now)
                    } catch {
                        // Removed meanwhile by its device (a snapshot covers it now): not a damaged file.
                        if folder.attributes(path) == nil { continue }
                        arrivals.rejected.append("\(path): \(error.message)")
                        try state.noteFile(path, folder: folder, status: "rejected", reason: error.message, operations: 0, now: now)
                        continue
                    }
                    try takeIn(read.operations, into: &intake)
                    if !read.operations.isEmpty { intake.devices.insert(place.device.rawValue) }
                    try state.noteFile(path, folder: folder, status: "applied", reason: nil, operations: read.operations.count, now: now)
                    if let last = read.operations.map(\.clock).max() {
                        try state.noteDevice(place.device, clock: last, seen: read.written ?? last.date)
                    }
                    if let from = read.coversFrom, try coverage()[place.device] ?? 0 >= from - 1 {
                        try state.raiseFloor(place.device, to: place.sequence)
                    }
                }
                try state.save(intake.clears)
                // The placement is recorded with what it places, in the same transaction. What the round changes in
                // the history arrived from those devices (the change feed says so: the daemon's events are
                // `arrived`, and the next export does not send them back).
                let waiting = try state.pendingCount()
                if intake.operations > 0 || waiting > 0 {
                    try state.savePendingPlacement(
                        PendingPlacement(
                            from: intake.earliestCopy, after: nil, isCompared: false,
                            devices: intake.devices.isEmpty ? "sync" : intake.devices.sorted().joined(separator: ",")))
                }
            }
            guard let placement = try state.pendingPlacement() else { return arrivals }
            arrivals.operations = intake.operations
            try saveClock()
            let touched = intake.clearsChanged || intake.touchedMany ? nil : intake.touched
            let isDone = try place(
                placement, touched: touched, now: now, deadline: deadline, yieldsWhen: yieldsWhen, into: &arrivals)
            arrivals.isPlacementLeft = !isDone
            return arrivals
        }
    }

    /// Brings the history in line with what `pending` covers, as far as `deadline` allows (a page of entries at
    /// least): first what changed for items the history has (`touched`; nil: every item, a page at a time), then
    /// every live item copied at or after the round's earliest copy at the top, oldest first. Returns whether it
    /// is done; if not, how far it came is in the sync state.
    private func place(
        _ pending: PendingPlacement, touched: Set<Data>?, now: Date, deadline: ContinuousClock.Instant?,
        yieldsWhen: (() -> Bool)?, into arrivals: inout SyncArrivals
    ) throws(SyncError) -> Bool {
        var pending = pending
        store.changeDevice = pending.devices
        defer { store.changeDevice = nil }
        let clears = try state.clears()
        if !pending.isCompared {
            try compareHistory(touched: touched, clears: clears)
            pending.isCompared = true
            try state.savePendingPlacement(pending)
        }
        // Ordering: every live item copied at or after the earliest copy that arrived goes to the top, oldest first,
        // with the items still waiting for a payload, so the history's order is the order of the copies' clocks on
        // every device. Read a page at a time; items new to the history are recorded in bulk.
        var placement = Placement(engine: self, earliestCopy: pending.from, now: now)
        var after = pending.after
        while true {
            let page = try state.placementPage(copiedSince: pending.from, after: after, limit: Self.placementPage)
            guard let last = page.last else { break }
            try placement.place(page.filter { $0.isAlive(clears) }, rejected: &arrivals.rejected)
            after = last.copy
            placement.handled = after
            if let deadline, ContinuousClock.now >= deadline || yieldsWhen?() == true {
                try placement.finish()
                if let newest = placement.newest { placedNewest = newest }
                hasPlacementLeft = true
                return false
            }
        }
        try placement.finish()
        knownKeys = nil
        if let newest = placement.newest { placedNewest = newest }
        arrivals.newestCopy = placedNewest
        placedNewest = nil
        try state.clearPendingPlacement()
        hasPlacementLeft = false
        // What the user deleted is not kept: the records of the items the round's take-in killed are forgotten,
        // looked up one by one when the round knows them (a pass over every entry took seconds at 10 million items,
        // at each round that took in a single copy), every dead one otherwise (a clear, a join, a resumed round).
        if let touched {
            try state.forgetRecords(of: Array(touched))
        } else {
            try state.forgetDeadRecords()
        }
        return true
    }

    /// Takes one source's operations into the sync state (inside the caller's transaction).
    func takeIn(_ operations: [SyncOperation], into intake: inout Intake) throws(SyncError) {
        var entries: [Data: SyncState.Entry] = [:]
        for operation in operations {
            clock.observe(operation.clock)
            if operation.kind == .clear {
                if intake.clears.apply(operation) { intake.clearsChanged = true }
                continue
            }
            guard let identity = operation.identityBytes else { continue }
            var entry: SyncState.Entry
            if let known = entries[identity] {
                entry = known
            } else if intake.startedEmpty && !identity.withUnsafeBytes({ intake.saved.mightContain($0) }) {
                entry = SyncState.Entry(identity: identity)
            } else {
                entry = try state.entry(identity) ?? SyncState.Entry(identity: identity)
            }
            if entry.apply(operation) { intake.earliestCopy = min(intake.earliestCopy ?? operation.clock, operation.clock) }
            entries[identity] = entry
        }
        for entry in entries.values { try state.save(entry) }
        for identity in entries.keys {
            identity.withUnsafeBytes { intake.saved.insert($0) }
            if !intake.touchedMany { intake.touched.insert(identity) }
        }
        if intake.touched.count > Self.touchedLimit {
            intake.touchedMany = true
            intake.touched = []
        }
        intake.operations += operations.count
    }

    /// Opens one segment and checks it: its header names the device and number its path does, every operation is
    /// well formed, that device's own, and dated at most `SyncEngine.maxClockLead` ahead of `now`; a segment sealed
    /// with a key the folder no longer uses is accepted only as far as the rotation that retired the key had seen
    /// (with `acceptingRetiredKeys`, whatever its number: this device re-writing its own).
    func readSegment(_ path: String, now: Date = Date(), acceptingRetiredKeys: Bool = false) throws(SyncError)
        -> (operations: [SyncOperation], coversFrom: Int?, written: Date?)
    {
        guard let place = SyncFolder.parseSegmentPath(path) else { throw SyncError(.rejected, "it is not named like a segment") }
        var messages: [Data] = []
        let epoch = try folder.openSealed(path, limit: SyncFolder.maxSegmentBytes, keys: setup.keys(\.logKey)) { messages.append($0) }
        guard acceptingRetiredKeys || setup.accepts(epoch: epoch, device: place.device, sequence: place.sequence) else {
            throw SyncError(.rejected, Self.retiredKeyReason)
        }
        guard let first = messages.first, let header = try? JSONDecoder().decode(SegmentHeader.self, from: first),  // reported below
            header.device == place.device.rawValue, header.sequence == place.sequence, header.types.count <= 4096,
            header.count >= 0, header.count <= SyncFolder.maxSegmentBytes / 3
        else { throw SyncError(.rejected, "its header does not match its name") }
        var body = Data()
        for message in messages.dropFirst() { body.append(message) }
        guard let operations = SegmentCodec.decode(body, count: header.count, types: header.types, device: place.device),
            operations.allSatisfy(\.isWellFormed)
        else { throw SyncError(.rejected, "it holds a malformed operation") }
        try Self.checkClocks(operations.map(\.clock) + [header.written.map { HybridClock(milliseconds: $0, counter: 0, device: place.device) }].compactMap { $0 }, now: now)
        return (operations, header.coversFrom, header.written.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }

    /// Why a file sealed with a retired key is refused.
    static let retiredKeyReason =
        "it is sealed with a key this folder no longer uses and was written after the key was replaced (by a removed device, or one not yet updated)"

    /// How far ahead of this device's clock an operation may be dated: a day. A device whose clock is further
    /// ahead cannot put its copies above everything for good; its files are refused until this device's clock
    /// catches up (they are tried again every round), so a device whose own clock is behind loses nothing.
    public static let maxClockLead: TimeInterval = 24 * 3600

    /// The reason a file with a clock too far ahead is refused (it is tried again every round).
    static let futureReasonPrefix = "it holds an operation dated more than a day ahead of this device's clock"

    static func checkClocks(_ clocks: [HybridClock], now: Date) throws(SyncError) {
        let limit = UInt64(max(0, (now.timeIntervalSince1970 + maxClockLead) * 1000))
        guard let newest = clocks.map(\.milliseconds).max(), newest > limit else { return }
        let date = Date(timeIntervalSince1970: Double(newest) / 1000)
        throw SyncError(.rejected, "\(futureReasonPrefix) (\(date.formatted(.iso8601)))")
    }

    /// What changed for items the history has: removed when no longer alive, pinned or unpinned. (Items it lacks
    /// are placed after; an entry no longer alive loses its place, in one statement.) After a clear, when the round
    /// touched many items, or when the round's take-in is not known (`touched` nil), every item of the history is
    /// compared, a page at a time.
    private func compareHistory(touched: Set<Data>?, clears: SyncState.Clears) throws(SyncError) {
        var removals: [Int64] = []
        try state.transaction {
            func compare(_ present: [Data: (id: Int64, isPinned: Bool)]) throws(SyncError) {
                for (identity, item) in present {
                    guard let entry = try state.entry(identity, withRecord: false) else { continue }
                    if !entry.isAlive(clears) {
                        removals.append(item.id)
                    } else if item.isPinned != entry.isPinned {
                        try inStore { () throws(HistoryError) in try store.setPinned(entry.isPinned, id: item.id) }
                    }
                }
            }
            if let touched {
                try compare(try inStore { () throws(HistoryError) in try store.syncIdentities(of: touched) })
            } else {
                var after: Int64 = 0
                while true {
                    let page = try inStore { () throws(HistoryError) in try store.syncRows(afterPosition: after, limit: 2000) }
                    guard let last = page.last else { break }
                    after = last.position
                    try compare(Dictionary(page.map { ($0.identity, (id: $0.id, isPinned: $0.isPinned)) }, uniquingKeysWith: { a, _ in a }))
                }
            }
            if let touched, touched.count <= 1000 {
                for identity in touched {
                    guard var entry = try state.entry(identity, withRecord: false), !entry.isAlive(clears),
                        entry.position != nil || entry.isPending
                    else { continue }
                    entry.position = nil
                    entry.isPending = false
                    try state.savePlacement(entry)
                }
            } else {
                try state.unplaceDeadEntries()  // one pass over the state beats many lookups
            }
        }
        if !removals.isEmpty { _ = try inStore { () throws(HistoryError) in try store.delete(ids: removals) } }
    }

    /// Items whose identities a round keeps (see `Intake.touched`).
    static let touchedLimit = 50_000
    /// Entries read from the sync state at a time while placing them.
    static let placementPage = 2000
    /// Items new to the history recorded by one bulk import, at most.
    static let importBatch = 20000

    /// Puts live items at the top of the history one after another, in the order given: an item the history has
    /// is moved there, one it lacks is recorded from its payloads, many at a time through `HistoryImport`.
    private struct Placement {
        let engine: SyncEngine
        let earliestCopy: HybridClock?
        let now: Date
        var newest: (id: Int64, date: Date)?
        /// The import under way, and the entries it placed (saved to the sync state when it commits).
        var bulk: HistoryImport?
        var placed: [SyncState.Entry] = []
        /// The copy up to which every entry was handed to `place` (saved as the placement's progress by `finish`),
        /// and what was saved last.
        var handled: HybridClock?
        private var savedHandled: HybridClock?

        init(engine: SyncEngine, earliestCopy: HybridClock?, now: Date) {
            self.engine = engine
            self.earliestCopy = earliestCopy
            self.now = now
        }

        /// Places a page of live entries, oldest copy first: runs of items the history has are moved in one
        /// transaction, items it lacks go into the import under way.
        mutating func place(_ page: [SyncState.Entry], rejected: inout [String]) throws(SyncError) {
            let store = engine.store
            // A page as long as they come is a large placement (a join, a clear, a long absence): from then on the
            // history's keys are kept in filters, and only identities they may hold are looked up.
            if engine.knownKeys == nil && page.count >= SyncEngine.placementPage { engine.knownKeys = KnownKeys() }
            var identities = page.map(\.identity)
            if let bulk {
                identities.removeAll { !bulk.mightHold(identity: $0) }
            } else if let keys = engine.knownKeys {
                try engine.inStore { () throws(HistoryError) in try store.refresh(keys) }
                identities.removeAll { !keys.mightHold(identity: $0) }
            }
            let present = try engine.inStore { () throws(HistoryError) in try store.syncIdentities(of: identities) }
            var start = 0
            while start < page.count {
                let isPresent = present[page[start].identity] != nil
                var end = start + 1
                while end < page.count && (present[page[end].identity] != nil) == isPresent { end += 1 }
                if isPresent {
                    try finish()  // positions are handed out in order
                    let run = page[start..<end]
                    try engine.batch { () throws(SyncError) in
                        for entry in run { try move(entry) }
                    }
                } else {
                    for entry in page[start..<end] { try record(entry, rejected: &rejected) }
                }
                start = end
            }
        }

        private mutating func noteNewest(_ entry: SyncState.Entry, id: Int64) {
            if let copy = entry.copy, copy.device != engine.setup.device, copy >= (earliestCopy ?? copy) {
                newest = (id, copy.date)
            }
        }

        /// Moves an item the history has to the top.
        private mutating func move(_ entry: SyncState.Entry) throws(SyncError) {
            var entry = entry
            let store = engine.store
            guard let row = try engine.inStore({ () throws(HistoryError) in try store.syncRow(identity: entry.identity) }) else {
                return
            }
            entry.position = try engine.inStore { () throws(HistoryError) in try store.moveToTop(id: row.id) }
            if row.isPinned != entry.isPinned {
                try engine.inStore { () throws(HistoryError) in try store.setPinned(entry.isPinned, id: row.id) }
            }
            entry.isPending = false
            try engine.state.savePlacement(entry)
            noteNewest(entry, id: row.id)
        }

        /// Records an item the history lacks from its payloads, through the import under way; an item whose payload
        /// has not arrived (or does not make it) is marked pending.
        private mutating func record(_ entry: SyncState.Entry, rejected: inout [String]) throws(SyncError) {
            var entry = entry
            guard let record = entry.record, let item = try engine.hydrate(record, rejected: &rejected) else {
                if !entry.isPending {
                    entry.isPending = true
                    try engine.state.savePlacement(entry)
                }
                return
            }
            let store = engine.store
            let bulk: HistoryImport
            if let open = self.bulk {
                bulk = open
            } else {
                let keys = engine.knownKeys
                bulk = try engine.inStore { () throws(HistoryError) in
                    try HistoryImport(store: store, ordersByDate: false, knownKeys: keys)
                }
                self.bulk = bulk
            }
            let metadata = CaptureMetadata(source: record.source, date: entry.copy?.date ?? now, isPinned: entry.isPinned)
            let identity = entry.identity
            guard
                let id = try engine.inStore({ () throws(HistoryError) in
                    try bulk.add(item, metadata: metadata, ifIdentityIs: identity)?.id
                })
            else {
                // Kept pending, never recorded: not taken for an item deleted here either.
                rejected.append("\(record.identity ?? "?"): its payloads do not make the item it names")
                if !entry.isPending {
                    entry.isPending = true
                    try engine.state.savePlacement(entry)
                }
                return
            }
            entry.position = bulk.lastPosition
            entry.isPending = false
            entry.record = nil  // not needed to save the placement
            placed.append(entry)
            noteNewest(entry, id: id)
            if placed.count >= SyncEngine.importBatch { try finish() }
        }

        /// Commits the import under way, then saves where its items are in the sync state. In that order: were the
        /// process to die between the two, the items are in the history and sync takes them for new copies made
        /// here (written out again, harmlessly), never for items deleted here.
        /// The placement's progress is saved with them: up to the last page handed over whole (a page cut by a
        /// commit is placed again from its start, which moves its first items to the top again, in the same order).
        mutating func finish() throws(SyncError) {
            let progress = handled == savedHandled ? nil : handled
            guard let bulk else {
                if let progress { try engine.state.savePlacementProgress(after: progress) }
                savedHandled = handled
                return
            }
            let placed = self.placed
            self.placed = []
            self.bulk = nil
            let (first, last) = (bulk.firstPosition, bulk.lastPosition)
            try engine.inStore { () throws(HistoryError) in try bulk.commit() }
            try engine.state.transaction {
                for entry in placed { try engine.state.savePlacement(entry) }
                if let progress { try engine.state.savePlacementProgress(after: progress) }
                try engine.state.advanceWatermark(placed: placed, first: first, last: last)
            }
            savedHandled = handled
        }
    }

    /// The item a copy operation describes, from its payload files; nil while one has not arrived yet.
    func hydrate(_ record: SyncOperation, rejected: inout [String]) throws(SyncError) -> PasteboardItem? {
        var item = PasteboardItem()
        for representation in record.representations ?? [] {
            if let inline = representation.inline {
                item.setData(inline, forType: ContentType(representation.type))
                continue
            }
            guard let name = representation.payload else { return nil }
            let path = SyncFolder.payloadPath(name)
            guard folder.exists(path) else { return nil }
            do throws(SyncError) {
                // A message at a time, never more than the size the operation declares: a payload file that lies
                // about its length costs no more memory than the item it names.
                guard representation.size >= 0, representation.size <= SyncFolder.maxPayloadBytes else {
                    throw SyncError(.rejected, "the operation naming it declares an impossible size")
                }
                var data = Data()
                let epoch = try folder.openSealed(path, limit: SyncFolder.maxPayloadBytes, keys: setup.keys(\.payloadKey)) {
                    (chunk) throws(SyncError) in
                    guard data.count + chunk.count <= representation.size else {
                        throw SyncError(.rejected, "it holds more bytes than the operation naming it declares")
                    }
                    data.append(chunk)
                }
                guard data.count == representation.size,
                    Hex.encode(try KeyedHash.digest(data, key: setup.key(epoch: epoch).nameKey)) == name
                else { throw SyncError(.rejected, "its bytes do not match its name") }
                item.setData(data, forType: ContentType(representation.type))
            } catch {
                rejected.append("\(path): \(error.message)")
                try state.noteFile(path, folder: folder, status: "rejected", reason: error.message, operations: 0, now: Date())
                return nil
            }
        }
        return item.isEmpty ? nil : item
    }
}
