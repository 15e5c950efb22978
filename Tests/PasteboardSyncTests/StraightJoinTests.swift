import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

/// A device joining with an empty history takes the newest snapshot straight into it (SyncEngine+StraightJoin.swift),
/// on the take-in's thread. Each test checks it against the general take-in and placement, which the same snapshot
/// goes through on a device whose engine takes it in itself (`applyArrivals`).
@Suite struct StraightJoinTests {
    let scratch: Scratch
    let folder: URL
    let phrase: String
    let a: Device

    init() throws {
        scratch = try Scratch()
        folder = scratch.url.appendingPathComponent("folder")
        phrase = try #require(try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        a = try Device("a", in: scratch, folder: folder)
    }

    var sync: SyncFolder { SyncFolder(root: folder) }

    /// The daemon's way: the take-in on a thread of its own, then the engine takes it up and runs its next round.
    func joinOnAThread(_ device: Device) async throws -> SnapshotIntake {
        let (location, setup) = (device.location, device.engine.setup)
        let taken = try await Task.detached {
            try SyncEngine.takeInSnapshots(location: location, setup: setup, settings: SyncSettings())
        }.value
        try device.engine.tookIn(taken)
        return taken
    }

    func fullHistory(_ device: Device) throws -> [String] {
        try device.store.items(limit: 100_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") }
    }

    /// Every entry's position is its item's in the history, and every live entry has one.
    func expectPositionsMatch(_ device: Device) throws {
        var positions: [Data: Int64] = [:]
        for row in try device.store.syncRows(afterPosition: 0, limit: 100_000) { positions[row.identity] = row.position }
        var placed = 0
        var cursor: SyncState.CopyOrderCursor?
        repeat {
            let (page, next) = try device.engine.state.entriesInCopyOrder(after: cursor, limit: 1000)
            for entry in page {
                #expect(entry.position == positions[entry.identity], "entry \(Hex.encode(entry.identity))")
                if entry.position != nil { placed += 1 }
            }
            cursor = next
        } while cursor != nil
        #expect(placed == positions.count)
    }

    /// 25,000 items (two batches), a pinned one, a deleted one, one copied again: b joins straight, with every item
    /// in the history when the take-in ends, in a's order, and no placement left; c takes the same snapshot in the
    /// general way and ends the same. b's next export writes none of them back, and its next round changes nothing.
    @Test func aJoinIntoAnEmptyHistoryEndsAsTheGeneralOne() async throws {
        try a.importItems(25_000)
        try a.store.setPinned(true, id: try #require(try a.id(of: "item 24990")))
        _ = try a.store.delete(ids: [try #require(try a.id(of: "item 24980"))])
        try a.engine.writeLocalChanges()
        try a.copy("item 10")  // copied again: its second copy is the newest
        try a.engine.writeLocalChanges()
        try a.engine.writeSnapshot()
        #expect(sync.snapshotPaths().count == 1 && sync.segmentPaths().isEmpty)
        let expected = try fullHistory(a)
        #expect(expected.count == 24_999 && expected.first == "item 10" && expected.contains("item 24990 [pinned]"))

        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let taken = try await joinOnAThread(b)
        #expect(taken.isPlacedStraight && taken.rejected.isEmpty && taken.operations >= 25_000)
        #expect(!b.engine.hasPlacementLeft)
        #expect(try fullHistory(b) == expected)
        try expectPositionsMatch(b)
        // The export's watermark is over every item placed: the next export reads none of them again.
        let top = try #require(try b.store.syncRows(afterPosition: 0, limit: 100_000).map(\.position).max())
        #expect(try b.engine.state.meta("watermark") == String(top))
        let arrivals = try b.engine.applyArrivals()
        #expect(arrivals.operations == 0 && !arrivals.isPlacementLeft)
        #expect(try fullHistory(b) == expected)
        let segmentsBefore = sync.segmentPaths()
        #expect(try b.engine.writeLocalChanges().isEmpty, "nothing of the join is written back as b's own copies")
        #expect(sync.segmentPaths() == segmentsBefore)

        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        #expect(try fullHistory(c) == expected)
        try expectPositionsMatch(c)

        // And b's copies go on from there as anyone's.
        try b.copy("copied on b after the join")
        try b.engine.writeLocalChanges()
        try a.engine.applyArrivals()
        #expect(try fullHistory(a).first == "copied on b after the join")
    }

    /// a cleared its history (keeping the pinned) between copies: the snapshot ends with the clear. b joins
    /// straight, then its next round compares the history with the state, and b ends as a.
    @Test func aSnapshotWithAClearEndsAsTheGeneralOne() async throws {
        try a.importItems(300)
        try a.store.setPinned(true, id: try #require(try a.id(of: "item 7")))
        _ = try a.store.clear(keepPinned: true)
        try a.engine.writeLocalChanges()
        try a.importItems(40, named: "after the clear", from: 1000)
        try a.engine.writeLocalChanges()
        try a.engine.writeSnapshot()
        let expected = try fullHistory(a)
        #expect(expected.count == 41 && expected.contains("item 7 [pinned]"))

        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let taken = try await joinOnAThread(b)
        #expect(taken.isPlacedStraight)
        try b.engine.applyArrivals()
        #expect(!b.engine.hasPlacementLeft)
        #expect(try fullHistory(b) == expected)
        try expectPositionsMatch(b)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        #expect(try fullHistory(c) == expected)
    }

    /// One item's payload file has not arrived when b joins: every other item is placed, that one waits, and is
    /// placed at the top once its file is there (as the general placement does).
    @Test func anItemWhosePayloadHasNotArrivedWaitsForIt() async throws {
        try a.importItems(50)
        let large = String(repeating: "a payload of its own file ", count: 200)
        try a.copy(large)
        try a.importItems(50, named: "later", from: 100)
        try a.engine.writeLocalChanges()
        try a.engine.writeSnapshot()
        let payloads = try FileManager.default.contentsOfDirectory(
            at: folder.appendingPathComponent("payloads"), includingPropertiesForKeys: nil
        ).filter { !$0.hasDirectoryPath }
        let payload = try #require(payloads.count == 1 ? payloads.first : nil, "\(payloads)")
        let away = scratch.url.appendingPathComponent("away")
        try FileManager.default.moveItem(at: payload, to: away)

        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let taken = try await joinOnAThread(b)
        #expect(taken.isPlacedStraight)
        #expect(try b.store.count() == 100)
        #expect(b.engine.hasPlacementLeft)
        try b.engine.applyArrivals()
        #expect(try b.store.count() == 100, "still waiting")
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        #expect(try c.store.count() == 100)

        try FileManager.default.moveItem(at: away, to: payload)
        try b.engine.applyArrivals()
        try c.engine.applyArrivals()
        #expect(try b.store.count() == 101)
        let top = try #require(try b.store.newestID())
        #expect(try b.store.pasteboardItem(id: top).string == large)
        #expect(!b.engine.hasPlacementLeft)
        try expectPositionsMatch(b)
        #expect(try fullHistory(b) == fullHistory(c))
    }

    /// The snapshot names an item a second time after its entry was written (a pin at its end): the join places
    /// everything, and the next round pins the item, as the general take-in would.
    @Test func anItemNamedAgainLaterIsSetRightByTheNextRound() async throws {
        try a.importItems(30_000)
        try a.engine.writeLocalChanges()
        try a.engine.writeSnapshot()
        let expected = try fullHistory(a)
        let target = try #require(try a.store.syncRows(afterPosition: 0, limit: 1).first)
        try rewriteSnapshot { operations in
            let writer = operations[0].clock.device
            let clock = HybridClock(milliseconds: operations.map(\.clock.milliseconds).max()! + 1, counter: 0, device: writer)
            return operations + [SyncOperation(kind: .pin, clock: clock, identity: Hex.encode(target.identity))]
        }
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let taken = try await joinOnAThread(b)
        #expect(taken.isPlacedStraight && taken.rejected.isEmpty)
        #expect(try b.store.count() == 30_000)
        #expect(b.engine.hasPlacementLeft)
        try b.engine.applyArrivals()
        let pinnedFirst = expected.map { $0 == "item 0" ? "item 0 [pinned]" : $0 }
        #expect(try fullHistory(b) == pinnedFirst)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        #expect(try fullHistory(c) == pinnedFirst)
    }

    /// A snapshot whose last operation is malformed, found after two batches were recorded: it is rejected whole.
    /// The items it recorded are deleted again, the state holds no entry, and nothing is left to place.
    @Test func aSnapshotFailingPartWayIsRejectedWhole() async throws {
        try a.importItems(45_000)
        try a.engine.writeLocalChanges()
        try a.engine.writeSnapshot()
        try rewriteSnapshot { operations in
            let writer = operations[0].clock.device
            let clock = HybridClock(milliseconds: operations.map(\.clock.milliseconds).max()! + 1, counter: 0, device: writer)
            return operations + [SyncOperation(kind: .delete, clock: clock, identity: "00")]
        }
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let taken = try await joinOnAThread(b)
        #expect(!taken.isPlacedStraight && taken.operations == 0)
        #expect(taken.rejected.count == 1 && taken.rejected.first?.contains("malformed") == true, "\(taken.rejected)")
        #expect(try b.store.count() == 0)
        #expect(try b.engine.state.hasNoEntries())
        #expect(!b.engine.hasPlacementLeft)
        #expect(try b.engine.state.meta("watermark") == "0")
        let path = try #require(sync.snapshotPaths().first)
        #expect(try b.engine.state.file(path)?.status == "rejected")
    }

    /// Rewrites a's snapshot with `transform` applied to its operations, sealed again with the folder's key.
    func rewriteSnapshot(_ transform: ([SyncOperation]) -> [SyncOperation]) throws {
        let path = try #require(sync.snapshotPaths().first)
        let url = folder.appendingPathComponent(path)
        let key = try SyncKey(phrase: phrase)
        let messages = try SecretStream.open(try Data(contentsOf: url), key: key.snapshotKey, context: path)
        var header = try JSONDecoder().decode(SyncEngine.SnapshotHeader.self, from: messages[0])
        var decoder = GroupStreamDecoder()
        var operations: [SyncOperation] = []
        for message in messages.dropFirst() {
            let decoded = decoder.feed(message)
            operations += try #require(decoded)
        }
        let last = decoder.finish()
        operations += try #require(last)
        #expect(operations.count == header.count)
        operations = transform(operations)
        header.count = operations.count
        var body = Data()
        SegmentCodec.appendVarint(&body, UInt64(SegmentCodec.groupCount(operations)))
        _ = SegmentCodec.appendGroups(operations, to: &body)
        var out = [try JSONEncoder().encode(header)]
        var start = 0
        while start < body.count {
            out.append(body.subdata(in: start..<min(body.count, start + SecretStream.chunkBytes)))
            start += SecretStream.chunkBytes
        }
        try SecretStream.seal(out, key: key.snapshotKey, context: path).write(to: url)
    }
}
