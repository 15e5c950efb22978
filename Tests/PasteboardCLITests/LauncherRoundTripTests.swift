import Foundation
import PasteboardTestSupport
import Testing

/// The README's launcher one-liners, run for real: `pb history --format dmenu`, a launcher picks a line, `pb decode`
/// gives back the item's exact bytes. fzf through `--filter` and interactively in tmux (its preview too), dmenu and
/// rofi under Xvfb, typed into with xdotool, wofi and fuzzel under a headless sway of their own, typed into with
/// wtype. Items: text with tabs and newlines, invalid UTF-8, Unicode, a PNG.
@Suite(.timeLimit(.minutes(2))) struct LauncherRoundTripTests {
    let sandbox: Sandbox
    var io: URL { sandbox.root.appendingPathComponent("io") }

    /// Each payload with a word of its `pb history` preview that only it has.
    static let items: [(query: String, payload: Data)] = [
        ("tabbed", Data("tabbed\tcolumns\tand\nmore lines\n\n".utf8)),
        ("Data", Data([0x61, 0xFF, 0xFE, 0x0A, 0x62, 0xC3])),
        ("unicode", Data("unicode 日本語 ✓ café 🎉 e\u{301}".utf8)),
        ("PNG", Payloads.png),
    ]

    init() throws {
        sandbox = try Sandbox()
    }

    func seed() async throws {
        for item in Self.items { try await sandbox.copy(item.payload) }
    }

    func tool(_ name: String) throws -> String {
        guard let path = executableOnPath(name) else {
            throw SetupFailure(
                "\(name) is needed by the launcher tests: apt-get install -y fzf rofi suckless-tools xdotool wofi fuzzel wtype")
        }
        return path
    }

    /// Runs `script` with `sh -c`, `$PB` set to the built pb, in the sandbox's environment plus `extra`.
    func shell(_ script: String, _ extra: [String: String] = [:]) throws -> ChildProcess {
        var environment = sandbox.environment.merging(extra) { $1 }
        environment["PB"] = try Product.pb.path()
        return try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", script], environment: environment, stdin: nil, ioDirectory: io)
    }

    @Test func fzfFilterRoundTripsEveryItemExactly() async throws {
        _ = try tool("fzf")
        try await seed()
        for item in Self.items {
            let picked = try shell(
                "\"$PB\" history --format dmenu | fzf -d '\\t' --with-nth 2.. -e --filter \(item.query) | head -n 1 "
                    + "| \"$PB\" decode")
            let result = try await picked.finish(timeout: .seconds(20))
            #expect(result.succeeded, "\(item.query): \(result)")
            #expect(result.stdout == item.payload, "\(item.query): \(result.stdout.map { $0 })")
        }
    }

    @Test func fzfWithThePreviewInATerminal() async throws {
        _ = try tool("fzf")
        _ = try tool("chafa")
        try await seed()
        let output = sandbox.root.appendingPathComponent("picked").path
        // The README's one-liner with images, writing the item to a file instead of `pb copy`.
        let oneLiner =
            "pb history --format dmenu | fzf -d '\\t' --with-nth 2.. --preview "
            + "'pb decode {} | chafa -s ${FZF_PREVIEW_COLUMNS}x${FZF_PREVIEW_LINES} - 2>/dev/null || pb show {1}' "
            + "| pb decode > \(output)"
        let command =
            "sh -c " + TerminalSession.shellQuoted("PATH=\(try Self.pbDirectory()):$PATH; export PATH; " + oneLiner)
        let session = try await TerminalSession(command, sandbox: sandbox, columns: 100, rows: 30)
        // The newest item, the PNG, is highlighted first: its preview is drawn by chafa.
        let image = try await session.waitForScreen { $0.contains(where: Self.hasBlockElements) }
        #expect(!image.contains { $0.contains("kind:") }, "chafa, not pb show, previews the PNG: \(image)")
        try await session.send("Up")
        let text = try await session.waitForScreen { $0.contains { $0.contains("kind:") } }
        #expect(!text.contains(where: Self.hasBlockElements), "pb show previews the text: \(text)")
        try await session.send("Down")
        try await session.send("Enter")
        try await session.waitForScreen { $0.contains { $0.hasPrefix("EXIT=0") } }
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Payloads.png)
    }

    /// Whether `line` has Unicode block elements (U+2580–U+259F), as chafa draws pictures with.
    static func hasBlockElements(_ line: String) -> Bool {
        line.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) }
    }

    /// The directory of the built pb, so that the one-liner's plain `pb` runs it.
    static func pbDirectory() throws -> String {
        URL(fileURLWithPath: try Product.pb.path()).deletingLastPathComponent().path
    }

    /// Runs `launcher` (its command line after the pipe) under Xvfb, types `query` and Return into its window
    /// (class `windowClass`), and returns what `pb decode` wrote.
    func pick(_ query: String, with launcher: String, windowClass: String, on display: VirtualDisplay) async throws
        -> Data
    {
        let output = sandbox.root.appendingPathComponent("picked-\(windowClass)")
        let pipeline = try shell(
            "\"$PB\" history --format dmenu | \(launcher) | \"$PB\" decode > \(TerminalSession.shellQuoted(output.path))",
            ["DISPLAY": display.name, "HOME": sandbox.home.path])
        defer { pipeline.terminate(grace: .seconds(1)) }
        let environment = ["DISPLAY": display.name, "PATH": sandbox.environment["PATH"] ?? "/usr/bin:/bin"]
        let xdotool = try tool("xdotool")
        let found = try ChildProcess(
            executable: xdotool, arguments: ["search", "--sync", "--onlyvisible", "--class", windowClass],
            environment: environment, stdin: nil, ioDirectory: io)
        let search = try await found.finish(timeout: .seconds(15))
        #expect(search.succeeded, "the \(windowClass) window never showed: \(pipeline.stderr)")
        try await Task.sleep(for: .milliseconds(300))  // it grabs the keyboard once shown
        for arguments in [["type", "--delay", "20", query], ["key", "Return"]] {
            _ = try await ChildProcess(
                executable: xdotool, arguments: arguments, environment: environment, stdin: nil, ioDirectory: io
            ).finish(timeout: .seconds(10))
        }
        let result = try await pipeline.finish(timeout: .seconds(15))
        #expect(result.succeeded, "\(launcher): \(result)")
        return try Data(contentsOf: output)
    }

    @Test func dmenuAndRofiRoundTripExactly() async throws {
        _ = try tool("dmenu")
        _ = try tool("rofi")
        try await seed()
        let display = try await VirtualDisplay(
            ioDirectory: io, requiredBy: "the dmenu and rofi tests", screen: "800x600x24")
        for (index, item) in Self.items.enumerated() {
            let picked: Data
            if index % 2 == 0 {
                picked = try await pick(item.query, with: "dmenu -l 20", windowClass: "dmenu", on: display)
            } else {
                picked = try await pick(
                    item.query, with: "rofi -dmenu -display-columns 2", windowClass: "rofi", on: display)
            }
            #expect(picked == item.payload, "\(item.query): \(picked.map { $0 })")
        }
    }

    /// Runs `launcher` on `sway` with `query` and Return typed into it (wtype), and returns what `pb decode` wrote.
    ///
    /// The seat of a headless sway has no keyboard until a virtual keyboard appears, and a client binds its
    /// wl_keyboard only once the seat announces one: a wtype started after the launcher creates its keyboard and
    /// types at once, before the launcher listens, so its keys were lost. And fuzzel 1.8.2 died of SIGSEGV at start
    /// when it came up just after the seat's last keyboard had gone (presumably bound with no keymap). So a wtype
    /// holding a keyboard comes first; the launcher runs with `WAYLAND_DEBUG=1`, and the keys are typed once its log
    /// shows the keyboard focus arriving (`wl_keyboard@N.enter`), however long it took to start.
    func pick(_ query: String, with launcher: String, on sway: HeadlessSway) async throws -> Data {
        let output = sandbox.root.appendingPathComponent("picked-\(UUID().uuidString.prefix(8))")
        let protocolLog = sandbox.root.appendingPathComponent("wayland-\(UUID().uuidString.prefix(8)).log")
        var environment = sandbox.environment
        environment["WAYLAND_DISPLAY"] = sway.socketPath
        let wtype = try tool("wtype")
        let keyboard = try ChildProcess(
            executable: wtype, arguments: ["-s", "60000", "-k", "F24"], environment: environment, stdin: nil,
            ioDirectory: io)
        defer { keyboard.terminate(grace: .milliseconds(200)) }
        try await Task.sleep(for: .milliseconds(300))
        let logged = TerminalSession.shellQuoted(protocolLog.path)
        let pipeline = try shell(
            "\"$PB\" history --format dmenu | WAYLAND_DEBUG=1 \(launcher) 2> \(logged)"
                + " | \"$PB\" decode > \(TerminalSession.shellQuoted(output.path))",
            ["WAYLAND_DISPLAY": sway.socketPath])
        defer { pipeline.terminate(grace: .seconds(1)) }
        let focused = try await eventually(within: .seconds(30), every: .milliseconds(50)) {
            guard pipeline.isRunning, let data = FileManager.default.contents(atPath: protocolLog.path) else {
                return !pipeline.isRunning
            }
            let text = String(decoding: data, as: UTF8.self)
            return text.range(of: #"wl_keyboard@[0-9]+\.enter\("#, options: .regularExpression) != nil
        }
        #expect(focused && pipeline.isRunning, "\(launcher) never got the keyboard focus")
        let typed = try await ChildProcess(
            // A second for the launcher to filter its rows before Return (at 300 ms, wofi under load took the first
            // row, another item).
            executable: wtype, arguments: [query, "-s", "1000", "-k", "Return"], environment: environment, stdin: nil,
            ioDirectory: io
        ).finish(timeout: .seconds(15))
        #expect(typed.succeeded, "wtype: \(typed)")
        let result = try await pipeline.finish(timeout: .seconds(30))
        #expect(result.succeeded, "\(launcher): \(result)")
        return (try? Data(contentsOf: output)) ?? Data()
    }

    @Test func wofiAndFuzzelRoundTripExactly() async throws {
        _ = try tool("wofi")
        _ = try tool("fuzzel")
        _ = try tool("wtype")
        try await seed()
        // A compositor of this test's own: the launchers take the seat's focus.
        let sway = try await HeadlessSway(requiredBy: "the wofi and fuzzel tests")
        for launcher in ["wofi --dmenu", "fuzzel --dmenu"] {
            for item in Self.items {
                let picked = try await pick(item.query, with: launcher, on: sway)
                #expect(picked == item.payload, "\(launcher), \(item.query): \(picked.map { $0 })")
            }
        }
    }
}
