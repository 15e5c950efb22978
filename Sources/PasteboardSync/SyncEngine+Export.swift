public import FoundationEssentials
import PasteboardHistory
import PasteboardModel

extension SyncEngine {
    /// Writes what changed in the history since the last call as one new segment of this device's log (copies,
    /// pins, unpins, deletes, a clear), with the payloads it needs; returns the paths written, relative to the
    /// folder. Items that never sync are left out (see `syncReason(for:item:)`).
    ///
    /// With a `limit`, at most that many items' copies are written, and with a `deadline`, no more after it passed
    /// (a first export of a big history takes many calls, each committed, so that the daemon serves the clipboard
    /// between them): when some are left, `hasMoreLocalChanges` is set, and pins, unpins, deletes and clears wait for
    /// the call that writes the last copy. A comparison of the whole history with what sync knows (the first export,
    /// or after a clear) stops at the deadline too, a page at a time, and goes on at the next call.
    @discardableResult
    public func writeLocalChanges(now: Date = Date(), limit: Int? = nil, deadline: ContinuousClock.Instant? = nil) throws(SyncError)
        -> [String]
    {
        try withLock { () throws(SyncError) -> [String] in
            _ = try refreshKeys(now: now, announcing: true)
            var dead = DeadRecords.none
            let written = try batch(includingStore: false) { () throws(SyncError) -> [String] in
                try writeLocalChangesLocked(now: now, limit: limit, deadline: deadline, dead: &dead)
            }
            // The copy records of what this round deleted (their inline bytes) go: of those items alone, or after a
            // clear or a whole comparison, of every entry no longer alive.
            switch dead {
            case .none: break
            case .some(let identities): try state.forgetRecords(of: identities)
            case .all: try state.forgetDeadRecords()
            }
            return written
        }
    }

    /// Whose copy records a round of `writeLocalChanges` left dead.
    enum DeadRecords {
        case none
        case some([Data])
        case all
    }

    private func writeLocalChangesLocked(now: Date, limit: Int?, deadline: ContinuousClock.Instant?, dead: inout DeadRecords)
        throws(SyncError) -> [String]
    {
            var written: [String] = []
            var operations: [SyncOperation] = []
            let watermark = try startingPosition()
            var newest = watermark
            var newestIdentity: Data?
            // Segments are written as the operations come, so a first export of a large history holds no more than
            // one segment's operations; the payloads they refer to are flushed to disk before each.
            var payloadsFlushed = 0
            var operationsWritten = 0
            func writeSegments(all: Bool) throws(SyncError) {
                while operations.count >= Self.segmentOperations || (all && !operations.isEmpty) {
                    if written[payloadsFlushed...].contains(where: { $0.hasPrefix("payloads/") }) {
                        try AtomicFile.flushFileSystem(folder.root)
                    }
                    let end = min(operations.count, Self.segmentOperations)
                    written.append(try writeSegment(Array(operations[0..<end]), now: now))
                    payloadsFlushed = written.count
                    operationsWritten += end
                    operations.removeFirst(end)
                }
            }
            // The end of every call (inside its transaction): the operations held, how far the copies came, the clock.
            func writeOut() throws(SyncError) {
                try writeSegments(all: true)
                if let newestIdentity { try state.saveWatermark(newest, identity: newestIdentity) }
                try saveClock()
            }
            func deletedIdentities(_ operations: ArraySlice<SyncOperation>) -> [Data] {
                operations.compactMap { $0.kind == .delete ? $0.identity.flatMap(Hex.decode) : nil }
            }
            // Copies: every item that reached the top since the watermark, oldest first (up to `limit` of them).
            var rowsRead = 0
            hasMoreLocalChanges = false
            while true {
                if rowsRead >= (limit ?? Int.max) || deadline.map({ ContinuousClock.now >= $0 }) == true {
                    hasMoreLocalChanges = try !inStore { () throws(HistoryError) in
                        try store.syncRows(afterPosition: newest, limit: 1)
                    }.isEmpty
                    if hasMoreLocalChanges { break }
                }
                let rows = try inStore { () throws(HistoryError) in
                    try store.syncRows(afterPosition: newest, limit: min(deadline == nil ? 1000 : 200, (limit ?? .max) - rowsRead))
                }
                if rows.isEmpty { break }
                rowsRead += rows.count
                for row in rows {
                    newest = max(newest, row.position)
                    newestIdentity = row.identity
                    if try state.position(row.identity) == row.position { continue }  // put there by sync
                    guard let operation = try copyOperation(for: row, now: now, written: &written) else { continue }
                    operations.append(operation)
                    var entry = try state.entry(row.identity) ?? SyncState.Entry(identity: row.identity)
                    entry.apply(operation)
                    if entry.isPinned != row.isPinned {
                        // A copy keeps the pin its identity had in an earlier life (pinned, deleted, copied
                        // again): the copy says what it is now.
                        let pin = SyncOperation(
                            kind: row.isPinned ? .pin : .unpin, clock: clock.tick(now: now), identity: Hex.encode(row.identity))
                        operations.append(pin)
                        entry.apply(pin)
                    }
                    entry.position = row.position
                    entry.isPending = false
                    try state.save(entry)
                }
                try writeSegments(all: false)
            }
            if hasMoreLocalChanges {
                // The rest of the copies first: pins and deletes are compared once every copy is written.
                try writeOut()
                return written
            }
            // Pins and deletes: from the store's change feed since the last export, when it still holds them all
            // and names every item; otherwise (the first export, a clear, a bulk deletion, a feed trimmed past this
            // point) from the whole history against what sync last knew.
            var feedEnd = try inStore { () throws(HistoryError) in try store.latestChangeSequence() }
            var changes: [HistoryChange]?
            if comparison == nil { changes = try localChangesSinceLastExport(upTo: feedEnd) }
            let whole: (after: Data?, feedEnd: Int64)? = comparison.map { ($0.after, $0.feedEnd) } ?? (changes == nil ? (nil, feedEnd) : nil)
            if let comparing = whole {
                // A whole comparison, in slices like the copies: the feed is read from where it began next time, so
                // a change made meanwhile to an item already compared is not missed.
                feedEnd = comparing.feedEnd
                let deletedBefore = operations.count
                let stoppedAt = try pinsAndDeletesByComparison(now: now, after: comparing.after, deadline: deadline, into: &operations)
                if let stoppedAt {
                    comparison = (stoppedAt, comparing.feedEnd)
                    hasMoreLocalChanges = true
                    dead = .some(deletedIdentities(operations[deletedBefore...]))
                    try writeOut()
                    return written
                }
                comparison = nil
                dead = operations.isEmpty && operationsWritten == 0 ? .none : .all
            } else if let changes {
                try pinsAndDeletes(from: changes, now: now, into: &operations)
                let deleted = deletedIdentities(operations[...])
                dead = deleted.isEmpty ? .none : .some(deleted)
            }
            try writeOut()
            try state.setMeta("feed", String(feedEnd))
            return written
    }

    /// This device's own changes of pins and single items since the last export, oldest first; nil when the
    /// feed cannot tell them all (see `writeLocalChangesLocked`). Changes sync itself made (they name a device)
    /// are what other devices said already.
    private func localChangesSinceLastExport(upTo end: Int64) throws(SyncError) -> [HistoryChange]? {
        guard let start = Int64(try state.meta("feed") ?? ""),
            try inStore({ () throws(HistoryError) in try store.hasChanges(after: start) })
        else { return nil }
        var result: [HistoryChange] = []
        var after = start
        while after < end {
            let page = try inStore { () throws(HistoryError) in try store.changes(after: after, limit: 1000) }
            guard let last = page.last else { break }
            for change in page where change.sequence <= end && change.device == nil {
                switch change.kind {
                case .pinned, .unpinned:
                    result.append(change)
                case .deleted, .expired, .pruned, .cleared:
                    guard change.identity != nil else { return nil }  // many at once: compare the whole history
                    result.append(change)
                case .added, .repeated, .restored, .moved, .imported, .changed:
                    continue  // copies are found by position (above); the rest sync does not carry
                }
            }
            after = last.sequence
        }
        return result
    }

    /// The pin, unpin and delete operations for `changes`, against what sync last knew of each item.
    private func pinsAndDeletes(from changes: [HistoryChange], now: Date, into operations: inout [SyncOperation])
        throws(SyncError)
    {
        let clears = try state.clears()
        var done = Set<Data>()
        // Newest first: an item's latest change decides, and the history is asked what it holds now.
        for change in changes.reversed() {
            let row: HistoryStore.SyncRow?
            let identity: Data
            if let known = change.identity {
                identity = known
                row = try inStore { () throws(HistoryError) in try store.syncRow(identity: known) }
            } else if let id = change.itemID,
                let found = try inStore({ () throws(HistoryError) in try store.syncRow(id: id) })
            {
                identity = found.identity
                row = found
            } else {
                continue  // deleted since: that change (later in the feed) says so
            }
            guard done.insert(identity).inserted,
                let known = try state.entry(identity, withRecord: false), known.isAlive(clears)
            else { continue }
            if let row {
                guard row.isPinned != known.isPinned else { continue }
                let operation = SyncOperation(
                    kind: row.isPinned ? .pin : .unpin, clock: clock.tick(now: now), identity: Hex.encode(identity))
                operations.append(operation)
                try update(identity) { $0.apply(operation) }
            } else if !known.isPending {
                let operation = SyncOperation(kind: .delete, clock: clock.tick(now: now), identity: Hex.encode(identity))
                operations.append(operation)
                try update(identity) {
                    $0.apply(operation)
                    $0.position = nil
                }
            }
        }
    }

    /// The pin, unpin, delete and clear operations found by comparing the whole history with the sync state, a page
    /// of the state's live entries at a time (each page's items looked up in the history by identity).
    /// With a `deadline`, it stops at the first page that ends after it (when the history is not empty) and returns
    /// the identity to go on after; nil when it is done.
    private func pinsAndDeletesByComparison(
        now: Date, after start: Data?, deadline: ContinuousClock.Instant?, into operations: inout [SyncOperation]
    ) throws(SyncError) -> Data? {
        // The whole history went: one clear says it (and removes what the others copied before it), when sync
        // knew more than one item.
        let historyEmpty = try inStore { () throws(HistoryError) in try store.count() } == 0
        var deletions: [Data] = []
        func delete(_ identities: [Data]) throws(SyncError) {
            for identity in identities {
                let operation = SyncOperation(kind: .delete, clock: clock.tick(now: now), identity: Hex.encode(identity))
                operations.append(operation)
                try update(identity) {
                    $0.apply(operation)
                    $0.position = nil
                }
            }
        }
        // While a placement is under way, an item it has still to put in the history is not one deleted here.
        let isPlacing = try state.pendingPlacement() != nil
        var after = start
        while true {
            let page = try state.liveEntries(after: after, limit: 2000)
            guard let last = page.last else { break }
            after = last.identity
            let present = try inStore { () throws(HistoryError) in try store.syncIdentities(of: page.map(\.identity)) }
            for known in page {
                if let item = present[known.identity] {
                    guard item.isPinned != known.isPinned else { continue }
                    let operation = SyncOperation(
                        kind: item.isPinned ? .pin : .unpin, clock: clock.tick(now: now), identity: Hex.encode(known.identity))
                    operations.append(operation)
                    try update(known.identity) { $0.apply(operation) }
                } else if !known.isPending && (known.isPlaced || !isPlacing) {
                    deletions.append(known.identity)
                }
            }
            // Deletions are written as they are found, unless the history is empty and they may yet be one clear.
            if !historyEmpty {
                try delete(deletions)
                deletions = []
                if let deadline, ContinuousClock.now >= deadline { return after }
            } else if deletions.count > 1 {
                break
            }
        }
        if historyEmpty && deletions.count > 1 {
            let operation = SyncOperation(kind: .clear, clock: clock.tick(now: now), keepsPinned: false)
            operations.append(operation)
            var clears = try state.clears()
            _ = clears.apply(operation)
            try state.save(clears)
        } else {
            try delete(deletions)
        }
        return nil
    }

    /// The position after which items may be new to sync. The store gives a new copy the position after the
    /// highest one in use, so when the newest items were deleted a position can come back for another item: then
    /// the search starts again below, at the highest item sync knows at its position.
    private func startingPosition() throws(SyncError) -> Int64 {
        guard let watermark = Int64(try state.meta("watermark") ?? "0"), watermark > 0 else { return 0 }
        let expected = try state.meta("watermark-identity").flatMap(Hex.decode)
        let rows = try inStore { () throws(HistoryError) in try store.syncRows(atOrBelow: watermark, limit: 1) }
        // The same item at the same place is not enough: sync may have removed it since (its position in the sync
        // state is gone then) and the user copied it again, at the position it had.
        if let row = rows.first, row.position == watermark, row.identity == expected, try state.position(row.identity) == watermark {
            return watermark
        }
        var below = watermark
        while true {
            let rows = try inStore { () throws(HistoryError) in try store.syncRows(atOrBelow: below, limit: 200) }
            guard let last = rows.last else { return 0 }
            for row in rows {
                if try state.position(row.identity) == row.position { return row.position }
            }
            below = last.position - 1
        }
    }

    private func update(_ identity: Data, _ change: (inout SyncState.Entry) -> Void) throws(SyncError) {
        var entry = try state.entry(identity) ?? SyncState.Entry(identity: identity)
        change(&entry)
        try state.save(entry)
    }

    /// Why an item stays on this device, or nil when it syncs.
    func localReason(for row: HistoryStore.SyncRow, item: PasteboardItem?) throws(SyncError) -> String? {
        if row.expiresAt != nil { return "it expires (--expire or --once)" }
        if try state.isLocalOnly(row.identity) { return "it is marked local-only" }
        if row.size > settings.maxItemBytes { return "larger than sync-max-item-size" }
        guard let item else { return nil }
        return settings.localReason(source: row.source, types: item.types, size: item.byteCount)
    }

    /// The copy operation for an item, its payloads written; nil for an item that stays here.
    private func copyOperation(for row: HistoryStore.SyncRow, now: Date, written: inout [String]) throws(SyncError)
        -> SyncOperation?
    {
        if try localReason(for: row, item: nil) != nil { return nil }
        let item = try inStore { () throws(HistoryError) in try store.pasteboardItem(id: row.id) }
        if try localReason(for: row, item: item) != nil { return nil }
        var representations: [SyncOperation.Representation] = []
        for representation in item.representations {
            let data = representation.data
            if data.count <= SyncOperation.Representation.inlineLimit {
                representations.append(.init(type: representation.type.identifier, payload: nil, size: data.count, inline: data))
                continue
            }
            let name = Hex.encode(try KeyedHash.digest(data, key: setup.key.nameKey))
            let path = SyncFolder.payloadPath(name)
            if !folder.exists(path) {
                // Flushed together before the segment that names it (see `writeSegments`).
                try folder.write(try sealPayload(data, path: path), to: path, staging: staging, flushing: false)
                try state.noteOwnPayload(name)
                written.append(path)
            }
            representations.append(.init(type: representation.type.identifier, payload: name, size: data.count))
        }
        return SyncOperation(
            kind: .copy, clock: clock.tick(now: now), identity: Hex.encode(row.identity), representations: representations,
            source: row.source)
    }

    func sealPayload(_ data: Data, path: String) throws(SyncError) -> Data {
        var chunks: [Data] = []
        var offset = 0
        repeat {
            let end = min(data.count, offset + SecretStream.chunkBytes)
            chunks.append(data.subdata(in: offset..<end))
            offset = end
        } while offset < data.count
        return try SecretStream.seal(chunks, key: setup.key.payloadKey, context: path)
    }

    /// Segments roll over after this many operations.
    static let segmentOperations = 5000

    /// The first message of a segment: whose it is, its number, and how many operations follow.
    struct SegmentHeader: Codable, Equatable {
        var device: String
        var sequence: Int
        var count: Int
        /// The content types the operations name, by index (see `SegmentCodec`).
        var types: [String]
        /// For a compacted log: the first of its device's sequences whose operations this segment holds in brief (it
        /// holds everything its device's segments from there up to itself decided).
        var coversFrom: Int? = nil
        /// When its device wrote it, by its own clock (milliseconds since 1970): sealed, so `pb sync status` shows a
        /// device's last-seen time from it rather than from file times the folder's host controls.
        var written: UInt64? = nil

        enum CodingKeys: String, CodingKey {
            case device = "d", sequence = "q", count = "n", types = "t", coversFrom = "w", written = "s"
        }
    }

    /// Seals `operations` as this device's next segment and renames it into the folder; returns its path.
    func writeSegment(_ operations: [SyncOperation], coversFrom: Int? = nil, now: Date) throws(SyncError) -> String {
        let sequence = (Int(try state.meta("sequence") ?? "0") ?? 0) + 1
        let path = SyncFolder.segmentPath(device: setup.device, sequence: sequence)
        let (types, body) = SegmentCodec.encode(operations)
        var messages: [Data] = []
        do {
            let header = SegmentHeader(
                device: setup.device.rawValue, sequence: sequence, count: operations.count, types: types, coversFrom: coversFrom,
                written: UInt64(max(0, now.timeIntervalSince1970 * 1000)))
            messages.append(try JSONEncoder().encode(header))
        } catch {
            throw SyncError(.io, "Cannot encode a segment header: \(error)")
        }
        // The operations as one byte stream, cut into messages of at most 64 KiB.
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + SecretStream.chunkBytes)
            messages.append(body.subdata(in: offset..<end))
            offset = end
        }
        let sealed = try SecretStream.seal(messages, key: setup.key.logKey, context: path)
        try folder.write(sealed, to: path, staging: staging)
        try state.setMeta("sequence", String(sequence))
        try state.setMeta("operations-since-snapshot", String((Int(try state.meta("operations-since-snapshot") ?? "0") ?? 0) + operations.count))
        try state.noteFile(path, folder: folder, status: "applied", reason: nil, operations: operations.count, now: now)
        if let last = operations.last { try state.noteDevice(setup.device, clock: last.clock, seen: now) }
        return path
    }
}
