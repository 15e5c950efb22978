import Foundation
import PasteboardTestSupport
import Testing

/// One instance (issue 26, defect 7): a second `pasteboard-gtk` presents the window of the one that runs and exits,
/// instead of opening a second, independent window; a background instance makes its window when asked, and
/// closing that window leaves its popup ready.
@Suite(.timeLimit(.minutes(2))) struct SingleInstanceTests {
    @Test func aSecondLaunchPresentsTheRunningWindow() async throws {
        let session = try await AppSession()
        try await session.seed("one window")
        try await session.launchApp()
        try await session.waitForLog { $0 == "popup resident" }
        let mark = session.logLines().count
        let second = try await session.requestPopup(try Product.pasteboardGTK.path(), [])
        #expect(second.succeeded, "\(second)")
        try await session.waitForLog(after: mark) { $0 == "window presented" }
        let started = session.logLines().dropFirst(mark).filter { $0 == "gtk initialized" }
        #expect(started.isEmpty, "the second launch started no GTK of its own")
        #expect(try await session.visibleWindows(named: "Pasteboard History") == 1)
    }

    @Test func aBackgroundInstanceMakesItsWindowAndKeepsThePopupWhenItCloses() async throws {
        let session = try await AppSession()
        try await session.seed("from the background")
        try await session.launchBackground()
        var mark = session.logLines().count
        let launch = try await session.requestPopup(try Product.pasteboardGTK.path(), [])
        #expect(launch.succeeded, "\(launch)")
        try await session.waitForLog(after: mark) { $0 == "first frame" }
        #expect(try await session.visibleWindows(named: "Pasteboard History") == 1)
        try await session.focusWindow()
        try await session.key("ctrl+w")
        var hidden = false
        for _ in 0..<50 where !hidden {
            hidden = try await session.visibleWindows(named: "Pasteboard History") == 0
            if !hidden { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(hidden, "Ctrl+W hides the window of a background instance")
        mark = session.logLines().count
        #expect(try await session.requestPopup(try Product.pb.path(), ["popup"]).succeeded)
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
    }
}
