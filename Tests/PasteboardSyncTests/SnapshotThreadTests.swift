import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

/// A snapshot written on a thread of its own (`snapshotJobIfDue`, `produceSnapshot`, `finishSnapshot`), as the
/// daemon does, while the engine goes on writing segments.
@Suite struct SnapshotThreadTests {
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

    /// While another thread writes the snapshot of 12,000 items, this one copies and writes out more segments (the
    /// sync state changes under the writer's two passes). The snapshot is whole and covers what its job said: it
    /// removes the segments up to its sequence, the newer ones stay, and a new device joins with everything.
    @Test func aSnapshotWrittenOnAnotherThreadWhileSegmentsAreWrittenJoinsWhole() async throws {
        try a.importItems(12_000)
        try a.engine.writeLocalChanges()
        try a.engine.state.setMeta("snapshot-due", "1")
        let job = try #require(try a.engine.snapshotJobIfDue())
        let before = sync.segmentPaths()
        #expect(!before.isEmpty)
        let writing = Task.detached { try SyncEngine.produceSnapshot(job) }
        for index in 0..<40 {
            try a.copy("copied while the snapshot is written \(index)")
            try a.engine.writeLocalChanges()
        }
        let produced = try await writing.value
        let written = try #require(try a.engine.finishSnapshot(produced))
        #expect(sync.snapshotPaths() == [written.path])
        #expect(Set(written.removed) == Set(before), "the segments it covers, no other")
        #expect(sync.segmentPaths().count >= 1, "the segments written meanwhile stay: \(sync.segmentPaths())")
        #expect(Set(sync.segmentPaths()).isDisjoint(with: before))
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        let expected = try a.store.items(limit: 20_000).map(\.preview)
        #expect(expected.count == 12_040)
        #expect(try c.store.items(limit: 20_000).map(\.preview) == expected)
    }

    /// The folder's key changes while the snapshot is written (a device was removed): the snapshot, sealed with
    /// the old key, is removed, and another is due.
    @Test func aSnapshotSealedWithAKeyRetiredMeanwhileIsRemovedAndAnotherIsDue() throws {
        try a.importItems(300)
        try a.engine.writeLocalChanges()
        try a.engine.state.setMeta("snapshot-due", "1")
        let job = try #require(try a.engine.snapshotJobIfDue())
        let produced = try SyncEngine.produceSnapshot(job)
        #expect(sync.snapshotPaths().count == 1)
        a.engine.setup.key = try SyncKey.generate()
        #expect(try a.engine.finishSnapshot(produced) == nil)
        #expect(sync.snapshotPaths().isEmpty)
        #expect(try a.engine.state.meta("snapshot-due") == "1")
        #expect(!sync.segmentPaths().isEmpty, "the log stays")
    }

    /// Another device's snapshot taken in on a thread of its own (`takeInSnapshots`, as the daemon does), through
    /// connections of its own, by a device whose history holds an item already: nothing arrives in b's history yet,
    /// the engine takes up the clock and the placement left, and its next round puts every item in place, in a's
    /// order, above b's own.
    @Test func aSnapshotTakenInOnAnotherThreadIsPlacedByTheNextRound() async throws {
        try a.importItems(12_000)
        try a.store.setPinned(true, id: try #require(try a.id(of: "item 11990")))
        try a.engine.writeLocalChanges()
        try a.engine.writeSnapshot()
        #expect(sync.segmentPaths().isEmpty && sync.snapshotPaths().count == 1)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        try b.copy("b's own")
        #expect(try b.engine.snapshotBytesToTakeIn() > 100_000)
        let (location, setup) = (b.location, b.engine.setup)
        let taken = try await Task.detached {
            try SyncEngine.takeInSnapshots(location: location, setup: setup, settings: SyncSettings())
        }.value
        #expect(taken.operations >= 12_000 && taken.rejected.isEmpty && !taken.isPlacedStraight)
        #expect(try b.store.count() == 1)
        try b.engine.tookIn(taken)
        #expect(b.engine.hasPlacementLeft)
        #expect(try b.engine.snapshotBytesToTakeIn() == 0)
        let newest = try #require(taken.newestClock)
        #expect(try #require(b.engine.clock.last) >= newest)
        let arrivals = try b.engine.applyArrivals()
        #expect(!arrivals.isPlacementLeft)
        let expected = try a.store.items(limit: 20_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") }
        #expect(expected.count == 12_000 && expected.contains("item 11990 [pinned]"))
        #expect(try b.store.items(limit: 20_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") } == expected + ["b's own"])
    }
}
