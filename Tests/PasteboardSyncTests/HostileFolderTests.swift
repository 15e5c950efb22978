import Foundation
import PasteboardHistory
import PasteboardModel
import PasteboardTestSupport
import Testing
@testable import PasteboardSync

/// A sync folder whose host is hostile (issue 27): what it puts in the folder never blocks the daemon, never costs
/// more memory than the item it claims to be, never stops this device's own upkeep, never makes sync write or
/// delete outside the folder, and never floods the log. Real daemons, real stores, real files.
@Suite struct HostileFolderTests {
    let pb: String
    let a: ProcessSandbox
    let b: ProcessSandbox

    init() throws {
        pb = try Product.pb.path()
        a = try ProcessSandbox(label: "pbhostile-a")
        b = try ProcessSandbox(label: "pbhostile-b")
    }

    func storeLocation(_ sandbox: ProcessSandbox) -> StoreLocation {
        StoreLocation(directory: sandbox.root.appendingPathComponent("data/pasteboard"))
    }

    func device(_ sandbox: ProcessSandbox) throws -> DeviceID {
        try #require(try SyncSetup.load(for: storeLocation(sandbox))).device
    }

    /// A inits the folder, B joins it; returns the folder.
    func initAndJoin() async throws -> URL {
        let folder = try a.directory("shared")
        let created = try await a.run(pb, ["sync", "init", "--folder", folder.path])
        #expect(created.status == 0, "\(created)")
        let key = try #require(created.output.split(separator: "\n").last.map(String.init))
        let joined = try await b.run(pb, ["sync", "join", "--folder", folder.path], stdin: Data((key + "\n").utf8))
        #expect(joined.status == 0, "\(joined)")
        return folder
    }

    func startDaemon(_ sandbox: ProcessSandbox) async throws -> ChildProcess {
        let daemon = try sandbox.launch(pb, ["daemon", "--backend", "headless"])
        let ready = try await eventually(within: .seconds(20)) { String(decoding: daemon.stdout, as: UTF8.self).contains("running") }
        #expect(ready, "the daemon never started: \(daemon.stderr)")
        return daemon
    }

    /// Named pipes as a segment (of another device and of B's own), a snapshot and a payload: B's daemon goes on
    /// applying what A writes, and `pb sync status` names each pipe as rejected, at once.
    @Test func aNamedPipeInTheFolderNeverBlocksTheDaemon() async throws {
        let folder = try await initAndJoin()
        let stranger = try DeviceID.random()
        let pipes = [
            SyncFolder.segmentPath(device: stranger, sequence: 1), SyncFolder.snapshotPath(device: stranger, sequence: 1),
            SyncFolder.segmentPath(device: try device(b), sequence: 7), SyncFolder.payloadPath(String(repeating: "ab", count: 32)),
        ]
        for path in pipes {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(mkfifo(url.path, 0o600) == 0, "mkfifo \(path)")
        }
        let daemonA = try await startDaemon(a)
        let daemonB = try await startDaemon(b)
        // The clock runs in a shell, not here: on a loaded two-core machine this test's own continuations can wait
        // seconds for a thread, and that is not the daemon being blocked. A's copy, B's history and B's status,
        // timed from A's copy to B's answer.
        let copyOnA = a.environment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
        let script = """
            start=$(date +%s%N)
            printf 'after the pipes' | env -i \(copyOnA) '\(pb)' copy || exit 3
            until '\(pb)' history --format dmenu | grep -q 'after the pipes'; do
              [ $(( $(date +%s%N) - start )) -gt 15000000000 ] && { echo 'never arrived'; exit 4; }
              sleep 0.05
            done
            timeout 5 '\(pb)' sync status || exit 5
            echo "elapsed-ms $(( ($(date +%s%N) - start) / 1000000 ))"
            """
        let timed = try await b.run("/bin/sh", ["-c", script], timeout: .seconds(60))
        #expect(timed.status == 0, "B's daemon stopped applying, or its status hung: \(timed) \(daemonB.stderr)")
        #expect(timed.output.contains("not a regular file"), "\(timed.output)")
        #expect(timed.output.contains(pipes[0]), "\(timed.output)")
        let elapsed = try #require(timed.output.split(separator: "\n").last { $0.hasPrefix("elapsed-ms ") })
        let milliseconds = try #require(Int(elapsed.dropFirst("elapsed-ms ".count)))
        #expect(milliseconds < 10_000, "from A's copy to B's status: \(milliseconds) ms")
        #expect(!daemonA.stderr.contains("could not"), "\(daemonA.stderr)")
        daemonA.send(SIGTERM)
        daemonB.send(SIGTERM)
    }

    /// A payload file an item refers to, replaced by 1 GiB of junk behind a valid header and a plausible first
    /// length: B's daemon rejects it after a message, its peak memory far below the file's size.
    @Test func aGibibyteOfJunkPayloadIsRejectedAfterItsFirstMessage() async throws {
        let folder = try await initAndJoin()
        let daemonA = try await startDaemon(a)
        let big = String(repeating: "payload bytes ", count: 20_000)  // 280 kB: a payload file, not inline
        #expect(try await a.run(pb, ["copy"], stdin: Data(big.utf8)).status == 0)
        let sync = SyncFolder(root: folder)
        let written = try await eventually(within: .seconds(15)) { !sync.payloadNames().isEmpty && !sync.segmentPaths().isEmpty }
        #expect(written, "\(daemonA.stderr)")
        daemonA.send(SIGTERM)
        _ = try await daemonA.finish(timeout: .seconds(10))
        let name = try #require(sync.payloadNames().first)
        let path = SyncFolder.payloadPath(name)
        let url = folder.appendingPathComponent(path)
        // "PBS1", a stream header, a message length of 64 KiB + 17, then junk (sparse) up to 1 GiB.
        var head = Data("PBS1".utf8) + Data((0..<24).map { _ in UInt8.random(in: 0...255) })
        head += Data([0x00, 0x01, 0x00, 0x11])
        try head.write(to: url)
        #expect(truncate(url.path, off_t(1 << 30)) == 0)
        let daemonB = try await startDaemon(b)
        let rejected = try await eventually(within: .seconds(60)) {
            try await b.run(pb, ["sync", "status"]).output.contains(path)
        }
        #expect(rejected, "\(daemonB.stderr)")
        let peak = try #require(peakMemory(of: daemonB.pid))
        #expect(peak < 200 << 20, "peak \(peak >> 20) MiB")
        print("HostileFolderTests: peak memory of the daemon rejecting 1 GiB of junk: \(peak >> 20) MiB")
        daemonB.send(SIGTERM)
    }

    /// 5,000 junk files (segments and snapshots that do not open, named pipes, files of no kind at all) across
    /// many device directories: a handful of log lines, and `pb sync status` a handful of lines.
    @Test func fiveThousandJunkFilesGiveAFewLinesNotThousands() async throws {
        let folder = try await initAndJoin()
        let daemonB = try await startDaemon(b)
        let devices = try (0..<25).map { _ in try DeviceID.random() }
        var made = 0
        for (index, device) in devices.enumerated() {
            let directory = folder.appendingPathComponent("devices/\(device.rawValue)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for sequence in 1...200 {
                let url = folder.appendingPathComponent(
                    sequence % 4 == 0
                        ? SyncFolder.snapshotPath(device: device, sequence: sequence)
                        : SyncFolder.segmentPath(device: device, sequence: sequence))
                switch (index + sequence) % 5 {
                case 0: #expect(mkfifo(url.path, 0o600) == 0)
                case 1: try Data("PBS1".utf8).write(to: url)  // cut short
                case 2: try Data("junk \(sequence)".utf8).write(to: directory.appendingPathComponent("junk-\(sequence).txt"))
                default: try Data((0..<200).map { _ in UInt8.random(in: 0...255) }).write(to: url)
                }
                made += 1
            }
        }
        #expect(made == 5000)
        #expect(try await a.run(pb, ["copy"], stdin: Data("through the junk".utf8)).status == 0)
        let daemonA = try await startDaemon(a)
        let arrived = try await eventually(within: .seconds(60)) {
            try HistoryStore(location: storeLocation(b)).items(limit: 10).contains { $0.preview == "through the junk" }
        }
        #expect(arrived, "\(daemonB.stderr)")
        // Every junk file of a kind sync reads is rejected (and named in the state)...
        let settled = try await eventually(within: .seconds(60)) {
            (try SyncStatus.load(location: storeLocation(b))?.rejected.count ?? 0) >= 3000
        }
        let status = try #require(try SyncStatus.load(location: storeLocation(b)))
        #expect(settled, "\(status.rejected.count) rejected")
        try await Task.sleep(for: .seconds(2))
        // ... and yet the log and the status stay short.
        let logLines = daemonB.stderr.split(separator: "\n").filter { $0.contains("sync:") }
        #expect(logLines.count <= 12, "\(logLines.count) lines:\n\(logLines.prefix(40).joined(separator: "\n"))")
        let shown = try await b.run(pb, ["sync", "status"])
        #expect(shown.status == 0, "\(shown)")
        let lines = shown.output.split(separator: "\n")
        #expect(lines.count <= 20, "\(lines.count) lines:\n\(lines.prefix(40).joined(separator: "\n"))")
        #expect(shown.output.contains("rejected: \(status.rejected.count) files"), "\(shown.output)")
        print("HostileFolderTests: \(status.rejected.count) files rejected, \(logLines.count) log lines, \(lines.count) status lines")
        daemonA.send(SIGTERM)
        daemonB.send(SIGTERM)
    }
}

/// Engine-level cases: real stores and files, one process.
@Suite struct HostileFolderEngineTests {
    /// One segment of this device's own directory that does not decrypt, among more than the compaction threshold:
    /// it is quarantined, the log is compacted, a snapshot is written at once, and the payload of an item deleted
    /// here leaves the folder. A device joining later still gets everything.
    @Test func anUndecryptableOwnSegmentIsQuarantinedAndCompactionGoesOn() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        let a = try Device("a", in: scratch, folder: folder)
        let big = String(repeating: "deleted later ", count: 1000)
        for round in 0..<70 {
            try a.copy(round == 3 ? big : "item \(round)")
            try a.engine.writeLocalChanges()
        }
        try a.store.delete(id: try #require(try a.store.items(limit: 100).first { $0.preview.hasPrefix("deleted later") }?.id))
        try a.engine.writeLocalChanges()
        let sync = SyncFolder(root: folder)
        let payloads = sync.payloadNames()
        #expect(payloads.count == 1)
        // Segment 10 (a plain copy) replaced by bytes that do not decrypt.
        let bad = SyncFolder.segmentPath(device: a.engine.setup.device, sequence: 10)
        try Data((0..<500).map { _ in UInt8.random(in: 0...255) }).write(to: folder.appendingPathComponent(bad))

        let compaction = try #require(try a.engine.compactLog())
        #expect(compaction.quarantined.count == 1 && compaction.quarantined[0].hasPrefix(bad), "\(compaction.quarantined)")
        #expect(!compaction.removed.contains(bad))
        #expect(try a.engine.compactLog() == nil, "the quarantined segment is skipped from now on")
        let snapshot = try #require(try a.engine.writeSnapshotIfDue(), "a quarantine makes a snapshot due at once")
        #expect(snapshot.removed.contains(bad), "\(snapshot.removed)")
        #expect(sync.segmentPaths().isEmpty, "\(sync.segmentPaths())")
        // The deleted item's encrypted copy goes once nothing refers to it (after the grace period, here none).
        _ = try a.engine.writeSnapshot(payloadGrace: 0)
        try a.copy("one more")
        try a.engine.writeLocalChanges()
        _ = try a.engine.writeSnapshot(payloadGrace: 0)
        #expect(sync.payloadNames().isEmpty, "\(sync.payloadNames())")
        let late = try Device("late", in: scratch, folder: folder, phrase: phrase)
        try late.sync()
        #expect(try late.history() == a.history())
        #expect(try late.history().contains("item 9"), "the quarantined segment's copy still arrives, by the snapshot")
    }

    /// `devices/<this device>` and `payloads` replaced by symbolic links to directories outside the folder: sync
    /// refuses to go through them, and nothing outside is written or removed.
    @Test func symbolicLinksInTheFolderAreNeverFollowed() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        let a = try Device("a", in: scratch, folder: folder)
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        try b.copy("b's first")
        try b.sync()
        let outsideDevice = scratch.url.appendingPathComponent("outside-device")
        let outsidePayloads = scratch.url.appendingPathComponent("outside-payloads")
        for directory in [outsideDevice, outsidePayloads] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        // What a hostile host would like to have deleted or overwritten.
        try Data("keep me".utf8).write(to: outsideDevice.appendingPathComponent("0000000001.pblog"))
        try Data("keep me too".utf8).write(to: outsidePayloads.appendingPathComponent(String(repeating: "cd", count: 32) + ".pbdata"))
        func contents(_ directory: URL) throws -> [String: Data] {
            var result: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                result[name] = try Data(contentsOf: directory.appendingPathComponent(name))
            }
            return result
        }
        let before = [try contents(outsideDevice), try contents(outsidePayloads)]
        let ownDirectory = folder.appendingPathComponent("devices/\(a.engine.setup.device.rawValue)")
        if FileManager.default.fileExists(atPath: ownDirectory.path) { try FileManager.default.removeItem(at: ownDirectory) }
        try FileManager.default.createSymbolicLink(at: ownDirectory, withDestinationURL: outsideDevice)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("payloads"))
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("payloads"), withDestinationURL: outsidePayloads)

        try a.copy(String(repeating: "a payload ", count: 1000))
        try a.copy("a's text")
        #expect(throws: SyncError.self) { try a.engine.writeLocalChanges() }
        do {
            try a.engine.writeLocalChanges()
        } catch {
            #expect(error.message.contains("symbolic link is never followed"), "\(error.message)")
        }
        // These fail the same way; what matters is what they touched.
        #expect(throws: SyncError.self) { try a.engine.writeSnapshot(payloadGrace: 0) }
        try a.engine.applyArrivals()
        try b.copy(String(repeating: "b payload ", count: 1000))
        #expect(throws: SyncError.self) { try b.sync() }
        #expect([try contents(outsideDevice), try contents(outsidePayloads)] == before, "something outside the folder changed")
        // B's own files stayed in the folder.
        #expect(!SyncFolder(root: folder).segmentPaths().isEmpty)
    }

    /// A named pipe where a segment, a snapshot or a payload should be: the engine's round ends at once, each
    /// rejected as not a regular file.
    @Test func aNamedPipeEndsTheRoundAtOnce() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        let a = try Device("a", in: scratch, folder: folder)
        try a.copy(String(repeating: "a payload ", count: 1000))
        try a.engine.writeLocalChanges()
        let sync = SyncFolder(root: folder)
        let payload = SyncFolder.payloadPath(try #require(sync.payloadNames().first))
        let stranger = try DeviceID.random()
        let pipes = [payload, SyncFolder.segmentPath(device: stranger, sequence: 1), SyncFolder.snapshotPath(device: stranger, sequence: 2)]
        for path in pipes {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            #expect(mkfifo(url.path, 0o600) == 0)
        }
        let b = try Device("b", in: scratch, folder: folder, phrase: phrase)
        let started = ContinuousClock.now
        let arrivals = try b.engine.applyArrivals()
        #expect(ContinuousClock.now - started < .seconds(15), "a FIFO blocks forever; anything under that is the machine")
        for path in pipes {
            #expect(arrivals.rejected.contains { $0.hasPrefix(path) && $0.contains("not a regular file") }, "\(path): \(arrivals.rejected)")
        }
    }

    /// The daemon's warnings: one line per reason, counted; the same again only after the interval.
    @Test func warningsAreGroupedAndRateLimited() {
        var warnings = SyncWarnings(interval: 600)
        let start = Date(timeIntervalSince1970: 1_000_000)
        let many = (0..<3000).map { "devices/x/\($0).pblog: it does not decrypt" } + ["devices/y/1.pbsnap: it is truncated"]
        let lines = warnings.rejections(many, now: start)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines[0].contains("rejected 3000 files: it does not decrypt"), "\(lines)")
        #expect(lines[1] == "sync: rejected devices/y/1.pbsnap: it is truncated (see pb sync status)")
        #expect(warnings.rejections(many, now: start + 1).isEmpty, "each file is reported once")
        #expect(warnings.rejections(["devices/x/9999.pblog: it does not decrypt"], now: start + 60).isEmpty, "held back")
        let later = warnings.rejections(["devices/x/10000.pblog: it does not decrypt"], now: start + 700)
        #expect(later == ["sync: rejected 2 files: it does not decrypt; the latest devices/x/10000.pblog (see pb sync status)"], "\(later)")
        #expect(warnings.warning("sync: could not write", now: start) == "sync: could not write")
        #expect(warnings.warning("sync: could not write", now: start + 10) == nil)
        #expect(warnings.warning("sync: could not write", now: start + 20) == nil)
        #expect(warnings.warning("sync: could not write", now: start + 601)?.contains("2 more like it") == true)
    }
}

/// The peak resident memory of process `pid` (VmHWM in /proc/PID/status), in bytes.
func peakMemory(of pid: pid_t) -> Int? {
    Memory(pid: pid)?.peak
}
