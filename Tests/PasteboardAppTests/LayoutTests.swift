import Foundation
import PasteboardTestSupport
import Testing

/// The window's layout (issue 26, defect 6): the list layout leaves the preview most of the width, at the window's
/// size and at half a 1366 px screen, and the window can be that narrow.
@Suite(.timeLimit(.minutes(2))) struct LayoutTests {
    /// The last "split P of L" the app logged after `mark`.
    static func split(_ session: AppSession, after mark: Int) async throws -> (position: Int, length: Int) {
        let line = try await session.waitForLog(after: mark) { $0.hasPrefix("split ") }
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 2, "\(line)")
        return (numbers[0], numbers[1])
    }

    @Test func theListLayoutLeavesThePreviewMostOfTheWidthAndTheWindowTilesInHalfAScreen() async throws {
        let session = try await AppSession()
        for index in 0..<5 { _ = try await session.seed("item \(index) " + String(repeating: "long text ", count: 12)) }
        try await session.launchApp()
        try await session.focusWindow()
        var mark = session.logLines().count
        try await session.key("ctrl+t")
        try await session.waitForLog(after: mark) { $0 == "layout list" }
        let wide = try await Self.split(session, after: mark)
        #expect(wide.length > 900 && wide.position <= wide.length / 2, "split \(wide)")

        // Half of a 1366 px screen; the list layout again there.
        try await session.resizeWindow(width: 683, height: 700)
        mark = session.logLines().count
        try await session.key("ctrl+t")
        try await session.waitForLog(after: mark) { $0 == "layout strip" }
        try await session.key("ctrl+t")
        try await session.waitForLog(after: mark) { $0 == "layout list" }
        let narrow = try await Self.split(session, after: mark)
        #expect(narrow.length < 700, "the window did not shrink to half a screen: \(narrow)")
        #expect(narrow.length - narrow.position >= 300, "the preview keeps room: \(narrow)")
    }

    /// A copy made while the strip shows its start appears there, not just before the view (issue 26, defect 8).
    @Test func aNewItemAppearsAtTheStartOfTheStrip() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        for index in 0..<20 { _ = try await session.seed("old \(index)") }
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }
        for text in ["newcomer", "another"] {
            let mark = session.logLines().count
            _ = try await session.seed(text)
            let id = try await session.newestID()
            try await session.waitForLog(after: mark) { $0 == "row shown \(id)" }
            let view = try await session.waitForLog(after: mark) { $0.hasPrefix("view at start") }
            #expect(view == "view at start true", "\(text): \(view)")
        }
    }
}
