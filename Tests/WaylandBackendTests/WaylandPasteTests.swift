import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--paste` on Wayland, as a user would see it: a real GTK 4 entry has the focus, a picker opens its own window
/// (`pb pick` in foot, the popup of `pasteboard-gtk`), and once that window closes the compositor gives the focus
/// back to the entry, which receives the chosen item typed by pb's virtual keyboard. In the serialized suite: one
/// seat, one focus.
extension WaylandTests {
    @Test func pickPastesIntoTheWindowFocusedBeforeItsTerminalOpened() async throws {
        let session = try await WaylandSession()
        let keyboard = try session.keyboard()
        defer { keyboard.terminate(grace: .milliseconds(200)) }
        try await session.seed("an older item")
        try await session.seed("pasted ✓ by pb pick in foot")
        let entry = try await session.entry()
        defer { entry.terminate(grace: .seconds(1)) }
        #expect(try await session.focusedWindow() == "paste target")

        // What a hotkey bound to `foot pb pick --paste` starts; the new terminal takes the focus.
        let foot = try session.sandbox.launch(
            try WaylandSession.tool("foot", package: "foot"), [try Product.pb.path(), "pick", "--paste"])
        defer { foot.terminate(grace: .seconds(1)) }
        let footFocused = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            try await session.focusedApp() == "foot" || !foot.isRunning
        }
        #expect(footFocused && foot.isRunning, "foot: \(foot.stderr.suffix(800))")
        try await Task.sleep(for: .milliseconds(600))  // the picker's first screen (it asks the terminal first)
        try await session.wtype(["-k", "Return"])
        #expect(try await foot.waitForExit(timeout: .seconds(10)) != nil, "pb pick and its terminal exit")

        let pasted = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            WaylandSession.texts(of: entry).last == "pasted ✓ by pb pick in foot"
        }
        #expect(pasted, "the entry shows \(WaylandSession.texts(of: entry))")
        #expect(try await session.focusedWindow() == "paste target", "the focus went back to the entry")
        let clipboard = try await session.wlPaste()
        #expect(clipboard.output == "pasted ✓ by pb pick in foot", "\(clipboard)")
    }

    @Test func thePopupPastesIntoTheWindowThatHadTheFocus() async throws {
        let session = try await WaylandSession()
        let keyboard = try session.keyboard()
        defer { keyboard.terminate(grace: .milliseconds(200)) }
        try await session.seed("pasted by the popup")
        try await session.seed("another item")
        let entry = try await session.entry()
        defer { entry.terminate(grace: .seconds(1)) }

        let log = session.sandbox.root.appendingPathComponent("io/popup-log.txt")
        let popup = try session.sandbox.launch(
            try Product.pasteboardGTK.path(), ["--popup", "--paste"],
            environment: [
                "GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
                "PASTEBOARD_GTK_TEST_LOG": log.path,
            ])
        defer { popup.terminate(grace: .seconds(1)) }
        let logged = { (line: String) async throws -> Bool in
            try await eventually(within: .seconds(15), every: .milliseconds(50)) {
                WaylandSession.lines(of: log).contains(line) || !popup.isRunning
            }
        }
        #expect(try await logged("rows 2"), "\(WaylandSession.lines(of: log)) \(popup.stderr.suffix(800))")
        let popupFocused = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            try await session.focusedWindow() == "Pasteboard Popup"
        }
        #expect(popupFocused)
        try await session.wtype(["by the popup"])
        #expect(try await logged("rows 1"), "\(WaylandSession.lines(of: log))")
        try await session.wtype(["-k", "Return"])
        #expect(try await logged("pasted"), "\(WaylandSession.lines(of: log)) \(popup.stderr.suffix(800))")
        let pasted = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            WaylandSession.texts(of: entry).last == "pasted by the popup"
        }
        #expect(pasted, "the entry shows \(WaylandSession.texts(of: entry))")
        #expect(try await popup.waitForExit(timeout: .seconds(5)) == .init(status: 0, wasSignalled: false))
    }
}

extension WaylandSession {
    /// A keyboard on the seat for the whole test (`wtype` holding its virtual keyboard), as a desktop has one:
    /// clients bind a wl_keyboard only when the seat has a keyboard, and `wtype` alone sends its keys at once,
    /// before they could.
    func keyboard() throws -> ChildProcess {
        try sandbox.launch(try Self.tool("wtype", package: "wtype"), ["-s", "120000", "-k", "F24"])
    }

    /// Runs `wtype` with `arguments` and expects it to succeed.
    func wtype(_ arguments: [String]) async throws {
        let result = try await sandbox.run(try Self.tool("wtype", package: "wtype"), arguments, timeout: .seconds(10))
        #expect(result.succeeded, "wtype \(arguments): \(result)")
    }

    /// Records `text` in the history without touching the compositor's clipboard (pb without a display).
    func seed(_ text: String) async throws {
        let result = try await sandbox.launch(
            try Product.pb.path(), ["copy"], stdin: Data(text.utf8),
            environment: ["WAYLAND_DISPLAY": nil, "DISPLAY": nil]
        ).finish(timeout: .seconds(20))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    /// A file in `Tests/WaylandBackendTests/Support`, where `TestSource.fixtures` counts from.
    private static let supportFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Support/WaylandSession.swift").path

    /// `Tests/Fixtures/gtk4-wayland-entry.py` under `GDK_BACKEND=wayland`, once its window is mapped (sway then
    /// focuses it, as the newest window).
    func entry() async throws -> ChildProcess {
        let script = TestSource.fixtures(filePath: Self.supportFile).appendingPathComponent("gtk4-wayland-entry.py")
        let entry = try sandbox.launch(
            "/usr/bin/python3", [script.path],
            environment: ["GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"])
        let ready = try await eventually(within: .seconds(20), every: .milliseconds(50)) {
            !entry.isRunning || String(decoding: entry.stdout, as: UTF8.self).split(separator: "\n").contains("ready")
        }
        guard ready, entry.isRunning else { throw SetupFailure("The GTK 4 entry did not start: \(entry.stderr)") }
        let focused = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            try await focusedWindow() == "paste target"
        }
        guard focused else { throw SetupFailure("sway did not focus the GTK 4 entry's window") }
        return entry
    }

    /// The texts the entry reported, in order.
    static func texts(of entry: ChildProcess) -> [String] {
        String(decoding: entry.stdout, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("TEXT: ") }
            .compactMap { try? JSONDecoder().decode(String.self, from: Data($0.dropFirst(6).utf8)) }
    }

    /// A test log's lines without their time stamps.
    static func lines(of log: URL) -> [String] {
        guard let data = FileManager.default.contents(atPath: log.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            line.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        }
    }

    /// The title of the window sway focuses now (its IPC, `swaymsg -t get_tree`), or nil.
    func focusedWindow() async throws -> String? { try await focusedNode()?["name"] as? String }

    /// The Wayland app id of the window sway focuses now, or nil.
    func focusedApp() async throws -> String? { try await focusedNode()?["app_id"] as? String }

    private func focusedNode() async throws -> [String: Any]? {
        let runtime = URL(fileURLWithPath: sway.socketPath).deletingLastPathComponent()
        let names = try FileManager.default.contentsOfDirectory(atPath: runtime.path)
        guard let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }) else {
            throw SetupFailure("sway's IPC socket is missing from \(runtime.path)")
        }
        let swaymsg = try Self.tool("swaymsg", package: "sway")
        let result = try await sandbox.run(
            swaymsg, ["-s", runtime.appendingPathComponent(ipc).path, "-t", "get_tree"], timeout: .seconds(10))
        guard result.succeeded, let tree = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        else {
            throw SetupFailure("swaymsg -t get_tree failed: \(result)")
        }
        var pending = [tree]
        while let node = pending.popLast() {
            if node["focused"] as? Bool == true { return node }
            pending += (node["nodes"] as? [[String: Any]] ?? []) + (node["floating_nodes"] as? [[String: Any]] ?? [])
        }
        return nil
    }
}
