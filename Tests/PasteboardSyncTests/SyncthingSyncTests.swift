import Foundation
import PasteboardTestSupport
import Testing

/// Two pb stores, each with its own daemon and its own real Syncthing on 127.0.0.1, share one sync folder: a copy
/// under daemon A arrives in B's history and, with `sync-clipboard = on`, on B's clipboard.
@Suite(.serialized) struct SyncthingSyncTests {
    /// Ports in 23000–23999, two per instance, apart for each test process.
    static func ports(_ index: Int) -> (gui: Int, listen: Int) {
        let base = 23000 + Int(getpid() % 120) * 8
        return (base + index * 2, base + index * 2 + 1)
    }

    @Test func aCopyUnderDaemonAReachesBsHistoryAndClipboardThroughSyncthing() async throws {
        let pb = try Product.pb.path()
        let a = try ProcessSandbox(label: "pbsync-a")
        // B runs on its own X server, so its universal clipboard is a real X11 selection.
        let b = try await ProcessSandbox(label: "pbsync-b", requiredBy: "the Syncthing sync test (universal clipboard)")
        let folderA = try a.directory("shared")
        let folderB = try b.directory("shared")
        let stA = try await SyncthingInstance(name: "a", sandbox: a, guiPort: Self.ports(0).gui, listenPort: Self.ports(0).listen)
        let stB = try await SyncthingInstance(name: "b", sandbox: b, guiPort: Self.ports(1).gui, listenPort: Self.ports(1).listen)
        try await stA.add(peer: stB)
        try await stB.add(peer: stA)
        try await stA.share(folder: "pbsync", path: folderA, with: [stB])
        try await stB.share(folder: "pbsync", path: folderB, with: [stA])
        let connected = try await eventually(within: .seconds(20), every: .milliseconds(100)) {
            try await stA.isConnected(to: stB)
        }
        #expect(connected, "the two Syncthing instances never connected")

        // Device A creates the folder; the header travels to B through Syncthing (rescanned at once).
        let created = try await a.run(pb, ["sync", "init", "--folder", folderA.path])
        #expect(created.status == 0, "\(created)")
        let key = try #require(created.output.split(separator: "\n").last.map(String.init))
        try await stA.post("/rest/db/scan?folder=pbsync", json: [:])
        let arrived = try await eventually(within: .seconds(20), every: .milliseconds(100)) {
            FileManager.default.fileExists(atPath: folderB.appendingPathComponent("pasteboard-sync.json").path)
        }
        #expect(arrived, "the folder header never reached B")
        let wrong = try await b.run(pb, ["sync", "join", "--folder", folderB.path], stdin: Data("0000-0000\n".utf8))
        #expect(wrong.status == 1, "\(wrong)")
        let joined = try await b.run(pb, ["sync", "join", "--folder", folderB.path], stdin: Data((key + "\n").utf8))
        #expect(joined.status == 0, "\(joined)")

        for (sandbox, instance, clipboard) in [(a, stA, false), (b, stB, true)] {
            let config = sandbox.root.appendingPathComponent("config/pasteboard/config")
            try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
            try """
            syncthing-url = http://127.0.0.1:\(instance.guiPort)
            syncthing-api-key = \(instance.apiKey)
            syncthing-folder = pbsync
            sync-clipboard = \(clipboard ? "on" : "off")

            """.write(to: config, atomically: true, encoding: .utf8)
        }
        let daemonA = try a.launch(pb, ["daemon", "--backend", "headless"])
        let daemonB = try b.launch(pb, ["daemon", "--backend", "x11"])
        for daemon in [daemonA, daemonB] {
            let ready = try await eventually(within: .seconds(20)) { String(decoding: daemon.stdout, as: UTF8.self).contains("running") }
            #expect(ready, "a daemon never started: \(daemon.stderr)")
        }

        let text = "synced through syncthing \(UUID().uuidString)"
        let copied = try await a.run(pb, ["copy"], stdin: Data(text.utf8))
        #expect(copied.status == 0, "\(copied)")
        let inHistory = try await eventually(within: .seconds(20), every: .milliseconds(50)) {
            try await b.run(pb, ["history", "--limit", "5"]).output.contains(text)
        }
        #expect(inHistory, "B's history never showed A's copy. A: \(daemonA.stderr.suffix(1500)) B: \(daemonB.stderr.suffix(1500))")
        let xclip = try #require(executableOnPath("xclip"), "xclip is needed to read B's clipboard")
        let onClipboard = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            try await b.run(xclip, ["-o", "-selection", "clipboard"], timeout: .seconds(5)).output == text
        }
        #expect(onClipboard, "with sync-clipboard = on, A's copy never became B's clipboard")

        // A delete on B reaches A the same way.
        let deleted = try await b.run(pb, ["delete", "1"])
        #expect(deleted.status == 0, "\(deleted)")
        let goneOnA = try await eventually(within: .seconds(20), every: .milliseconds(50)) {
            try await !a.run(pb, ["history", "--limit", "5"]).output.contains(text)
        }
        #expect(goneOnA, "B's delete never reached A")
        let status = try await b.run(pb, ["sync", "status"])
        #expect(status.output.contains("rejected: none"), "\(status)")
    }
}
