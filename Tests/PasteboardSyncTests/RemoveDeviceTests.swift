import Foundation
import PasteboardHistory
import PasteboardTestSupport
import Testing
@testable import PasteboardSync

/// `pb sync remove-device` (issue 27, finding 15): three devices with real stores and daemons share one folder; A
/// removes C. A and B go on syncing both ways; C can read nothing written after, and what C writes is refused.
@Suite struct RemoveDeviceTests {
    let pb: String
    let a: ProcessSandbox
    let b: ProcessSandbox
    let c: ProcessSandbox

    init() throws {
        pb = try Product.pb.path()
        a = try ProcessSandbox(label: "pbremove-a")
        b = try ProcessSandbox(label: "pbremove-b")
        c = try ProcessSandbox(label: "pbremove-c")
    }

    func history(_ sandbox: ProcessSandbox) async throws -> String {
        let listed = try await sandbox.run(pb, ["history", "--limit", "100"])
        return listed.output
    }

    @Test func aRemovedDeviceReadsNothingNewAndItsWritesAreRefused() async throws {
        let folder = try a.directory("shared")
        let created = try await a.run(pb, ["sync", "init", "--folder", folder.path, "--name", "desk-a"])
        #expect(created.status == 0, "\(created)")
        let key = try #require(created.output.split(separator: "\n").last.map(String.init))
        for (sandbox, name) in [(b, "desk-b"), (c, "lost-c")] {
            let joined = try await sandbox.run(pb, ["sync", "join", "--folder", folder.path, "--name", name], stdin: Data((key + "\n").utf8))
            #expect(joined.status == 0, "\(joined)")
        }
        let daemons = try [a, b, c].map { try $0.launch(pb, ["daemon", "--backend", "headless"]) }
        defer { for daemon in daemons { daemon.send(SIGTERM) } }
        for daemon in daemons {
            let ready = try await eventually(within: .seconds(20)) { String(decoding: daemon.stdout, as: UTF8.self).contains("running") }
            #expect(ready, "the daemon never started: \(daemon.stderr)")
        }
        #expect(try await b.run(pb, ["copy"], stdin: Data("FROM-B-BEFORE".utf8)).status == 0)
        #expect(try await c.run(pb, ["copy"], stdin: Data("FROM-C-BEFORE".utf8)).status == 0)
        #expect(try await a.run(pb, ["copy"], stdin: Data("FROM-A-BEFORE".utf8)).status == 0)
        // Everyone has everything, and A knows B and C by name (their announcements).
        let synced = try await eventually(within: .seconds(30)) {
            for sandbox in [a, b, c] {
                let listed = try await history(sandbox)
                guard listed.contains("FROM-A-BEFORE"), listed.contains("FROM-B-BEFORE"), listed.contains("FROM-C-BEFORE") else { return false }
            }
            let status = try await a.run(pb, ["sync", "status"]).output
            return status.contains("desk-b (") && status.contains("lost-c (")
        }
        #expect(synced, "\(daemons.map(\.stderr))")

        let unknown = try await a.run(pb, ["sync", "remove-device", "no-such-device"])
        #expect(unknown.status == 1 && unknown.stderr.contains("No device of this folder is named"), "\(unknown)")
        #expect(unknown.stderr.contains("desk-b"), "\(unknown)")
        let itself = try await a.run(pb, ["sync", "remove-device", "desk-a"])
        #expect(itself.status == 1 && itself.stderr.contains("is this device"), "\(itself)")

        let removed = try await a.run(pb, ["sync", "remove-device", "lost-c"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.output.contains("epoch 1"), "\(removed)")
        let newPhrase = try #require(removed.output.split(separator: "\n").last.map(String.init))
        #expect(newPhrase != key)

        // A and B go on both ways, with the new key.
        #expect(try await a.run(pb, ["copy"], stdin: Data("SECRET-AFTER-REMOVAL-A".utf8)).status == 0)
        #expect(try await b.run(pb, ["copy"], stdin: Data("SECRET-AFTER-REMOVAL-B".utf8)).status == 0)
        let exchanged = try await eventually(within: .seconds(30)) {
            let onA = try await history(a)
            let onB = try await history(b)
            return onA.contains("SECRET-AFTER-REMOVAL-B") && onB.contains("SECRET-AFTER-REMOVAL-A")
        }
        #expect(exchanged, "\(daemons[0].stderr) \(daemons[1].stderr)")
        let statusB = try await b.run(pb, ["sync", "status"]).output
        #expect(statusB.contains("key:     epoch 1"), "\(statusB)")

        // C writes with the old key after the removal: refused by A and B, grouped by reason.
        #expect(try await c.run(pb, ["copy"], stdin: Data("FROM-C-AFTER".utf8)).status == 0)
        let refused = try await eventually(within: .seconds(30)) {
            let statusA = try await a.run(pb, ["sync", "status"]).output
            let statusB = try await b.run(pb, ["sync", "status"]).output
            return statusA.contains("no longer uses") && statusB.contains("no longer uses")
        }
        #expect(refused, "\(daemons[0].stderr) \(daemons[1].stderr)")
        #expect(try await !history(a).contains("FROM-C-AFTER"))
        #expect(try await !history(b).contains("FROM-C-AFTER"))
        // C had every round since: nothing written after the removal is in its store, and its status says why.
        try await Task.sleep(for: .seconds(2))
        let onC = try await history(c)
        #expect(!onC.contains("SECRET-AFTER-REMOVAL"), "\(onC)")
        let statusC = try await c.run(pb, ["sync", "status"]).output
        #expect(statusC.contains("no copy of the new key here opens for this device"), "\(statusC)")
        // Nothing in the folder opens with the key C holds holds the new items.
        let oldKey = try #require(try SyncSetup.load(for: StoreLocation(directory: c.root.appendingPathComponent("data/pasteboard")))).key
        for path in SyncFolder(root: folder).segmentPaths() + SyncFolder(root: folder).snapshotPaths() {
            let data = try Data(contentsOf: folder.appendingPathComponent(path))
            for purpose in [oldKey.logKey, oldKey.snapshotKey] {
                if let messages = try? SecretStream.open(data, key: purpose, context: path) {
                    #expect(!messages.contains { $0.range(of: Data("SECRET-AFTER-REMOVAL".utf8)) != nil }, "\(path)")
                }
            }
        }

        // Status: names, last-seen times from the sealed segments, and the removed device marked.
        let statusA = try await a.run(pb, ["sync", "status"]).output
        #expect(statusA.range(of: #"desk-b \([0-9a-f]{16}\): last seen \d+ s ago \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)"#, options: .regularExpression) != nil, "\(statusA)")
        #expect(statusA.range(of: #"lost-c \([0-9a-f]{16}\) \(removed\)"#, options: .regularExpression) != nil, "\(statusA)")
        #expect(statusA.components(separatedBy: "no longer uses").count == 2, "one grouped line: \(statusA)")

        // A device joining from now on needs the new phrase; the old one no longer opens the folder.
        let d = try ProcessSandbox(label: "pbremove-d")
        let stale = try await d.run(pb, ["sync", "join", "--folder", folder.path], stdin: Data((key + "\n").utf8))
        #expect(stale.status == 1, "\(stale)")
        let fresh = try await d.run(pb, ["sync", "join", "--folder", folder.path], stdin: Data((newPhrase + "\n").utf8))
        #expect(fresh.status == 0, "\(fresh)")
        let daemonD = try d.launch(pb, ["daemon", "--backend", "headless"])
        defer { daemonD.send(SIGTERM) }
        let joined = try await eventually(within: .seconds(30)) {
            let listed = try await history(d)
            return listed.contains("FROM-A-BEFORE") && listed.contains("SECRET-AFTER-REMOVAL-B") && !listed.contains("FROM-C-AFTER")
        }
        #expect(joined, "\(daemonD.stderr)")
    }
}

/// Clocks more than a day ahead are refused until this device's clock catches up (issue 27, finding 15).
@Suite struct ClockBoundTests {
    @Test func aSegmentDatedDaysAheadIsRefusedUntilItsTimeComes() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phraseOrNil = try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a")))
        let phrase = try #require(phraseOrNil)
        let a = try Device("a", in: scratch, folder: folder)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let ahead = Date().addingTimeInterval(3 * 86400)
        try a.copy("FROM-THE-FUTURE")
        try a.engine.writeLocalChanges(now: ahead)
        try b.copy("ORDINARY")
        try b.sync()
        #expect(try b.id(of: "FROM-THE-FUTURE") == nil)
        let status = try #require(try SyncStatus.load(location: b.location))
        #expect(status.rejected.contains { $0.reason.hasPrefix(SyncEngine.futureReasonPrefix) }, "\(status.rejected)")
        // Within the bound is accepted (from another device: A's own clock stays where it went).
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        try c.copy("SLIGHTLY-AHEAD")
        try c.engine.writeLocalChanges(now: Date().addingTimeInterval(3600))
        try b.engine.applyArrivals()
        #expect(try b.id(of: "SLIGHTLY-AHEAD") != nil)
        #expect(try b.id(of: "FROM-THE-FUTURE") == nil)
        // Once this device's clock is there, the same file is taken in (tried again every round).
        try b.engine.applyArrivals(now: ahead)
        #expect(try b.id(of: "FROM-THE-FUTURE") != nil)
    }
}

/// The edges of a rotation, engine-level with real stores in one process.
@Suite struct KeyRotationEngineTests {
    let scratch: Scratch
    let folder: URL
    let phrase: String

    init() throws {
        scratch = try Scratch()
        folder = scratch.url.appendingPathComponent("folder")
        phrase = try #require(try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a")), name: "a"))
    }

    /// B wrote with the old key before A's rotation saw it: B writes it again with the new key when it takes the key
    /// up, so nothing B did is lost, while the old-key file is refused.
    @Test func whatARemainingDeviceWroteBeforeTakingTheNewKeyUpIsWrittenAgain() throws {
        let a = try Device("a", in: scratch, folder: folder)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        for device in [a, b, c, a] { try device.sync() }
        try b.copy("B-BEFORE-PICKUP")
        try b.engine.writeLocalChanges()  // A has not seen it when it rotates
        let removal = try SyncSession.removeDevice(c.engine.setup.device.rawValue, location: a.location)
        #expect(removal.epoch == 1 && removal.devicesWithoutKey.isEmpty, "\(removal)")
        try b.sync()
        #expect(b.engine.setup.epoch == 1)
        try a.sync()
        #expect(try a.id(of: "B-BEFORE-PICKUP") != nil)
        // C, still on the old key, reads the rewritten segment as nothing.
        try c.sync()
        #expect(try c.id(of: "B-BEFORE-PICKUP") == nil)
    }

    /// B is away through two rotations: it takes the newest key up directly, the records give it the one between,
    /// and what it wrote with the first key that A had not seen is written again.
    @Test func aDeviceAwayThroughTwoRotationsCatchesUp() throws {
        let a = try Device("a", in: scratch, folder: folder)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        let d = try Device("d", in: scratch, folder: folder, phrase: phrase)
        for device in [a, b, c, d, a] { try device.sync() }
        try b.copy("B-WHILE-AWAY")
        try b.engine.writeLocalChanges()
        _ = try SyncSession.removeDevice(c.engine.setup.device.rawValue, location: a.location)
        try a.copy("A-IN-EPOCH-1")
        try a.sync()
        try d.sync()
        _ = try SyncSession.removeDevice(d.engine.setup.device.rawValue, location: a.location)
        try a.copy("A-IN-EPOCH-2")
        try a.sync()
        try b.sync()
        #expect(b.engine.setup.epoch == 2)
        #expect(Set(b.engine.setup.olderKeys.keys) == [0, 1])
        #expect(try b.id(of: "A-IN-EPOCH-1") != nil)
        #expect(try b.id(of: "A-IN-EPOCH-2") != nil)
        try a.sync()
        #expect(try a.id(of: "B-WHILE-AWAY") != nil)
        try d.sync()
        #expect(try d.id(of: "A-IN-EPOCH-1") != nil, "D was still a member in epoch 1")
        #expect(try d.id(of: "A-IN-EPOCH-2") == nil)
    }

    /// A rotation cut short before its record is written changes nothing: no device takes a key up, and running
    /// remove-device again finishes it.
    @Test func aRotationCutShortBeforeItsRecordChangesNothing() throws {
        let a = try Device("a", in: scratch, folder: folder)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase)
        for device in [a, b, c, a] { try device.sync() }
        let header = try Data(contentsOf: folder.appendingPathComponent(SyncFolder.headerName))
        _ = try SyncSession.removeDevice(c.engine.setup.device.rawValue, location: a.location)
        try header.write(to: folder.appendingPathComponent(SyncFolder.headerName))
        // As if it had died after the boxes: the record (and the header after it) gone, A's setup as before.
        let record = folder.appendingPathComponent(SyncFolder.rotationPath(epoch: 1))
        try FileManager.default.removeItem(at: record)
        let setupFile = a.location.directory.appendingPathComponent("sync/device.json")
        var saved = try #require(try SyncSetup.load(for: a.location))
        saved.key = try #require(try SyncSetup.load(for: b.location)).key
        saved.epoch = 0
        saved.olderKeys = [:]
        saved.cuts = [:]
        saved.removed = []
        try saved.save(for: a.location)
        #expect(FileManager.default.fileExists(atPath: setupFile.path))
        try b.copy("STILL-EPOCH-0")
        try b.sync()
        #expect(b.engine.setup.epoch == 0)
        try a.sync()
        #expect(try a.id(of: "STILL-EPOCH-0") != nil)
        let again = try SyncSession.removeDevice(c.engine.setup.device.rawValue, location: a.location)
        #expect(again.epoch == 1)
        try b.copy("EPOCH-1")
        try b.sync()
        #expect(b.engine.setup.epoch == 1)
        try a.sync()
        try c.sync()
        #expect(try a.id(of: "EPOCH-1") != nil)
        #expect(try c.id(of: "EPOCH-1") == nil)
    }
}

/// The sync state remembers a bounded number of rejected files (issue 27 follow-up): a folder host can make any
/// number of them.
@Suite struct RejectedFilesBoundTests {
    @Test func rejectedFilesBeyondTheBoundAreNotRemembered() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        let a = try Device("a", in: scratch, folder: folder)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        b.engine.state.maxRejectedRows = 20
        let junk = try DeviceID.random()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("devices/\(junk.rawValue)"), withIntermediateDirectories: true)
        for sequence in 1...50 {
            try Data((0..<200).map { _ in UInt8.random(in: 0...255) }).write(
                to: folder.appendingPathComponent(SyncFolder.segmentPath(device: junk, sequence: sequence)))
        }
        try a.copy("THROUGH-THE-JUNK")
        try a.sync()
        let first = try b.engine.applyArrivals()
        #expect(first.rejected.count == 50)
        #expect(try b.id(of: "THROUGH-THE-JUNK") != nil)
        #expect(try b.engine.state.rejectedFiles().count == 20)
        // Later rounds: the bound holds; the files beyond it are refused again, the ones remembered are skipped.
        let second = try b.engine.applyArrivals()
        #expect(second.rejected.count == 30)
        #expect(try b.engine.state.rejectedFiles().count == 20)
    }
}
