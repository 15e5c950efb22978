import Foundation
import PasteboardTestSupport
import Testing

/// The Pasteboard History window, run for real under Xvfb and driven with xdotool.
@Suite(.timeLimit(.minutes(2))) struct HistoryWindowTests {
    @Test func windowShowsTheHistoryAsChipsWithThumbnails() async throws {
        let session = try await AppSession()
        try await session.seed("first note")
        try await session.seed("second note\nwith two lines")
        try await session.seed("https://example.com/page")
        let image = try await session.seed(file: try await session.redPNG())

        try await session.launchApp()
        let lines = session.logLines()
        #expect(lines.contains("window shown Pasteboard History"), "\(lines)")
        #expect(lines.contains("layout strip"), "\(lines)")
        #expect(lines.contains("rows 4"), "\(lines)")
        try await session.waitForLog { $0 == "thumbnail \(image)" }

        let shot = try await session.screenshot("main")
        let statistics = try await session.imageStatistics(shot)
        #expect(statistics.width == AppSession.screenWidth && statistics.height == AppSession.screenHeight)
        #expect(statistics.colours > 100, "a drawn window has text and icons, not a few flat colours: \(statistics)")
        // The red test picture's thumbnail is on screen (64×48 shown at least at its size: 0.39 % of the screen).
        let red = try await session.redFraction(shot)
        #expect(red > 0.003, "red fraction of the screenshot: \(red)")
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    @Test(arguments: [true, false])
    func enterInTheTextFieldCopiesToTheClipboardAndTheTopOfTheHistory(daemonRuns: Bool) async throws {
        let session = try await AppSession()
        if daemonRuns { try await session.startDaemon() }
        try await session.seed("older item")
        try await session.launchApp()
        try await session.waitForLog { $0 == (daemonRuns ? "daemon connected" : "daemon missing") }

        let mark = session.logLines().count
        try await session.type("typed in the window")
        try await session.key("Return")
        let copied = try await session.waitForLog(after: mark) { $0.hasPrefix("copied text ") }
        try await session.waitForLog(after: mark) { $0 == "rows 2" }
        #expect(try await session.clipboardBecomes("typed in the window"))
        let newest = try await session.history(limit: 1).first
        #expect(newest?["preview"] as? String == "typed in the window", "\(String(describing: newest))")
        #expect(newest?["source"] as? String == "pasteboard-gtk", "\(String(describing: newest))")
        #expect(copied == "copied text \(newest?["id"] as? Int ?? -1)")

        // The copy outlives the window: the daemon serves it, or else the app's own owner process.
        try await session.stopApp()
        #expect(try await session.clipboardBecomes("typed in the window"))
    }

    @Test func arrowsAndEnterRestoreEveryRepresentationAndPreviewIt() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let html = "<p>Rich <b>text</b> from a page</p>"
        let page = try session.sandbox.file(Data(html.utf8), name: "page.html")
        let rich = try await session.seed(file: page, type: "html")
        try await session.seed("middle item")
        let newest = try await session.seed("newest item")
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }

        // Into the strip from the search field, two chips to the right, Enter.
        try await session.key("ctrl+f", "Down")
        try await session.waitForLog { $0.hasPrefix("preview text \(newest) ") }
        try await session.key("Right", "Right")
        try await session.waitForLog { $0.hasPrefix("preview text \(rich) ") }
        let mark = session.logLines().count
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(rich)" }

        #expect(try await session.clipboardBecomes(html, target: "text/html"))
        #expect(try await session.clipboardBecomes("Rich text from a page"))
        #expect(try await session.newestID() == rich, "a restored item moves to the top")
        let preview = try await session.waitForLog(after: mark) { $0.hasPrefix("preview text \(rich) ") }
        #expect(preview.hasSuffix("Rich text from a page"), "the preview shows the plain text: \(preview)")

        // A click on the first chip restores it too.
        let click = session.logLines().count
        try await session.click(x: 100, y: 232)
        try await session.waitForLog(after: click) { $0 == "restored \(rich)" }
    }

    @Test func theHistoryFollowsCopiesMadeElsewhereWhileTheDaemonRuns() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        try await session.seed("already there")
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }

        // Another application copies: the daemon records it and the window hears of it, with no polling.
        var mark = session.logLines().count
        let xclip = try AppSession.tool("xclip", package: "xclip")
        let owner = try session.sandbox.launch(
            xclip, ["-selection", "clipboard", "-quiet", "-i"], stdin: Data("copied in another app".utf8))
        try await session.waitForLog(after: mark) { $0 == "rows 2" }
        let id = try await session.newestID()
        try await session.key("ctrl+f", "Down")
        try await session.waitForLog(after: mark) { $0 == "preview text \(id) copied in another app" }
        owner.terminate(grace: .milliseconds(200))

        // The daemon stops: the window says so.
        mark = session.logLines().count
        try await session.stopDaemon()
        try await session.waitForLog(after: mark) { $0 == "daemon lost" }
    }

    /// Whoever changes the store (here `pb import` and `pb delete` in another process), the window shows it at once:
    /// the daemon follows the store's change feed and tells it, with no polling and no restart.
    @Test func theWindowShowsImportsAndDeletionsMadeByOtherProcesses() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        try await session.seed("already there")
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }
        try await session.waitForLog { $0 == "rows 1" }

        var mark = session.logLines().count
        let lines = ["first imported", "second imported", "third imported"].map { #"{"text":"\#($0)"}"# }
        let file = try session.sandbox.file(Data((lines.joined(separator: "\n") + "\n").utf8), name: "items.jsonl")
        try await session.pb(["import", file.path])
        try await session.waitForLog(after: mark) { $0 == "rows 4" }

        mark = session.logLines().count
        try await session.pb(["delete", String(try await session.newestID())])
        try await session.waitForLog(after: mark) { $0 == "rows 3" }
        mark = session.logLines().count
        try await session.pb(["clear"])
        try await session.waitForLog(after: mark) { $0 == "rows 0" }

        // The daemon stops; an import meanwhile shows once one starts again, without touching the window.
        mark = session.logLines().count
        try await session.stopDaemon()
        try await session.waitForLog(after: mark) { $0 == "daemon lost" }
        try await session.pb(["import", file.path])
        mark = session.logLines().count
        try await session.startDaemon()
        try await session.waitForLog(after: mark) { $0 == "daemon connected" }
        try await session.waitForLog(after: mark) { $0 == "rows 3" }
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    @Test func searchFiltersTheHistoryAsYouType() async throws {
        let session = try await AppSession()
        for text in ["apple pie", "banana split", "apple juice", "cherry"] { try await session.seed(text) }
        try await session.launchApp()

        var mark = session.logLines().count
        try await session.key("ctrl+f")
        try await session.type("apple")
        try await session.waitForLog(after: mark) { $0 == "search apple" }
        try await session.waitForLog(after: mark) { $0 == "rows 2" }
        try await session.key("Down", "Return")
        #expect(try await session.clipboardBecomes("apple juice"))

        mark = session.logLines().count
        try await session.key("ctrl+f", "ctrl+a")
        try await session.type("zzz")
        try await session.waitForLog(after: mark) { $0 == "rows 0" }
        try await session.key("ctrl+a", "BackSpace")
        try await session.waitForLog(after: mark) { $0 == "rows 4" }
    }

    /// A key that keeps rows in the list leaves their widgets as they were: GTK finds the widget that showed an
    /// item by its row object, which stays the same while the item does; only rows new to the list are bound (a row
    /// kept has only its title's highlighting set again).
    @Test func aSearchKeyKeepsTheRowsThatStillMatchAsTheyWere() async throws {
        let session = try await AppSession()
        var ids: [String: Int64] = [:]
        for text in ["apple pie", "banana split", "apple juice", "cherry", "apple tart"] {
            ids[text] = try await session.seed(text)
        }
        try await session.launchApp()
        func shown(after mark: Int) -> Set<Int64> {
            Set(session.logLines().dropFirst(mark).compactMap { line in
                line.hasPrefix("row shown ") ? Int64(line.dropFirst("row shown ".count)) : nil
            })
        }
        try await session.waitForLog { $0 == "first frame" }
        #expect(shown(after: 0) == Set(ids.values), "each row shown once at the start: \(session.logLines())")

        var mark = session.logLines().count
        try await session.key("ctrl+f")
        try await session.type("ap")
        try await session.waitForLog(after: mark) { $0 == "search drawn ap" }
        try await session.waitForLog(after: mark) { $0 == "rows 3" }
        #expect(shown(after: mark).isEmpty, "the three apples were listed already: \(shown(after: mark))")

        mark = session.logLines().count
        try await session.type("ple j")
        try await session.waitForLog(after: mark) { $0 == "search drawn apple j" }
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        #expect(shown(after: mark).isEmpty, "apple juice was listed already: \(shown(after: mark))")

        // Cleared: the rows that come back are bound again, the one that stayed is not.
        mark = session.logLines().count
        try await session.key("ctrl+a", "BackSpace")
        try await session.waitForLog(after: mark) { $0 == "search drawn " }
        try await session.waitForLog(after: mark) { $0 == "rows 5" }
        let again = shown(after: mark)
        #expect(!again.contains(ids["apple juice"]!), "\(again)")
        #expect(again.isSuperset(of: [ids["banana split"]!, ids["cherry"]!]), "\(again)")
    }

    @Test func aTwoCharacterSearchShowsAScreenfulAndMoreRowsArriveAsTheListScrolls() async throws {
        let session = try await AppSession()
        // 80 items, every other one holding "qx": imported in one go.
        let lines = (0..<80).map { index in
            let text = "\(index % 2 == 0 ? "qx" : "other") note \(index)"
            return "{\"created\": \(1_700_000_000 + index), \"representations\": "
                + "[{\"type\": \"public.utf8-plain-text\", \"text\": \"\(text)\"}]}"
        }
        let file = try session.sandbox.file(Data(lines.joined(separator: "\n").utf8), name: "history.jsonl")
        try await session.pb(["import", file.path])
        try await session.launchApp()
        #expect(session.logLines().contains("rows 16"), "a screenful of the 80 first: \(session.logLines())")

        var mark = session.logLines().count
        try await session.key("ctrl+f")
        try await session.type("qx")
        try await session.waitForLog(after: mark) { $0 == "search qx" }
        // Below the trigram index's three characters: a scan that stops at a screenful of the 40 matches.
        try await session.waitForLog(after: mark) { $0 == "rows 16" }
        try await session.waitForLog(after: mark) { $0 == "search drawn qx" }
        try await session.key("Down")
        try await session.waitForLog(after: mark) { $0.hasSuffix(" qx note 78") && $0.hasPrefix("preview text ") }
        // End goes to the last row read; there, the list reads more, a few at a time, up to the last match.
        mark = session.logLines().count
        try await session.key("End")
        try await session.waitForLog(after: mark) { $0 == "rows 32" }
        try await session.key("End")
        try await session.waitForLog(after: mark) { $0 == "rows 40" }
        try await session.key("End")
        try await session.waitForLog(after: mark) { $0.hasSuffix(" qx note 0") && $0.hasPrefix("preview text ") }
        #expect(!session.logLines().dropFirst(mark).contains { $0.hasPrefix("preview text ") && $0.contains("other") })

        // Cleared, the whole history is back, a screenful first; End reaches its oldest item.
        mark = session.logLines().count
        try await session.key("ctrl+f", "ctrl+a", "BackSpace")
        try await session.waitForLog(after: mark) { $0 == "search drawn " }
        try await session.key("Down", "End")
        try await session.waitForLog(after: mark) { $0 == "rows 80" }
        try await session.waitForLog(after: mark) { $0.hasSuffix(" qx note 0") && $0.hasPrefix("preview text ") }
        // GTK got a row for every position it asked for (a missing one shows as g_object_unref criticals). Clearing
        // the search while a row past the new first screenful has the focus makes GTK 4.8 warn that it "failed to
        // scroll to given position" (its own focus tracking), which is not checked here.
        let criticals = session.gtkComplaints.filter { $0.contains("-CRITICAL") }
        #expect(criticals.isEmpty, "\(criticals.prefix(3))")
    }

    @Test func pinDeleteAndClearKeepPinnedItemsAndTheLayoutIsRemembered() async throws {
        let session = try await AppSession()
        let oldest = try await session.seed("oldest")
        let middle = try await session.seed("middle")
        let newest = try await session.seed("newest")
        // What the window does reaches `pb watch` from the store's change feed, through the daemon.
        try await session.startDaemon()
        let watch = try session.sandbox.launch(try Product.pb.path(), ["watch"])
        try await session.launchApp()

        try await session.key("ctrl+f", "Down")
        try await session.waitForLog { $0.hasPrefix("preview text \(newest) ") }
        try await session.key("ctrl+p")
        try await session.waitForLog { $0 == "pinned \(newest)" }
        try await session.key("Right")
        try await session.waitForLog { $0.hasPrefix("preview text \(middle) ") }
        var mark = session.logLines().count
        try await session.key("Delete")
        try await session.waitForLog(after: mark) { $0 == "deleted \(middle)" }
        // The next row is selected and has the focus: Left goes back to the first.
        try await session.waitForLog(after: mark) { $0.hasPrefix("preview text \(oldest) ") }
        mark = session.logLines().count
        try await session.key("Left")
        try await session.waitForLog(after: mark) { $0.hasPrefix("preview text \(newest) ") }
        var ids = try await session.history().compactMap { $0["id"] as? Int }
        #expect(ids == [Int(newest), Int(oldest)])

        // "Clear History…" opens a confirmation window of the app's own; Tab to its Clear button, Enter.
        try await session.click(x: 912, y: 111)
        try await session.waitForLog { $0 == "clear asked" }
        try await session.focusWindow(named: "Clear History")
        try await session.key("Tab", "Return")
        try await session.waitForLog { $0 == "cleared 1" }
        ids = try await session.history().compactMap { $0["id"] as? Int }
        #expect(ids == [Int(newest)], "pinned items survive Clear History")
        let watched = try await eventually(within: .seconds(5)) {
            String(decoding: watch.stdout, as: UTF8.self).contains(#""event":"cleared""#)
        }
        let events = String(decoding: watch.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(watched, "\(events)")
        let said = events.map { "\($0["event"] ?? "") \($0["id"] ?? $0["count"] ?? "")" }
        #expect(said == ["pinned \(newest)", "deleted \(middle)", "cleared 1"], "\(said)")
        #expect(events.last?["keptPinned"] as? Bool == true)
        watch.terminate(grace: .milliseconds(200))

        try await session.focusWindow()
        try await session.key("ctrl+t")
        try await session.waitForLog { $0 == "layout list" }
        let state = try String(
            contentsOf: session.sandbox.root.appendingPathComponent("state/pasteboard/app-state"), encoding: .utf8)
        #expect(state == "layout = list\n")
        try await session.stopApp()
        mark = session.logLines().count
        try await session.launchApp()
        try await session.waitForLog(after: mark) { $0 == "layout list" }
    }
}

extension HistoryWindowTests {
    /// Search ignores accents and case, highlights what matched, and switches to fuzzy and regex from the field's
    /// mode switch (Ctrl+R); a pattern that is not one says so under the field and leaves the list as it was.
    @Test func searchIgnoresAccentsHighlightsAndHasModes() async throws {
        let session = try await AppSession()
        for text in ["Ünïcödé", "Café crème", "apple 42", "plain words"] { try await session.seed(text) }
        try await session.launchApp()

        var mark = session.logLines().count
        try await session.key("ctrl+f")
        try await session.type("Unic")
        try await session.waitForLog(after: mark) { $0 == "search Unic" }
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        try await session.waitForLog(after: mark) { $0 == "row marked <b>Ünïc</b>ödé" }

        mark = session.logLines().count
        try await session.key("ctrl+r")
        try await session.waitForLog(after: mark) { $0 == "search mode fuzzy" }
        try await session.key("ctrl+r")
        try await session.waitForLog(after: mark) { $0 == "search mode regex" }
        try await session.key("ctrl+a")
        try await session.type("^(caf|app)")
        try await session.waitForLog(after: mark) { $0 == "search ^(caf|app)" }
        try await session.waitForLog(after: mark) { $0 == "rows 2" }
        try await session.waitForLog(after: mark) { $0 == "row marked <b>Caf</b>é crème" }

        mark = session.logLines().count
        try await session.key("ctrl+a")
        try await session.type("(unclosed")
        try await session.waitForLog(after: mark) {
            $0.hasPrefix("search problem Invalid regular expression") && $0.contains("(unclosed")
        }
        #expect(!session.logLines().dropFirst(mark).contains { $0.hasPrefix("search (unclosed") || $0.hasPrefix("error") })
        try await session.key("ctrl+a")
        try await session.type("\\d+$")
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        try await session.waitForLog(after: mark) { $0 == "row marked apple <b>42</b>" }
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }
}
