import Foundation
import PasteboardTestSupport
import Testing

/// What a key acts on is the row the user chose, with a click or the keys: never the row the pointer passes over,
/// never a neighbour after the list was re-sorted, never a row other than the one with the focus ring.
@Suite(.timeLimit(.minutes(2))) struct SelectionTests {
    /// Where row `index` is drawn in each layout (the window sits at the screen's top left, with no window manager).
    static func rowPoint(_ index: Int, layout: String) -> (x: Int, y: Int) {
        layout == "strip" ? (100 + index * 188, 232) : (150, 199 + index * 49)
    }

    @Test(arguments: ["strip", "list"])
    func keysActOnTheClickedRowNotTheHoveredOne(layout: String) async throws {
        let session = try await AppSession()
        let oldest = try await session.seed("oldest")
        let middle = try await session.seed("middle")
        let newest = try await session.seed("newest")
        try await session.launchApp()
        if layout == "list" {
            try await session.key("ctrl+t")
            try await session.waitForLog { $0 == "layout list" }
        }

        var mark = session.logLines().count
        let first = Self.rowPoint(0, layout: layout)
        let second = Self.rowPoint(1, layout: layout)
        try await session.click(x: first.x, y: first.y)
        try await session.waitForLog(after: mark) { $0 == "restored \(newest)" }
        try await session.waitForLog(after: mark) { $0.hasPrefix("preview text \(newest) ") }

        // The pointer rests on the second row: nothing changes, and the keys still act on the clicked one.
        mark = session.logLines().count
        try await session.movePointer(x: second.x - 20, y: second.y)
        try await session.movePointer(x: second.x, y: second.y)
        try await Task.sleep(for: .milliseconds(400))
        let hovered = session.logLines().dropFirst(mark).filter { $0.hasPrefix("preview text \(middle) ") }
        #expect(hovered.isEmpty, "hovering changed the preview: \(hovered)")
        try await session.key("ctrl+p")
        let pinned = try await session.waitForLog(after: mark) { $0.hasPrefix("pinned ") }
        #expect(pinned == "pinned \(newest)")
        try await session.movePointer(x: second.x + 20, y: second.y)
        try await Task.sleep(for: .milliseconds(300))
        try await session.key("Delete")
        let deleted = try await session.waitForLog(after: mark) { $0.hasPrefix("deleted ") }
        #expect(deleted == "deleted \(newest)")
        let ids = try await session.history().compactMap { $0["id"] as? Int }
        #expect(ids == [Int(middle), Int(oldest)], "the clicked item is the one deleted")
        let pins = try await session.history().filter { $0["pinned"] as? Bool == true }
        #expect(pins.isEmpty, "the hovered item was pinned: \(pins)")

        // The point hovered was on a row: a click there restores the item it shows now (the second row, oldest).
        mark = session.logLines().count
        try await session.click(x: second.x, y: second.y)
        try await session.waitForLog(after: mark) { $0 == "restored \(oldest)" }
    }

    /// A restore moves the item to the top: the selection and the preview go with it, and the next key acts on it.
    @Test func theSelectionFollowsARestoredItemToTheTop() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let lines = (0..<40).map { index in
            "{\"created\": \(1_700_000_000 + index), \"representations\": "
                + "[{\"type\": \"public.utf8-plain-text\", \"text\": \"note \(index)\"}]}"
        }
        let file = try session.sandbox.file(Data(lines.joined(separator: "\n").utf8), name: "history.jsonl")
        try await session.pb(["import", file.path])
        let items = try await session.history()
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }

        // Ten rows down the strip (more rows are read as it scrolls), Enter.
        try await session.key("ctrl+f", "Down")
        for _ in 0..<10 { try await session.key("Right") }
        let target = try #require(items[10]["id"] as? Int)
        try await session.waitForLog { $0 == "preview text \(target) note 29" }
        let mark = session.logLines().count
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(target)" }
        #expect(try await session.newestID() == Int64(target))
        // The window's own refresh and the daemon's event have both come and gone.
        try await Task.sleep(for: .milliseconds(800))
        let previews = session.logLines().dropFirst(mark).filter { $0.hasPrefix("preview ") }
        try await session.key("ctrl+p")
        let pinned = try await session.waitForLog(after: mark) { $0.hasPrefix("pinned ") }
        // Known issue: the move is now told to the list as a move (not a new row at the top, which put the selection
        // on the neighbour below), but the slot that had the focus is left on the neighbour above, and a row that
        // takes the focus is selected. Passes without the focus-selects-row rule; see the branch's commit message.
        #expect(previews.allSatisfy { $0.hasPrefix("preview text \(target) ") }, "\(previews)")
        #expect(pinned == "pinned \(target)", "the key acts on the restored item, not a neighbour")
    }

    /// Tab moves the focus ring and the selection together: Enter restores the row that is highlighted.
    @Test func tabMovesTheSelectionWithTheFocus() async throws {
        let session = try await AppSession()
        try await session.seed("oldest")
        let middle = try await session.seed("middle")
        let newest = try await session.seed("newest")
        try await session.launchApp()

        try await session.key("ctrl+f", "Down")
        try await session.waitForLog { $0.hasPrefix("preview text \(newest) ") }
        let mark = session.logLines().count
        // GTK 4.8 moves the focus ring to the next row on Tab: the selection (and the preview) go with it.
        try await session.key("Tab")
        try await session.waitForLog(after: mark) { $0.hasPrefix("preview text \(middle) ") }
        try await session.key("Return")
        let restored = try await session.waitForLog(after: mark) { $0.hasPrefix("restored ") }
        #expect(restored == "restored \(middle)", "Enter restored another row than the highlighted one")
    }
}
