import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pb pick` in a real terminal (tmux): filtering in each mode, selection, pins, deletes, marks, resizing, and the
/// terminal given back after Ctrl-C and SIGTERM; the clipboard holds the chosen item afterwards.
@Suite(.timeLimit(.minutes(2))) struct PickTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func seed() async throws {
        for text in ["alpha one", "beta two", "gamma three", "GitHub token", "日本語のテキスト", "multi\nline\ttext"] {
            try await sandbox.copy(text)
        }
    }

    func pick(_ arguments: String = "", columns: Int = 80, rows: Int = 24, environment: [String: String] = [:]) async throws -> TerminalSession {
        let session = try await TerminalSession(
            "\(TerminalSession.shellQuoted(try Product.pb.path())) pick \(arguments)", sandbox: sandbox, columns: columns, rows: rows,
            environment: environment)
        try await session.waitForScreen { $0.first?.hasPrefix(">") == true }
        return session
    }

    static func listed(_ screen: [String]) -> [String] {
        screen.dropFirst().prefix { !$0.hasPrefix("─") && !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    @Test func loadsAScreenfulFirstAndTheRestAsItScrolls() async throws {
        for index in 0..<40 { try await sandbox.copy(String(format: "item %02d", index)) }
        let session = try await pick()
        // A new filter reads one screenful and one row more (whether there are more), not a whole window.
        let first = try await session.screen()
        let shown = Self.listed(first).count
        #expect(first[0].hasSuffix("\(shown + 1)+ · substring"), "\(first[0]), \(shown) rows shown")
        try await session.send("item", literal: true)
        var screen = try await session.waitForScreen { $0[0].hasSuffix("\(shown + 1)+ · substring") }
        #expect(Self.listed(screen).first?.hasSuffix("item 39") == true, "\(screen)")
        // Scrolling to the end loads the rest, and the oldest item is there.
        try await session.send("End")
        try await session.send("End")
        screen = try await session.waitForScreen {
            $0[0].hasSuffix("40 · substring") && $0.contains { $0.contains("item 00") }
        }
        #expect(screen[0].hasSuffix("40 · substring"), "\(screen)")
        try await session.send("Escape")
    }

    @Test func listsNewestFirstAndFiltersInEachMode() async throws {
        try await seed()
        let session = try await pick()
        let first = try await session.screen()
        #expect(first[0].hasSuffix("6 · substring"), "\(first[0])")
        #expect(Self.listed(first).first?.hasSuffix("multi line text") == true, "\(first)")
        #expect(first.contains { $0.contains("日本語のテキスト") })

        try await session.send("TOK", literal: true)
        var screen = try await session.waitForScreen { $0[0].hasSuffix("1 · substring") }
        #expect(Self.listed(screen).first?.hasSuffix("GitHub token") == true, "\(screen)")

        try await session.send("C-u")
        try await session.send("gh", literal: true)
        try await session.send("C-r")
        screen = try await session.waitForScreen { $0[0].hasSuffix("2 · fuzzy") }
        #expect(Self.listed(screen).map { String($0.suffix(12)).trimmingCharacters(in: .whitespaces) } == ["GitHub token", "gamma three"], "\(screen)")

        try await session.send("C-u")
        try await session.send("^(alpha|beta) ", literal: true)
        try await session.send("C-r")
        screen = try await session.waitForScreen { $0[0].hasSuffix("2 · regex") }
        #expect(Self.listed(screen).map { String($0.suffix(9)).trimmingCharacters(in: .whitespaces) } == ["beta two", "alpha one"], "\(screen)")
        try await session.send("C-u")
        try await session.send("(unclosed", literal: true)
        screen = try await session.waitForScreen { $0[0].hasSuffix("0 · regex") }
        #expect(screen.last { !$0.isEmpty }?.contains("regular expression") == true, "\(screen)")
    }

    @Test func enterRestoresTheSelectedItemAndExits() async throws {
        try await seed()
        let session = try await pick()
        try await session.send("Down")
        try await session.send("Down")
        try await session.send("Enter")
        let screen = try await session.waitForScreen { $0.contains("EXIT=0") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(screen.contains("MODES: icanon echo"), "the terminal is back in canonical mode: \(screen)")
        #expect(try await sandbox.paste() == Data("GitHub token".utf8))
    }

    @Test func tabMarksSeveralWhichAreRestoredJoined() async throws {
        try await seed()
        let session = try await pick()
        try await session.send("C-u")
        try await session.send("a", literal: true)
        try await session.waitForScreen { $0[0].hasSuffix("3 · substring") }
        try await session.send("Tab")
        try await session.send("Tab")
        try await session.waitForScreen { $0.last { !$0.isEmpty }?.contains("2 marked") == true }
        try await session.send("Enter")
        try await session.waitForScreen { $0.contains("EXIT=0") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(try await sandbox.paste() == Data("gamma three\nbeta two".utf8))
    }

    @Test func pinAndDeleteChangeTheStore() async throws {
        try await seed()
        let session = try await pick()
        try await session.send("C-s")
        try await session.waitForScreen { $0.last { !$0.isEmpty }?.contains("pinned") == true }
        #expect(try await sandbox.history().first?.isPinned == true)
        try await session.send("Down")
        try await session.send("C-d")
        try await session.waitForScreen { $0.last { !$0.isEmpty }?.contains("press Ctrl-D again") == true }
        #expect(try await sandbox.history().count == 6, "one press deletes nothing")
        try await session.send("C-d")
        try await session.waitForScreen { $0[0].hasSuffix("5 · substring") }
        #expect(try await sandbox.history().map(\.preview).contains("日本語のテキスト") == false)
        try await session.send("Escape")
        try await session.waitForScreen { $0.contains("EXIT=130") && $0.contains { $0.hasPrefix("MODES:") } }
    }

    /// While the picker is open, a copy and an import made elsewhere show at once (the daemon's events, from the
    /// store's change feed), and the selected item stays selected.
    @Test func changesMadeElsewhereShowWhileItIsOpen() async throws {
        try await seed()
        let daemon = try sandbox.launch(["daemon"])
        defer { daemon.send(SIGTERM) }
        let up = try await eventually(within: .seconds(10)) { FileManager.default.fileExists(atPath: sandbox.socketPath) }
        try #require(up, "pb daemon did not come up: \(daemon.stderrSoFar)")
        let session = try await pick()
        try await session.send("Down")
        try await Task.sleep(for: .milliseconds(300))  // the key handled before the copy comes
        try await sandbox.copy("copied while the picker is open")
        var screen = try await session.waitForScreen { $0[0].hasSuffix("7 · substring") }
        var listed = Self.listed(screen)
        #expect(listed.first?.hasSuffix("copied while the picker is open") == true, "\(screen)")
        let file = sandbox.root.appendingPathComponent("more.jsonl")
        try Data(#"{"text":"imported while open"}"#.utf8 + [0x0A]).write(to: file)
        _ = try await sandbox.run(["import", file.path])
        screen = try await session.waitForScreen { $0[0].hasSuffix("8 · substring") }
        listed = Self.listed(screen)
        #expect(listed.first?.hasSuffix("imported while open") == true, "\(screen)")
        // The item selected before (the second newest of the seed) is still the one Enter restores.
        try await session.send("Enter")
        try await session.waitForScreen { $0.contains("EXIT=0") }
        #expect(try await sandbox.history().first?.preview == "日本語のテキスト")
    }

    @Test func resizingMovesThePreviewBesideTheList() async throws {
        try await seed()
        let session = try await pick()
        var screen = try await session.screen()
        #expect(screen.contains { $0.hasPrefix("────") }, "80 columns: the preview is under the list")
        try await session.run(["resize-window", "-t", "t", "-x", "130", "-y", "30"])
        screen = try await session.waitForScreen { $0.contains { $0.contains("│") } }
        #expect(screen.count >= 30)
        #expect(screen[1].contains("│text · 15 B"), "\(screen[1])")
        try await session.run(["resize-window", "-t", "t", "-x", "60", "-y", "16"])
        screen = try await session.waitForScreen { !$0.contains { $0.contains("│") } }
        #expect(screen.prefix(16).allSatisfy { $0.count <= 60 }, "\(screen)")
    }

    @Test func ctrlCAndSIGTERMGiveTheTerminalBack() async throws {
        try await seed()
        let first = try await pick()
        try await first.send("C-c")
        var screen = try await first.waitForScreen { $0.contains("EXIT=130") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(screen.contains("MODES: icanon echo"), "\(screen)")

        let second = try await pick()
        let pid = try #require(try await second.programPID())
        kill(pid, SIGTERM)
        screen = try await second.waitForScreen { $0.contains("EXIT=143") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(screen.contains("MODES: icanon echo"), "\(screen)")
        #expect(!screen.contains { $0.hasPrefix("> ") }, "the picker's screen is gone: \(screen)")
    }

    @Test func aCrashGivesTheTerminalBackToo() async throws {
        try await seed()
        let session = try await pick()
        let pid = try #require(try await session.programPID())
        kill(pid, SIGSEGV)
        let screen = try await session.waitForScreen { $0.contains("EXIT=139") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(screen.contains("MODES: icanon echo"), "\(screen)")
        #expect(!screen.contains { $0.hasPrefix("> ") }, "the picker's screen is gone: \(screen)")
    }

    @Test func mouseClicksSelectAndTheWheelMoves() async throws {
        try await seed()
        let session = try await pick()
        // SGR mouse reports, as a terminal sends them: a press of button 0 on the fourth list row (row 5, 1-based).
        func selectedRow() async throws -> Int? {
            // tmux writes reverse video as ESC[7m or, after a reset, ESC[0;7m.
            try await session.screen(escapes: true).firstIndex { $0.contains("\u{1B}[7m") || $0.contains(";7m") }
        }
        try await session.send("\u{1B}[<0;10;5M\u{1B}[<0;10;5m", literal: true)
        #expect(try await eventually(within: .seconds(5)) { try await selectedRow() == 4 }, "the click selects row 5")
        try await session.send("\u{1B}[<64;10;5M", literal: true)  // the wheel, up: three rows back
        #expect(try await eventually(within: .seconds(5)) { try await selectedRow() == 1 }, "the wheel moves up")
        try await session.send("\u{1B}[<65;10;5M", literal: true)  // and down again
        try await session.send("Enter")
        try await session.waitForScreen { $0.contains("EXIT=0") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(try await sandbox.paste() == Data("gamma three".utf8))
    }

    @Test func printWritesTheChosenBytesAndLeavesTheClipboard() async throws {
        try await seed()
        let output = sandbox.root.appendingPathComponent("chosen.txt").path
        let session = try await TerminalSession(
            "\(TerminalSession.shellQuoted(try Product.pb.path())) pick --print > \(output)", sandbox: sandbox)
        try await session.waitForScreen { $0.first?.hasPrefix(">") == true }
        try await session.send("Enter")
        try await session.waitForScreen { $0.contains("EXIT=0") && $0.contains { $0.hasPrefix("MODES:") } }
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data("multi\nline\ttext".utf8))
        #expect(try await sandbox.paste() == Data("multi\nline\ttext".utf8), "the newest copy is still the clipboard")
    }

    @Test func noColorLeavesOnlyReverseVideo() async throws {
        try await seed()
        let colored = try await pick()
        #expect(try await colored.screen(escapes: true).joined().contains("\u{1B}[2m"))
        let plain = try await pick(environment: ["NO_COLOR": "1"])
        let escapes = try await plain.screen(escapes: true).joined()
        #expect(!escapes.contains("\u{1B}[2m") && !escapes.contains("\u{1B}[1m"), "\(escapes.debugDescription.prefix(400))")
        #expect(escapes.contains("\u{1B}[7m"), "the selection is still marked")
    }

    /// Issue 27, finding 11: tmux reads the kitty graphics query (an APC sequence) as a pane title, so `pb pick` left
    /// the pane titled "Gi=31,s=1,v=1,a=q,…" after it exited. Inside tmux or screen only DA1 is asked, and the title
    /// the pane had stays.
    @Test func leavesThePaneTitleAsItWasUnderTmux() async throws {
        try await seed()
        let session = try await TerminalSession(
            #"printf '\033]2;my title\033\\' && "# + TerminalSession.shellQuoted(try Product.pb.path()) + " pick",
            sandbox: sandbox)
        try await session.waitForScreen { $0.first?.hasPrefix(">") == true }
        try await session.send("Escape")
        try await session.waitForScreen { $0.contains { $0.hasPrefix("EXIT=") } }
        let title = try await session.run(["display-message", "-p", "-t", "t", "#{pane_title}"])
        #expect(title == "my title\n", "the pane title is now \(title.debugDescription)")
    }
}
