import Foundation
import PasteboardTestSupport
import Testing

/// Several items chosen at once (issue 26, the paste stack): Ctrl+click, Shift+click and Shift+arrows mark rows
/// without restoring them; Enter makes the marked items a paste stack, one per paste in the order marked; Ctrl+Enter
/// copies their texts joined with the separator typed in the marks bar; Escape unmarks.
@Suite(.timeLimit(.minutes(2))) struct MarksTests {
    static func rowPoint(_ index: Int) -> (x: Int, y: Int) { SelectionTests.rowPoint(index, layout: "strip") }

    @Test func ctrlClickMarksAndEnterPastesThemOneByOneInTheOrderMarked() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let a = try await session.seed("alpha")
        let b = try await session.seed("bravo")
        let c = try await session.seed("charlie")
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }
        // Rows, newest first: charlie, bravo, alpha. Marked: alpha, then charlie.
        var mark = session.logLines().count
        let third = Self.rowPoint(2)
        let first = Self.rowPoint(0)
        try await session.click(x: third.x, y: third.y, holding: "ctrl")
        try await session.waitForLog(after: mark) { $0 == "marked \(a)" }
        try await session.click(x: first.x, y: first.y, holding: "ctrl")
        try await session.waitForLog(after: mark) { $0 == "marked \(a),\(c)" }
        let restored = session.logLines().dropFirst(mark).filter { $0.hasPrefix("restored ") }
        #expect(restored.isEmpty, "a Ctrl+click marks, it does not restore: \(restored)")

        mark = session.logLines().count
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "stacked \(a),\(c)" }
        #expect(try await session.clipboard() == Data("alpha".utf8))
        #expect(try await session.clipboard() == Data("charlie".utf8))
        #expect(try await session.clipboard() == Data("charlie".utf8), "the last item stays")
        try await session.waitForLog(after: mark) { $0 == "marked " }
        _ = b
    }

    @Test func shiftArrowsMarkAndCtrlEnterCopiesThemJoined() async throws {
        let session = try await AppSession()
        let one = try await session.seed("one")
        let two = try await session.seed("two")
        let three = try await session.seed("three")
        try await session.launchApp()
        // Into the list at the newest row, then Shift+Right twice: three, two, one marked in that order.
        try await session.key("ctrl+f", "Down")
        try await session.waitForLog { $0.hasPrefix("preview text \(three) ") }
        var mark = session.logLines().count
        try await session.key("shift+Right")
        try await session.waitForLog(after: mark) { $0 == "marked \(three),\(two)" }
        try await session.key("shift+Right")
        try await session.waitForLog(after: mark) { $0 == "marked \(three),\(two),\(one)" }
        // Escape unmarks all; mark again and copy them joined with " + ".
        try await session.key("Escape")
        try await session.waitForLog(after: mark) { $0 == "marked " }
        mark = session.logLines().count
        try await session.key("ctrl+space")
        try await session.waitForLog(after: mark) { $0 == "marked \(one)" }
        try await session.key("shift+Left", "shift+Left")
        try await session.waitForLog(after: mark) { $0 == "marked \(one),\(two),\(three)" }
        try await session.key("ctrl+Return")
        try await session.waitForLog(after: mark) { $0 == "joined \(one),\(two),\(three)" }
        #expect(try await session.clipboardBecomes("one\ntwo\nthree"))
        let newest = try await session.newestID()
        #expect(![one, two, three].contains(newest), "the joined text is a new item")
        #expect(try await session.history().count == 4)
    }

    @Test func withoutADaemonThePasteStackSaysWhatItNeeds() async throws {
        let session = try await AppSession()
        let a = try await session.seed("kept one")
        let b = try await session.seed("kept two")
        try await session.launchApp()
        let mark = session.logLines().count
        let first = Self.rowPoint(0)
        let second = Self.rowPoint(1)
        try await session.click(x: first.x, y: first.y, holding: "ctrl")
        try await session.click(x: second.x, y: second.y, holding: "shift")
        try await session.waitForLog(after: mark) { $0 == "marked \(b),\(a)" }
        try await session.key("Return")
        let error = try await session.waitForLog(after: mark) { $0.hasPrefix("error ") }
        #expect(error.contains("pb daemon"), "\(error)")
    }

    /// The popup marks too: Ctrl+Space and Shift+Down mark, Enter makes them a paste stack and closes.
    @Test func thePopupMarksAndStacks() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let first = try await session.seed("first")
        let second = try await session.seed("second")
        let third = try await session.seed("third")
        try await session.launchBackground()
        var mark = session.logLines().count
        #expect(try await session.requestPopup(try Product.pb.path(), ["popup"]).succeeded)
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        try await session.focusWindow(named: "Pasteboard Popup")
        // third (selected), then Shift+Down marks third and second; Ctrl+Space on second unmarks it; Down twice
        // to first, Ctrl+Space marks it: third, first.
        try await session.key("shift+Down")
        try await session.waitForLog(after: mark) { $0 == "marked \(third),\(second)" }
        try await session.key("ctrl+space")
        try await session.waitForLog(after: mark) { $0 == "marked \(third)" }
        try await session.key("Down", "ctrl+space")
        try await session.waitForLog(after: mark) { $0 == "marked \(third),\(first)" }
        mark = session.logLines().count
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "stacked \(third),\(first)" }
        try await session.waitForLog(after: mark) { $0.hasPrefix("popup closed") }
        #expect(try await session.clipboard() == Data("third".utf8))
        #expect(try await session.clipboard() == Data("first".utf8))
    }
}

/// Edit before paste (issue 26, item 7): Ctrl+E edits a copy of the selected text in the preview, Ctrl+Enter copies
/// the result as a new item (the original stays), Escape cancels; a live update meanwhile keeps the edit.
@Suite(.timeLimit(.minutes(2))) struct EditBeforePasteTests {
    @Test func ctrlEEditsACopyAndCtrlEnterCopiesItAsANewItem() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let original = try await session.seed("Dear Sir, thank you")
        try await session.launchApp()
        try await session.focusWindow()
        try await session.waitForLog { $0 == "daemon connected" }
        try await session.key("ctrl+f", "Down")
        try await session.waitForLog { $0.hasPrefix("preview text \(original) ") }
        var mark = session.logLines().count
        try await session.key("ctrl+e")
        try await session.waitForLog(after: mark) { $0 == "editing \(original)" }
        try await session.key("ctrl+End")
        try await session.type(" very much")
        // A copy made elsewhere meanwhile: the edit stays.
        _ = try await session.seed("a copy elsewhere")
        try await session.waitForLog(after: mark) { $0.hasPrefix("rows ") }
        try await session.type("!")
        try await session.key("ctrl+Return")
        let copied = try await session.waitForLog(after: mark) { $0.hasPrefix("copied edited ") }
        #expect(try await session.clipboardBecomes("Dear Sir, thank you very much!"))
        let history = try await session.history()
        let texts = history.compactMap { $0["preview"] as? String }
        #expect(texts.contains("Dear Sir, thank you very much!") && texts.contains("Dear Sir, thank you"), "\(texts)")
        #expect(copied != "copied edited \(original)", "a new item, the original kept")

        // Escape cancels: nothing copied.
        mark = session.logLines().count
        let count = history.count
        try await session.key("ctrl+e")
        try await session.waitForLog(after: mark) { $0.hasPrefix("editing ") }
        try await session.type("discarded")
        try await session.key("Escape")
        try await session.waitForLog(after: mark) { $0 == "editing cancelled" }
        #expect(try await session.history().count == count)
    }
}
