import Foundation
import PasteboardTestSupport
import Testing

/// The universal clipboard on Wayland: device B's daemon runs the Wayland backend on a headless sway of its own
/// (its own seat, so no other suite's clipboard), A's is headless, and both share a plain directory as the folder.
/// A copy under A becomes B's clipboard, as `wl-paste` on B's compositor reads it.
@Suite struct WaylandUniversalClipboardTests {
    @Test func aCopyOnAnotherDeviceBecomesThisWaylandClipboard() async throws {
        let pb = try Product.pb.path()
        let sway = try await HeadlessSway(requiredBy: "the Wayland universal clipboard test")
        let wlPaste = try #require(executableOnPath("wl-paste"), "wl-paste is needed: apt-get install -y wl-clipboard")
        let a = try ProcessSandbox(label: "pbsyncwl-a")
        let b = try ProcessSandbox(label: "pbsyncwl-b", environment: ["WAYLAND_DISPLAY": sway.socketPath])
        let folder = try a.directory("shared")
        let created = try await a.run(pb, ["sync", "init", "--folder", folder.path])
        let key = try #require(created.output.split(separator: "\n").last.map(String.init))
        #expect(try await b.run(pb, ["sync", "join", "--folder", folder.path], stdin: Data((key + "\n").utf8)).status == 0)
        let config = b.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "sync-clipboard = on\n".write(to: config, atomically: true, encoding: .utf8)
        let daemonA = try a.launch(pb, ["daemon", "--backend", "headless"])
        let daemonB = try b.launch(pb, ["daemon", "--backend", "wayland"])
        for daemon in [daemonA, daemonB] {
            let ready = try await eventually(within: .seconds(20)) { String(decoding: daemon.stdout, as: UTF8.self).contains("running") }
            #expect(ready, "a daemon never started: \(daemon.stderr)")
        }
        let text = "copied on A for B's Wayland clipboard \(UUID().uuidString)"
        #expect(try await a.run(pb, ["copy"], stdin: Data(text.utf8)).status == 0)
        let onClipboard = try await eventually(within: .seconds(20), every: .milliseconds(100)) {
            try await b.run(wlPaste, ["--no-newline"], timeout: .seconds(5)).output == text
        }
        #expect(onClipboard, "A's copy never became B's Wayland clipboard. B: \(daemonB.stderr.suffix(1500))")
        #expect(try await b.run(pb, ["history", "--limit", "1"]).output.contains(text))
    }
}
