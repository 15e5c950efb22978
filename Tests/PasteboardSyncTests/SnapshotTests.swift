import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

/// Snapshots of the merged state, and cleaning the folder: two or three stores sharing a plain directory.
@Suite struct SnapshotTests {
    let scratch: Scratch
    let folder: URL
    let phrase: String
    let a: Device
    let b: Device

    init() throws {
        scratch = try Scratch()
        folder = scratch.url.appendingPathComponent("folder")
        phrase = try #require(try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        a = try Device("a", in: scratch, folder: folder)
        b = try Device("b", in: scratch, folder: folder, phrase: phrase)
    }

    var sync: SyncFolder { SyncFolder(root: folder) }

    /// The id of the item whose text begins as `text` does (a long text's preview is cut short).
    func id(of text: String, on device: Device) throws -> Int64? {
        try device.store.items(limit: 100).first { $0.preview.hasPrefix(String(text.prefix(40))) }?.id
    }

    /// Every file under `devices/` and `payloads/`, relative to the folder.
    func files() throws -> [String] { sync.segmentPaths() + sync.snapshotPaths() + sync.payloadNames().map(SyncFolder.payloadPath) }

    @Test func aNewDeviceJoinsFromASnapshotAndThenReadsOnlyTheSegmentsAfterIt() throws {
        for text in ["one", "two", "three", "four"] { try a.copy(text) }
        try a.store.setPinned(true, id: try #require(try a.id(of: "two")))
        try a.sync()
        try b.copy("from b")
        try b.sync()
        try a.sync()
        try a.store.delete(id: try #require(try a.id(of: "three")))
        try a.sync()
        let snapshot = try a.engine.writeSnapshot()
        #expect(snapshot.path.hasPrefix("devices/\(a.engine.setup.device)/") && snapshot.path.hasSuffix(".pbsnap"))
        // Its own segments are gone; b's stay (only b removes b's files).
        #expect(sync.segmentPaths().allSatisfy { SyncFolder.parseSegmentPath($0)?.device == b.engine.setup.device })
        #expect(!snapshot.removed.isEmpty)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        let arrivals = try c.engine.applyArrivals()
        #expect(try c.history() == (try a.history()))
        #expect(try c.history() == ["from b", "four", "two [pinned]", "one"])
        // b's segment was covered by the snapshot: noted, not read.
        #expect(arrivals.operations == (try a.engine.state.file(snapshot.path)?.operations ?? -1))
        // What a copies next arrives as a segment after the snapshot.
        try a.copy("five")
        try a.sync()
        let next = try c.engine.applyArrivals()
        #expect(next.operations == 1)
        #expect(try c.history().first == "five")
        #expect(try SyncStatus.load(location: c.location)?.rejected.isEmpty == true)
    }

    /// A snapshot of a history larger than one window (`segmentOperations`), copies of two devices mixed in it, with
    /// a pin, a delete and a clear of unpinned items, is written a window at a time: its body holds each device's
    /// operations in several groups (never the whole state in memory), and a new device joins from it alone the
    /// history `a` has, in order. Its staging directory is left empty.
    @Test func aSnapshotOfSeveralWindowsIsJoinedWhole() throws {
        let count = SyncEngine.segmentOperations * 2 + 321
        try a.importItems(count, named: "a")
        try a.store.setPinned(true, id: try #require(try a.id(of: "a 10300")))
        try a.sync()
        for index in 0..<40 { try b.copy("b \(index)") }
        try b.sync()
        try a.sync()
        try a.store.delete(id: try #require(try a.id(of: "b 3")))
        try a.sync()
        let snapshot = try a.engine.writeSnapshot()
        // The body's first varint: how many groups follow. Three windows, one group at least each, a's and b's
        // copies in separate groups (the snapshot is in copy order: a's copies, then b's).
        let messages = try SecretStream.open(
            try Data(contentsOf: folder.appendingPathComponent(snapshot.path)), key: try SyncKey(phrase: phrase).snapshotKey,
            context: snapshot.path)
        var reader = SegmentCodec.Reader(bytes: [UInt8](messages[1]))
        let groups = reader.varint() ?? 0
        #expect(groups >= 4, "\(groups) groups")
        // In copy order: a device that joins reads and writes its sync state a page after another.
        let operations = try #require(SegmentCodec.decodeGroups(Data(messages.dropFirst().joined())))
        let copies = operations.filter { $0.kind == .copy }.map(\.clock)
        #expect(copies.count == count + 39)
        #expect(copies == copies.sorted())
        let header = try JSONDecoder().decode(SyncEngine.SnapshotHeader.self, from: messages[0])
        #expect(header.count >= count + 40)
        let staging = a.engine.staging.staging.path
        #expect((try? FileManager.default.contentsOfDirectory(atPath: staging))?.isEmpty ?? true)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        for segment in sync.segmentPaths() { try FileManager.default.removeItem(at: folder.appendingPathComponent(segment)) }
        try c.engine.applyArrivals()
        let expected = try a.store.items(limit: 100_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") }
        #expect(expected.count == count + 39)
        #expect(try c.store.items(limit: 100_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") } == expected)
    }

    /// A snapshot that would be larger than other devices read is not written: nothing is renamed in or left in the
    /// staging directory, this device's segments stay (a new device joins from them), and none is tried again for
    /// an hour, even when one is due.
    @Test func aSnapshotTooLargeForReadersIsNotWrittenAndTheSegmentsStay() throws {
        for index in 0..<300 { try a.copy("item \(index) " + String(repeating: "x", count: index)) }
        try a.sync()
        let segments = sync.segmentPaths()
        #expect(!segments.isEmpty)
        let now = Date()
        let error = #expect(throws: SyncError.self) { try a.engine.writeSnapshot(now: now, maxBytes: 4096) }
        #expect(error?.message.contains("larger than the 4096 bytes") == true, "\(String(describing: error))")
        #expect(sync.snapshotPaths().isEmpty)
        #expect(sync.segmentPaths() == segments)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: a.engine.staging.staging.path))?.isEmpty ?? true)
        try a.engine.state.setMeta("snapshot-due", "1")
        #expect(try a.engine.writeSnapshotIfDue(now: now.addingTimeInterval(60)) == nil)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        #expect(try c.history() == (try a.history()))
        // An hour later it is written (at the readers' size), and a device joins from it.
        #expect(try a.engine.writeSnapshotIfDue(now: now.addingTimeInterval(SyncEngine.snapshotInterval + 1)) != nil)
        #expect(sync.segmentPaths().isEmpty && sync.snapshotPaths().count == 1)
        let d = try Device("d", in: scratch, folder: folder, phrase: phrase)
        try d.engine.applyArrivals()
        #expect(try d.history().count == 300)
    }

    @Test(arguments: ["tamper", "truncate"])
    func aDamagedSnapshotIsRejectedWholeAndTheLogsAreReadInstead(damage: String) throws {
        try a.copy("one")
        try a.copy("two")
        try a.sync()
        // Keep a's segments aside, write the snapshot (which removes them), then put them back and damage it.
        let segments = try sync.segmentPaths().map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) }
        let snapshot = try a.engine.writeSnapshot()
        for (path, data) in segments { try data.write(to: folder.appendingPathComponent(path)) }
        let url = folder.appendingPathComponent(snapshot.path)
        var bytes = try Data(contentsOf: url)
        if damage == "tamper" { bytes[bytes.count / 2] ^= 0x01 } else { bytes = bytes.prefix(bytes.count - 20) }
        try bytes.write(to: url)
        let arrivals = try b.engine.applyArrivals()
        #expect(arrivals.rejected.count == 1)
        #expect(try b.history() == ["two", "one"])
        let status = try #require(try SyncStatus.load(location: b.location))
        #expect(status.rejected.map(\.path) == [snapshot.path])
        #expect(status.rejected.first?.reason.isEmpty == false)
        // Its writer replaces it with a newer one: the warning goes, and the newer one is taken in.
        try a.copy("three")
        try a.sync()
        let newer = try a.engine.writeSnapshot()
        #expect(newer.removed.contains(snapshot.path))
        let next = try b.engine.applyArrivals()
        #expect(next.rejected.isEmpty)
        #expect(try b.history() == ["three", "two", "one"])
        #expect(try SyncStatus.load(location: b.location)?.rejected.isEmpty == true)
    }

    @Test func aSnapshotDueWhenManyOperationsWereWrittenOrAnHourPassed() throws {
        try a.copy("one")
        try a.sync()
        let start = Date()
        #expect(try a.engine.writeSnapshotIfDue(now: start) == nil)  // the first: its clock starts
        #expect(try a.engine.writeSnapshotIfDue(now: start.addingTimeInterval(SyncEngine.snapshotInterval)) != nil)
        // Nothing written since: never due.
        #expect(try a.engine.writeSnapshotIfDue(now: start.addingTimeInterval(3 * SyncEngine.snapshotInterval)) == nil)
        try a.copy("two")
        try a.sync()
        #expect(try a.engine.writeSnapshotIfDue(now: start.addingTimeInterval(SyncEngine.snapshotInterval + 60)) == nil)
        #expect(try a.engine.writeSnapshotIfDue(now: start.addingTimeInterval(2 * SyncEngine.snapshotInterval + 1)) != nil)
        #expect(sync.snapshotPaths().count == 1)
    }

    @Test func aDeletedItemLeavesTheFolderOnceASnapshotCoversItAndItsPayloadsGraceEnds() throws {
        let marker = "DELETE-ME-\(UUID().uuidString)"
        let big = marker + String(repeating: "x", count: 4000)
        try a.copy(marker)
        try a.copy(big)
        try a.copy("stays")
        try a.sync()
        try b.sync()
        #expect(sync.payloadNames().count == 1)
        try b.store.delete(id: try #require(try b.id(of: marker)))
        try b.store.delete(id: try #require(try id(of: big, on: b)))
        try b.sync()
        try a.sync()
        #expect(try a.history() == ["stays"])
        let now = Date()
        let first = try a.engine.writeSnapshot(now: now)
        #expect(first.removedPayloads.isEmpty)  // its grace starts
        let key = try #require(try SyncSetup.load(for: a.location)).key
        // The inline copy is gone with a's segments; the payload file stays for its grace period.
        #expect(sync.payloadNames().count == 1)
        let later = try a.engine.writeSnapshot(now: now.addingTimeInterval(SyncEngine.payloadGrace + 1))
        #expect(later.removedPayloads.count == 1)
        #expect(sync.payloadNames().isEmpty)
        // b's segments hold only its deletes; nothing in the folder holds the deleted text.
        let everything = try decryptedFolder(folder, key: key)
        #expect(everything.range(of: Data(marker.utf8)) == nil)
        // A new device still reaches the same history.
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.engine.applyArrivals()
        #expect(try c.history() == ["stays"])
    }

    @Test func aPayloadRemovedWhileAnotherDeviceStillNeedsItIsWrittenAgainByThatDevice() throws {
        let big = "BIG-" + String(repeating: "y", count: 5000)
        try a.copy(big)
        try a.sync()
        try b.sync()
        // a deletes it; b, not having heard, copies it again (its payload file exists: b does not write it).
        try a.store.delete(id: try #require(try id(of: big, on: a)))
        try a.sync()
        try b.copy(big)
        try b.engine.writeLocalChanges()
        let now = Date()
        try a.engine.writeSnapshot(now: now)
        let removed = try a.engine.writeSnapshot(now: now.addingTimeInterval(SyncEngine.payloadGrace + 1))
        #expect(removed.removedPayloads.count == 1)
        // b's copy came after a's delete: the item is back on a, waiting for the payload file.
        try a.engine.applyArrivals()
        #expect(try a.history() == [])
        #expect(try SyncStatus.load(location: a.location)?.pendingItems == 1)
        // b holds the item and sees its file is gone: writes it again.
        try b.engine.applyArrivals()
        let written = try b.engine.writeSnapshot()
        #expect(written.restoredPayloads.count == 1)
        try a.engine.applyArrivals()
        #expect(try id(of: big, on: a) != nil)
        #expect(try SyncStatus.load(location: a.location)?.pendingItems == 0)
    }
}
