import Foundation
import PasteboardTestSupport
import Testing

/// `pasteboard-gtk --popup`: opens near the pointer, filters as you type, Enter copies and closes; with `--paste`
/// the item lands in the window that had the focus.
@Suite(.timeLimit(.minutes(2))) struct PopupTests {
    @Test func thePopupOpensNearThePointerFiltersAndCopies() async throws {
        let session = try await AppSession()
        try await session.seed("alpha line")
        let needle = try await session.seed("bravo needle")
        try await session.seed("charlie line")
        try await session.movePointer(x: 200, y: 150)
        try await session.launchApp(["--popup"], title: "Pasteboard Popup")
        let lines = session.logLines()
        #expect(lines.contains("popup at 200,150"), "\(lines)")
        #expect(lines.contains("rows 3"), "\(lines)")

        let mark = session.logLines().count
        try await session.type("needle")
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(needle)" }
        #expect(try await session.appExit() == 0, "Enter copies and closes")
        // No daemon: the copy stays on the clipboard through the app's owner process.
        #expect(try await session.clipboardBecomes("bravo needle"))
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    @Test func escapeClosesWithoutCopying() async throws {
        let session = try await AppSession()
        try await session.seed("left alone")
        try await session.launchApp(["--popup"], title: "Pasteboard Popup")
        try await session.key("Down", "Escape")
        #expect(try await session.appExit() == 0)
        #expect(try await session.clipboard().isEmpty, "nothing was copied")
    }

    @Test func withPasteTheItemLandsInTheWindowThatHadTheFocus() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        try await session.seed("pasted by the popup")
        try await session.seed("another item")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Support/paste_target.py")
        let target = try session.sandbox.launch("/usr/bin/python3", [script.path, "Paste Target"])
        defer { target.send(SIGTERM) }
        let ready = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            String(decoding: target.stdout, as: UTF8.self).contains("ready") || !target.isRunning
        }
        guard ready, target.isRunning else { throw SetupFailure("the GTK 3 paste target did not start: \(target.stderr)") }
        try await session.focusWindow(named: "Paste Target")

        try await session.launchApp(["--popup", "--paste"], title: "Pasteboard Popup")
        let mark = session.logLines().count
        try await session.type("by the popup")
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "pasted" }
        let landed = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            String(decoding: target.stdout, as: UTF8.self).contains("text pasted by the popup")
        }
        #expect(landed, "the target's field: \(String(decoding: target.stdout, as: UTF8.self))")
        #expect(try await session.appExit() == 0)
    }
}
