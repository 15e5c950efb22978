import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

/// Joining a history in slices (`applyArrivals(deadline:)`, as the daemon does a slice a turn) and after the end of
/// the process: the joining device ends with the same history as a join in one call, and loses nothing meanwhile.
@Suite struct PlacementSliceTests {
    let scratch: Scratch
    let folder: URL
    let a: Device
    let b: Device
    /// More than three pages of placement (`SyncEngine.placementPage`).
    let count = SyncEngine.placementPage * 3 + 517

    init() throws {
        scratch = try Scratch()
        folder = scratch.url.appendingPathComponent("folder")
        let first = StoreLocation(directory: scratch.url.appendingPathComponent("a"))
        let phrase = try #require(try SyncSession.initialize(folder: folder, location: first))
        a = try Device("a", in: scratch, folder: folder)
        b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        try a.importItems(count)
        try a.store.setPinned(true, id: try #require(try a.id(of: "item 17")))
        try a.store.delete(id: try #require(try a.id(of: "item \(count - 5)")))
        try a.engine.writeLocalChanges()
    }

    /// A round whose deadline has passed places one page and says the rest is left; b copies something and a
    /// whole-history comparison runs (its change feed cannot tell what changed) between slices. The comparison
    /// takes none of the items still to place for deleted here, and b's copy ends on top, above the arrived items,
    /// which are older: both devices end with a's history under b's copy.
    @Test func aJoinInSlicesEndsAsAJoinInOneWithACopyMadeMeanwhileOnTop() throws {
        let first = try b.engine.applyArrivals(deadline: .now)
        #expect(first.isPlacementLeft && first.hasReadFolder && first.operations >= count)
        #expect(b.engine.hasPlacementLeft)
        let placedFirst = try b.store.count()
        #expect(placedFirst > 0 && placedFirst < count - 1, "one slice places a page or two, not \(placedFirst) of \(count - 1)")

        try b.copy("copied on b meanwhile")
        try b.engine.state.setMeta("feed", "unknown")  // the next export compares the whole history
        try b.engine.writeLocalChanges()
        var slices = 1
        while b.engine.hasPlacementLeft {
            let arrivals = try b.engine.applyArrivals(deadline: .now)
            #expect(!arrivals.hasReadFolder || !arrivals.isPlacementLeft)
            slices += 1
            #expect(slices < 100, "a slice places at least a page")
            if slices >= 100 { break }
        }
        #expect(slices >= 3, "\(slices) slices")
        #expect(try b.engine.state.pendingPlacement() == nil)

        let expected = try a.history()
        #expect(expected.count == count - 1 && expected.contains("item 17 [pinned]"))
        #expect(try b.history() == ["copied on b meanwhile"] + expected)
        try b.sync()
        try a.sync()
        #expect(try a.history() == ["copied on b meanwhile"] + expected, "nothing was taken for deleted on b")
    }

    /// A turn with a distant deadline ends at the first page after which something waits for the daemon
    /// (`yieldsWhen`, asked after each page), and one with nothing waiting places everything. Meanwhile the history's
    /// keys are kept in filters from one turn to the next (`KnownKeys`), up to date with a copy made between turns;
    /// they are let go when the placement is done.
    @Test func aTurnEndsAtThePageAfterWhichSomethingWaits() throws {
        var asked = 0
        let first = try b.engine.applyArrivals(deadline: .now + .seconds(3600)) {
            asked += 1
            return asked == 2
        }
        #expect(asked == 2 && first.isPlacementLeft)
        let placed = try b.store.count()
        #expect(placed > SyncEngine.placementPage && placed <= 2 * SyncEngine.placementPage, "\(placed) items after two pages")
        #expect(b.engine.knownKeys != nil)

        try b.copy("copied on b meanwhile")
        try b.engine.writeLocalChanges()
        let second = try b.engine.applyArrivals(deadline: .now + .seconds(3600)) { false }
        #expect(!second.isPlacementLeft && !b.engine.hasPlacementLeft)
        #expect(b.engine.knownKeys == nil)
        #expect(try b.history() == ["copied on b meanwhile"] + a.history())
    }

    /// The process ends after a round's first slice: a new engine on the same store (the daemon started again)
    /// goes on with the placement the sync state kept, before anything else, and b ends with a's whole history.
    @Test func aJoinCutShortGoesOnWhenTheEngineStartsAgain() throws {
        let first = try b.engine.applyArrivals(deadline: .now)
        #expect(first.isPlacementLeft)
        let setup = try #require(try SyncSetup.load(for: b.location))
        let restarted = try SyncEngine(store: b.store, location: b.location, setup: setup, settings: SyncSettings())
        #expect(restarted.hasPlacementLeft)
        let rest = try restarted.applyArrivals()
        #expect(!rest.isPlacementLeft && rest.hasReadFolder)
        #expect(!restarted.hasPlacementLeft)
        #expect(try b.history() == (try a.history()))
        #expect(try b.history().count == count - 1)
    }

    /// Cut short after a take-in, before the history was compared with it (the round's removals and pins): the
    /// next engine compares the whole history, so a delete of an item b has, taken in then, still removes it.
    @Test func aRoundCutShortBeforeItsComparisonComparesTheWholeHistoryAfter() throws {
        try b.engine.applyArrivals()
        #expect(try b.history() == (try a.history()))
        let id = try #require(try b.id(of: "item 3"))
        let identity = try #require(try b.store.syncRow(id: id)?.identity)
        // What the take-in of a's delete leaves in the sync state when the process ends right after it.
        var clock = ClockSource(device: a.engine.setup.device, last: nil)
        let delete = SyncOperation(kind: .delete, clock: clock.tick(), identity: Hex.encode(identity))
        var entry = try #require(try b.engine.state.entry(identity))
        entry.apply(delete)
        #expect(!entry.isAlive(try b.engine.state.clears()))
        try b.engine.state.transaction {
            try b.engine.state.save(entry)
            try b.engine.state.savePendingPlacement(PendingPlacement(from: nil, after: nil, isCompared: false, devices: "a"))
        }
        let setup = try #require(try SyncSetup.load(for: b.location))
        let restarted = try SyncEngine(store: b.store, location: b.location, setup: setup, settings: SyncSettings())
        try restarted.applyArrivals()
        #expect(try b.id(of: "item 3") == nil)
        #expect(try b.history().count == count - 2)
        #expect(try restarted.state.pendingPlacement() == nil)
    }
    /// What a placement put at the top is not read again by the next export: the watermark moves over it when it
    /// stood right below. A copy made between two slices with no export in between (by another process, say)
    /// keeps the watermark below it, so the export still finds and writes that copy.
    @Test func theExportSkipsWhatAPlacementPutOnTopButNotACopyMadeBetweenSlices() throws {
        let first = try b.engine.applyArrivals(deadline: .now)
        #expect(first.isPlacementLeft)
        let top = try #require(try b.store.syncRows(atOrBelow: .max, limit: 1).first)
        #expect(try b.engine.state.meta("watermark") == String(top.position), "the first slice's items are skipped")

        try b.copy("copied on b between slices")
        var slices = 1
        while b.engine.hasPlacementLeft && slices < 100 {
            try b.engine.applyArrivals(deadline: .now)
            slices += 1
        }
        #expect(slices >= 3, "\(slices) slices")
        #expect(try b.engine.state.meta("watermark") == String(top.position), "the watermark stays below the copy")
        try b.engine.writeLocalChanges()
        try a.sync()
        #expect(try a.history().first == "copied on b between slices")
        #expect(Set(try b.history()) == Set(try a.history()))
        #expect(try b.history().count == count)
    }
}
