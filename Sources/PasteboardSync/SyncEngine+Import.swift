public import Foundation
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

    public static func == (a: SyncArrivals, b: SyncArrivals) -> Bool {
        a.operations == b.operations && a.rejected == b.rejected && a.newestCopy?.id == b.newestCopy?.id
    }
}

extension SyncEngine {
    /// Reads every segment not yet applied (all of them, or only `paths`, in the order given), checks each whole
    /// before taking in any of its operations, and brings the history to the merged state. A segment that fails
    /// (another key, modified, truncated, misplaced) is recorded as rejected and nothing of it is applied.
    @discardableResult
    public func applyArrivals(paths: [String]? = nil, now: Date = Date()) throws(SyncError) -> SyncArrivals {
        try withLock { () throws(SyncError) -> SyncArrivals in
            var arrivals = SyncArrivals()
            var operations: [SyncOperation] = []
            var accepted: [(path: String, count: Int, last: HybridClock?)] = []
            for path in paths ?? folder.segmentPaths() {
                let url = folder.url(path)
                guard let attributes = SyncState.attributes(url) else { continue }  // gone meanwhile
                if let known = try state.file(path), known.size == attributes.size, known.modified == attributes.modified {
                    continue  // applied or rejected as it is
                }
                do throws(SyncError) {
                    let read = try readSegment(path)
                    operations += read
                    accepted.append((path, read.count, read.map(\.clock).max()))
                } catch {
                    arrivals.rejected.append("\(path): \(error.message)")
                    try state.noteFile(path, url: url, status: "rejected", reason: error.message, operations: 0, now: now)
                }
            }
            let pending = try state.pendingEntries()
            if operations.isEmpty && pending.isEmpty { return arrivals }
            arrivals.operations = operations.count
            // Take in every operation, then bring the history in line once.
            var touched: [Data: SyncState.Entry] = [:]
            var earliestCopy: HybridClock?
            var clears = try state.clears()
            var clearsChanged = false
            try state.transaction {
                for operation in operations {
                    clock.observe(operation.clock)
                    if operation.kind == .clear {
                        if clears.apply(operation) { clearsChanged = true }
                        continue
                    }
                    guard let identity = operation.identityBytes else { continue }
                    var entry = try touched[identity] ?? state.entry(identity) ?? SyncState.Entry(identity: identity)
                    if entry.apply(operation) { earliestCopy = min(earliestCopy ?? operation.clock, operation.clock) }
                    touched[identity] = entry
                }
                for entry in touched.values { try state.save(entry) }
                try state.save(clears)
                for file in accepted {
                    try state.noteFile(file.path, url: folder.url(file.path), status: "applied", reason: nil, operations: file.count, now: now)
                    if let last = file.last, let device = SyncFolder.parseSegmentPath(file.path)?.device {
                        try state.noteDevice(device, clock: last, seen: now)
                    }
                }
            }
            try saveClock()
            arrivals.newestCopy = try reconcile(
                touched: touched, earliestCopy: earliestCopy, clearsChanged: clearsChanged, pending: pending, rejected: &arrivals.rejected,
                now: now)
            try state.forgetDeadRecords()
            return arrivals
        }
    }

    /// Opens one segment and checks it: its header names the device and number its path does, every operation is
    /// well formed and that device's own.
    func readSegment(_ path: String) throws(SyncError) -> [SyncOperation] {
        guard let place = SyncFolder.parseSegmentPath(path) else { throw SyncError(.rejected, "it is not named like a segment") }
        let data = try AtomicFile.read(folder.url(path), limit: SyncFolder.maxSegmentBytes)
        let messages = try SecretStream.open(data, key: setup.key.logKey, context: path)
        guard let first = messages.first, let header = try? JSONDecoder().decode(SegmentHeader.self, from: first),  // reported below
            header.device == place.device.rawValue, header.sequence == place.sequence, header.types.count <= 4096,
            header.count >= 0, header.count <= SyncFolder.maxSegmentBytes / 3
        else { throw SyncError(.rejected, "its header does not match its name") }
        var body = Data()
        for message in messages.dropFirst() { body.append(message) }
        guard let operations = SegmentCodec.decode(body, count: header.count, types: header.types, device: place.device),
            operations.allSatisfy(\.isWellFormed)
        else { throw SyncError(.rejected, "it holds a malformed operation") }
        return operations
    }

    /// Brings the history in line with the merged state for what changed: removes what is no longer alive, sets
    /// pins, and puts what was copied (here or elsewhere) at the top in clock order.
    private func reconcile(
        touched: [Data: SyncState.Entry], earliestCopy: HybridClock?, clearsChanged: Bool, pending: [SyncState.Entry],
        rejected: inout [String], now: Date
    ) throws(SyncError) -> (id: Int64, date: Date)? {
        let clears = try state.clears()
        let present = try inStore { () throws(HistoryError) in try store.syncIdentities() }
        var candidates = Set(touched.keys)
        if clearsChanged {
            for identity in present.keys where try state.entry(identity) != nil { candidates.insert(identity) }
        }
        var removals: [Int64] = []
        for identity in candidates {
            guard var entry = try knownEntry(identity, touched) else { continue }
            let item = present[identity]
            if !entry.isAlive(clears) {
                if let item { removals.append(item.id) }
                if entry.position != nil || entry.isPending {
                    entry.position = nil
                    entry.isPending = false
                    try state.save(entry)
                }
            } else if let item, item.isPinned != entry.isPinned {
                try inStore { () throws(HistoryError) in try store.setPinned(entry.isPinned, id: item.id) }
            }
        }
        if !removals.isEmpty { _ = try inStore { () throws(HistoryError) in try store.delete(ids: removals) } }
        // Ordering: every live item copied at or after the earliest copy that arrived goes to the top, oldest first,
        // so the history's order is the order of the copies' clocks on every device.
        var queue: [SyncState.Entry] = []
        var queued = Set<Data>()
        if let earliestCopy {
            for identity in try state.identities(copiedSince: earliestCopy) {
                guard let entry = try knownEntry(identity, touched) else { continue }
                queue.append(entry)
                queued.insert(identity)
            }
        }
        for entry in pending where !queued.contains(entry.identity) { queue.append(entry) }
        queue.sort { ($0.copy ?? $1.copy!) < ($1.copy ?? $0.copy!) }
        var newest: (id: Int64, date: Date)?
        let live = queue.filter { $0.isAlive(clears) }
        var start = 0
        while start < live.count {
            let end = min(live.count, start + 500)
            try batch { () throws(SyncError) in
                for entry in live[start..<end] {
                    if let id = try place(entry, present: present[entry.identity]?.id, rejected: &rejected, now: now), let copy = entry.copy, copy.device != setup.device,
                        copy >= (earliestCopy ?? copy)
                    {
                        newest = (id, copy.date)
                    }
                }
            }
            start = end
        }
        return newest
    }

    private func knownEntry(_ identity: Data, _ touched: [Data: SyncState.Entry]) throws(SyncError) -> SyncState.Entry? {
        if let entry = touched[identity] { return entry }
        return try state.entry(identity)
    }

    /// Puts one live item at the top of the history: moved there when the history has it, else recorded from its
    /// payloads; returns its id, or nil while a payload is missing.
    private func place(_ entry: SyncState.Entry, present: Int64?, rejected: inout [String], now: Date) throws(SyncError)
        -> Int64?
    {
        var entry = entry
        let id: Int64
        if present != nil, let row = try inStore({ () throws(HistoryError) in try store.syncRow(identity: entry.identity) }) {
            id = row.id
            entry.position = try inStore { () throws(HistoryError) in try store.moveToTop(id: row.id) }
            if row.isPinned != entry.isPinned {
                try inStore { () throws(HistoryError) in try store.setPinned(entry.isPinned, id: row.id) }
            }
        } else {
            guard let record = entry.record, let item = try hydrate(record, rejected: &rejected) else {
                if !entry.isPending {
                    entry.isPending = true
                    try state.save(entry)
                }
                return nil
            }
            guard HistoryStore.syncIdentity(of: item) == entry.identity else {
                // Kept pending, never recorded: not taken for an item deleted here either.
                rejected.append("\(record.identity ?? "?"): its payloads do not make the item it names")
                if !entry.isPending {
                    entry.isPending = true
                    try state.savePlacement(entry)
                }
                return nil
            }
            let date = entry.copy?.date ?? now
            id = try inStore { () throws(HistoryError) in
                try store.record(item, metadata: CaptureMetadata(source: record.source, date: date, isPinned: entry.isPinned)).id
            }
            entry.position = try inStore { () throws(HistoryError) in try store.syncRow(identity: entry.identity)?.position }
        }
        entry.isPending = false
        try state.savePlacement(entry)
        return id
    }

    /// The item a copy operation describes, from its payload files; nil while one has not arrived yet.
    private func hydrate(_ record: SyncOperation, rejected: inout [String]) throws(SyncError) -> PasteboardItem? {
        var item = PasteboardItem()
        for representation in record.representations ?? [] {
            if let inline = representation.inline {
                item.setData(inline, forType: ContentType(representation.type))
                continue
            }
            guard let name = representation.payload else { return nil }
            let path = SyncFolder.payloadPath(name)
            let url = folder.url(path)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            do throws(SyncError) {
                let sealed = try AtomicFile.read(url, limit: SyncFolder.maxPayloadBytes)
                let chunks = try SecretStream.open(sealed, key: setup.key.payloadKey, context: path)
                var data = Data()
                for chunk in chunks { data.append(chunk) }
                guard data.count == representation.size,
                    Hex.encode(try KeyedHash.digest(data, key: setup.key.nameKey)) == name
                else { throw SyncError(.rejected, "its bytes do not match its name") }
                item.setData(data, forType: ContentType(representation.type))
            } catch {
                rejected.append("\(path): \(error.message)")
                try state.noteFile(path, url: url, status: "rejected", reason: error.message, operations: 0, now: Date())
                return nil
            }
        }
        return item.isEmpty ? nil : item
    }
}
