import Foundation
import PasteboardTestSupport
import Testing

/// Both at once: `WAYLAND_DISPLAY` and `DISPLAY` (XWayland) set, as on a sway desktop running X11 applications.
/// sway mirrors each copy to the other side, so one daemon watching Wayland sees an X11 client's copy through the
/// mirror, and must record it once. Its own headless sway with XWayland: a seat, and a clipboard, of its own.
@Suite(.timeLimit(.minutes(2))) struct XWaylandTests {
    @Test func eachCopyIsRecordedOnceWhicheverSideMadeItAndRestoresAreReadOnBoth() async throws {
        let sway = try await HeadlessSway(requiredBy: "the XWayland tests", xwayland: true)
        defer { sway.stop() }
        let display = try #require(sway.x11Display)
        let session = try await WaylandSession(sway: sway, environment: ["DISPLAY": display])
        let xclip = try WaylandSession.tool("xclip", package: "xclip")
        // sway copies between the X11 and the Wayland selections only while an X11 window has the focus (wlroots
        // denies X11 clients the clipboard otherwise): a terminal, as on a user's desktop.
        let xterm = try WaylandSession.tool("xterm", package: "xterm")
        let window = try session.sandbox.launch(xterm, ["-e", "sleep", "300"])
        func x11Copy(_ text: String) throws -> ChildProcess {
            // -quiet: in the foreground, so the sandbox stops it.
            try session.sandbox.launch(xclip, ["-quiet", "-selection", "clipboard", "-i"], stdin: Data(text.utf8))
        }
        func x11Paste() async throws -> ProcessResult {
            try await session.sandbox.run(xclip, ["-selection", "clipboard", "-o"], timeout: .seconds(10))
        }
        var probes: [ChildProcess] = []
        // Generous: on a loaded machine sway, XWayland and xterm take their time to come up.
        let mirrored = try await eventually(within: .seconds(30), every: .milliseconds(300)) {
            probes.append(try x11Copy("probe"))
            try await Task.sleep(for: .milliseconds(100))
            return try await session.wlPaste().output == "probe"
        }
        try #require(mirrored, "sway did not mirror an X11 copy to Wayland: \(window.stderr) \(sway.log.suffix(1500))")
        // Every probe gone (a slow one could take the selection late), then nothing on the clipboard.
        for probe in probes { probe.terminate(grace: .seconds(2)) }
        try await session.succeed(["clear"])
        let daemon = try await session.startDaemon()
        try await Task.sleep(for: .milliseconds(300))
        let before = try await session.history()
        #expect(before.isEmpty, "nothing was copied yet: \(before); \(daemon.stderr)")

        // An X11 client's copy, seen through the mirror: one item.
        let x11Source = try x11Copy("copied by an X11 client")
        var items = try await session.waitForHistory(count: 1)
        #expect(items.first?["preview"] as? String == "copied by an X11 client", "\(items); \(daemon.stderr)")
        let wlPaste = try await session.wlPaste()
        #expect(wlPaste.output == "copied by an X11 client", "\(wlPaste)")
        // A second record would come within a moment of the first.
        try await Task.sleep(for: .milliseconds(700))
        items = try await session.history()
        #expect(items.count == 1, "an X11 copy must be recorded once: \(items); \(daemon.stderr)")
        // Not even as a repeat of itself (which would count as a second copy of the same item).
        #expect(items.first?["copyCount"] as? Int == 1, "\(items); \(daemon.stderr)")
        let x11ID = try #require(items.first?["id"] as? Int)

        // A Wayland client's copy, which sway mirrors to X11: one more item.
        try session.wlCopy(Data("copied by a Wayland client".utf8))
        items = try await session.waitForHistory(count: 2)
        #expect(items.first?["preview"] as? String == "copied by a Wayland client", "\(items); \(daemon.stderr)")
        let seenOnX11 = try await eventually(within: .seconds(5), every: .milliseconds(100)) {
            try await x11Paste().output == "copied by a Wayland client"
        }
        let x11Pasted = try await x11Paste()
        #expect(seenOnX11, "xclip -o: \(x11Pasted)")
        try await Task.sleep(for: .milliseconds(700))
        items = try await session.history()
        #expect(items.count == 2, "a Wayland copy must be recorded once: \(items); \(daemon.stderr)")
        #expect(items.first?["copyCount"] as? Int == 1, "\(items); \(daemon.stderr)")
        x11Source.terminate(grace: .seconds(1))

        // pb restore: the daemon's source, read from both sides; nothing new recorded.
        try await session.succeed(["restore", String(x11ID)])
        let restoredOnWayland = try await session.wlPaste()
        #expect(restoredOnWayland.output == "copied by an X11 client", "\(restoredOnWayland)")
        let restoredOnX11 = try await eventually(within: .seconds(5), every: .milliseconds(100)) {
            try await x11Paste().output == "copied by an X11 client"
        }
        let x11Restored = try await x11Paste()
        #expect(restoredOnX11, "xclip -o after pb restore: \(x11Restored); \(daemon.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        items = try await session.history()
        #expect(items.count == 2, "a restore records nothing new: \(items)")
        try await session.stop(daemon: daemon)
        window.terminate(grace: .seconds(1))
    }
}
