import Foundation
import Testing
@testable import PasteboardSync

/// The sync state's walks in copy order: what a placement reads after a take-in, and what a snapshot is written from.
@Suite struct SyncStateOrderTests {
    let scratch: Scratch
    let state: SyncState
    let device = DeviceID(rawValue: "0123456789abcdef")!

    init() throws {
        scratch = try Scratch()
        state = try SyncState(directory: scratch.url.appendingPathComponent("state"))
    }

    func clock(_ milliseconds: UInt64) -> HybridClock { HybridClock(milliseconds: milliseconds, counter: 0, device: device) }

    /// Entries copied at 1…20 seconds, those at 3, 7 and 15 waiting for a payload, saved in an order that is neither
    /// their copies' nor their identities'. One entry has no copy (a delete alone).
    func fill() throws {
        for second in [9, 2, 17, 5, 20, 1, 13, 7, 11, 3, 19, 15, 6, 10, 4, 8, 12, 14, 16, 18] as [UInt64] {
            var entry = SyncState.Entry(identity: Data([UInt8(40 - second), 1]))
            entry.copy = clock(second * 1000)
            entry.isPending = [3, 7, 15].contains(second)
            try state.save(entry)
        }
        var deleted = SyncState.Entry(identity: Data([99]))
        deleted.deleted = clock(500)
        try state.save(deleted)
    }

    /// A placement from the copy at 12 s reads the copies from there on and the pending entries below it, merged
    /// in copy order, a page after another from its cursor, whatever order they were saved in.
    @Test func aPlacementPageMergesThePendingEntriesBelowItsClockInCopyOrder() throws {
        try fill()
        var seconds: [UInt64] = []
        var after: HybridClock?
        while true {
            let page = try state.placementPage(copiedSince: clock(12_000), after: after, limit: 3)
            guard let last = page.last else { break }
            seconds += page.map { $0.copy!.milliseconds / 1000 }
            #expect(page.allSatisfy { $0.rowid != nil })
            after = last.copy
        }
        #expect(seconds == [3, 7, 12, 13, 14, 15, 16, 17, 18, 19, 20])
        // Without a clock: the pending entries alone; from a cursor past the clock: the copies after the cursor.
        #expect(try state.placementPage(copiedSince: nil, after: nil, limit: 10).map { $0.copy!.milliseconds / 1000 } == [3, 7, 15])
        #expect(
            try state.placementPage(copiedSince: clock(12_000), after: clock(16_000), limit: 10).map { $0.copy!.milliseconds / 1000 }
                == [17, 18, 19, 20])
    }

    /// A snapshot's walk: the entry without a copy first, then every copy in order, across pages of any size.
    @Test func everyEntryInCopyOrderAcrossPages() throws {
        try fill()
        for limit in [1, 4, 7, 21, 50] {
            var seen: [SyncState.Entry] = []
            var cursor: SyncState.CopyOrderCursor?
            repeat {
                let (page, next) = try state.entriesInCopyOrder(after: cursor, limit: limit)
                #expect(page.count <= limit)
                seen += page
                cursor = next
            } while cursor != nil
            #expect(seen.count == 21, "pages of \(limit)")
            #expect(seen.first?.copy == nil && seen.first?.deleted == clock(500))
            #expect(seen.dropFirst().map { $0.copy!.milliseconds / 1000 } == Array(1...20))
        }
    }
}
