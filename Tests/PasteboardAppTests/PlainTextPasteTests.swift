import Foundation
import PasteboardTestSupport
import Testing

/// Paste as plain text (issue 26): Shift+Enter on a row puts the item's text alone on the clipboard, in the window
/// and in the popup, and adds no item.
@Suite(.timeLimit(.minutes(2))) struct PlainTextPasteTests {
    static let line = #"{"representations":[{"type":"public.html","text":"<b>rich</b> text"},"#
        + #"{"type":"public.utf8-plain-text","text":"rich text"}]}"#

    func seeded(_ session: AppSession) async throws -> Int64 {
        let file = try session.sandbox.file(Data((Self.line + "\n").utf8), name: "rich.jsonl")
        try await session.pb(["import", file.path])
        return try await session.newestID()
    }

    @Test func shiftEnterInTheWindowCopiesTheTextAlone() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let id = try await seeded(session)
        try await session.launchApp()
        try await session.focusWindow()
        // A click on the row copies it whole and puts the focus in the list; Shift+Enter then copies its text alone.
        var mark = session.logLines().count
        let row = SelectionTests.rowPoint(0, layout: "strip")
        try await session.click(x: row.x, y: row.y)
        try await session.waitForLog(after: mark) { $0 == "restored \(id)" }
        mark = session.logLines().count
        try await session.key("shift+Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(id) as plain text" }
        #expect(try await session.clipboardBecomes("rich text"))
        #expect(try await session.clipboard(target: "text/html").isEmpty, "no HTML on the clipboard")
        #expect(try await session.newestID() == id, "no item added")
    }

    @Test func shiftEnterInThePopupCopiesTheTextAlone() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let id = try await seeded(session)
        try await session.launchBackground()
        let mark = session.logLines().count
        #expect(try await session.requestPopup(try Product.pb.path(), ["popup"]).succeeded)
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        try await session.focusWindow(named: "Pasteboard Popup")
        try await session.key("shift+Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(id) as plain text" }
        #expect(try await session.clipboardBecomes("rich text"))
        #expect(try await session.clipboard(target: "text/html").isEmpty, "no HTML on the clipboard")
    }
}
