import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The app under Wayland (`GDK_BACKEND=wayland`) on a headless sway of its own (one seat, so one clipboard, apart
/// from the Wayland backend tests' compositor): the window appears, typing and Enter copies, the resident
/// popup shows on `pb popup`, filters and copies, and Ctrl+, opens the settings, which save. Keys come from `wtype` (the virtual keyboard), the clipboard is
/// read with `wl-paste`.
@Suite(.serialized, .timeLimit(.minutes(2))) struct WaylandAppTests {
    let sway: HeadlessSway
    let sandbox: ProcessSandbox
    let logURL: URL

    init() async throws {
        sway = try await WaylandAppTests.compositor.get()
        sandbox = try ProcessSandbox(label: "pbgtkwl", environment: ["WAYLAND_DISPLAY": sway.socketPath])
        logURL = sandbox.root.appendingPathComponent("io/app-log.txt")
    }

    /// This suite's compositor, started on first use.
    private static let compositor = Compositor()

    private actor Compositor {
        var started: HeadlessSway?
        func get() async throws -> HeadlessSway {
            if let started { return started }
            let sway = try await HeadlessSway(requiredBy: "the pasteboard-gtk Wayland tests")
            started = sway
            return sway
        }
    }

    @Test func theWindowAppearsAndTypingThenEnterCopies() async throws {
        let daemon = try await startDaemon()
        defer { daemon.terminate(grace: .seconds(1)) }
        try await pb(["copy"], stdin: Data("older item".utf8))
        let app = try launch([])
        defer { app.terminate(grace: .milliseconds(500)) }
        try await waitForLog(app) { $0 == "first frame" }
        #expect(logLines().contains("rows 1"), "\(logLines())")
        try await waitUntilActive(app, line: "window active")

        try await type("typed under wayland")
        try await key("Return")
        try await waitForLog(app) { $0 == "rows 2" }
        #expect(try await clipboardBecomes("typed under wayland"))
        let newest = try await pb(["history", "--limit", "1", "--json"])
        #expect(newest.output.contains("typed under wayland"), "\(newest)")
    }

    @Test func theResidentPopupShowsFiltersAndCopies() async throws {
        let daemon = try await startDaemon()
        defer { daemon.terminate(grace: .seconds(1)) }
        try await pb(["copy"], stdin: Data("wayland alpha".utf8))
        try await pb(["copy"], stdin: Data("wayland needle".utf8))
        let resident = try launch(["--background"])
        defer { resident.terminate(grace: .milliseconds(500)) }
        try await waitForLog(resident) { $0 == "popup resident" }

        let mark = logLines().count
        let asked = try await sandbox.launch(try Product.pb.path(), ["popup"]).finish(timeout: .seconds(20))
        #expect(asked.succeeded, "\(asked)")
        try await waitForLog(resident, after: mark) { $0 == "popup drawn" }
        try await waitUntilActive(resident, after: mark, line: "popup active")
        try await type("needle")
        try await waitForLog(resident, after: mark) { $0 == "rows 1" }
        try await key("Return")
        try await waitForLog(resident, after: mark) { $0 == "popup closed: copied" }
        #expect(try await clipboardBecomes("wayland needle"))
        #expect(resident.isRunning, "the resident stays")
    }

    @Test func ctrlCommaOpensTheSettingsAndApplyWritesTheConfiguration() async throws {
        let config = sandbox.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("# by hand\nmax-items = 500\n".utf8).write(to: config)
        let daemon = try await startDaemon()
        defer { daemon.terminate(grace: .seconds(1)) }
        let app = try launch([])
        defer { app.terminate(grace: .milliseconds(500)) }
        try await waitForLog(app) { $0 == "first frame" }
        try await waitUntilActive(app, line: "window active")

        let mark = logLines().count
        let chord = try await sandbox.run(
            try tool("wtype", package: "wtype"), ["-s", "300", "-M", "ctrl", "-k", "comma", "-m", "ctrl"],
            timeout: .seconds(10))
        #expect(chord.succeeded, "\(chord)")
        try await waitForLog(app, after: mark) { $0 == "settings open" }
        try await waitUntilActive(app, after: mark, line: "settings active")
        // The focus starts in "Keep at most (items)".
        let select = try await sandbox.run(
            try tool("wtype", package: "wtype"), ["-s", "300", "-M", "ctrl", "-k", "a", "-m", "ctrl"], timeout: .seconds(10))
        #expect(select.succeeded, "\(select)")
        try await type("42")
        try await key("Return")
        try await waitForLog(app, after: mark) { $0 == "settings saved: max-items" }
        #expect(try String(contentsOf: config, encoding: .utf8) == "# by hand\nmax-items = 42\n")
        #expect(try await pb(["prune"]).output == "Deleted 0 items.\n")
    }

    /// Issue 26 on Wayland: accent-insensitive search with highlighted matches, marks and a paste stack, paste as
    /// plain text, and edit before paste.
    @Test func searchMarksPlainTextAndEditWorkOnWayland() async throws {
        let daemon = try await startDaemon()
        defer { daemon.terminate(grace: .seconds(1)) }
        try await pb(["copy"], stdin: Data("Ünïcödé text".utf8))
        try await pb(["copy"], stdin: Data("second".utf8))
        try await pb(["copy"], stdin: Data("third".utf8))
        let history = try await pb(["history", "--json"]).stdout
        let items = try #require(try JSONSerialization.jsonObject(with: history) as? [[String: Any]])
        func id(_ text: String) throws -> Int { try #require(items.first { $0["preview"] as? String == text }?["id"] as? Int) }
        let (third, second) = (try id("third"), try id("second"))
        let app = try launch([])
        defer { app.terminate(grace: .milliseconds(500)) }
        try await waitForLog(app) { $0 == "first frame" }
        try await waitUntilActive(app, line: "window active")

        // Search: "unic" finds "Ünïcödé", in bold.
        var mark = logLines().count
        try await chord("ctrl", "f")
        try await type("unic")
        try await waitForLog(app, after: mark) { $0.hasPrefix("row marked ") && $0.contains("<b>Ünïc</b>") }
        try await key("Escape")
        try await waitForLog(app, after: mark) { $0 == "rows 3" }

        // Marks: the newest, then Shift+Right; Enter makes a paste stack.
        mark = logLines().count
        try await chord("ctrl", "f")
        try await key("Down")
        try await waitForLog(app, after: mark) { $0.hasPrefix("preview text \(third) ") }
        try await chord("ctrl", "space")
        try await waitForLog(app, after: mark) { $0 == "marked \(third)" }
        try await chord("shift", "Right")
        try await waitForLog(app, after: mark) { $0 == "marked \(third),\(second)" }
        try await key("Return")
        try await waitForLog(app, after: mark) { $0 == "stacked \(third),\(second)" }
        let wlPaste = try tool("wl-paste", package: "wl-clipboard")
        let first = try await sandbox.run(wlPaste, ["--no-newline"], timeout: .seconds(10))
        #expect(first.output == "third", "\(first)")
        #expect(try await clipboardBecomes("second"), "the next paste gets the next item")

        // Paste as plain text, then edit before paste, on the selected row.
        mark = logLines().count
        try await chord("shift", "Return")
        try await waitForLog(app, after: mark) { $0.hasSuffix(" as plain text") }
        try await chord("ctrl", "e")
        try await waitForLog(app, after: mark) { $0.hasPrefix("editing ") }
        try await type("edited ")
        try await chord("ctrl", "Return")
        try await waitForLog(app, after: mark) { $0.hasPrefix("copied edited ") }
        let newest = try await pb(["history", "--limit", "1", "--json"])
        #expect(newest.output.contains("edited") && newest.output.contains("second"), "\(newest)")
    }

    /// A key with a modifier held, in one wtype run (across runs, sway kept the modifier of the last one down).
    private func chord(_ modifier: String, _ name: String) async throws {
        let result = try await sandbox.run(
            try tool("wtype", package: "wtype"), ["-s", "300", "-M", modifier, "-k", name, "-m", modifier],
            timeout: .seconds(10))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    // MARK: - Helpers

    private func launch(_ arguments: [String]) throws -> ChildProcess {
        try sandbox.launch(
            try Product.pasteboardGTK.path(), arguments,
            environment: [
                "GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
                "PASTEBOARD_GTK_TEST_LOG": logURL.path,
            ])
    }

    private func startDaemon() async throws -> ChildProcess {
        let daemon = try sandbox.launch(try Product.pb.path(), ["daemon"])
        let ready = try await eventually(within: .seconds(15), every: .milliseconds(20)) {
            !daemon.isRunning || String(decoding: daemon.stdout, as: UTF8.self).contains("Pasteboard daemon")
        }
        guard ready, daemon.isRunning else { throw SetupFailure("pb daemon did not start: \(daemon.stderr)") }
        return daemon
    }

    @discardableResult
    private func pb(_ arguments: [String], stdin: Data? = nil) async throws -> ProcessResult {
        let result = try await sandbox.launch(try Product.pb.path(), arguments, stdin: stdin).finish(
            timeout: .seconds(20))
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    private func tool(_ name: String, package: String) throws -> String {
        guard let path = executableOnPath(name) else {
            throw SetupFailure("'\(name)' is needed by the pasteboard-gtk Wayland tests: apt-get install -y \(package)")
        }
        return path
    }

    private func type(_ text: String) async throws {
        // wtype makes a new virtual keyboard each run: it waits (-s) until the focused app has its keymap.
        let result = try await sandbox.run(
            try tool("wtype", package: "wtype"), ["-s", "300", "-d", "10", text], timeout: .seconds(10))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    private func key(_ name: String) async throws {
        let result = try await sandbox.run(
            try tool("wtype", package: "wtype"), ["-s", "300", "-k", name], timeout: .seconds(10))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    /// Waits until the app logs `line` (its window is active). The seat has a keyboard only while a virtual one
    /// exists, so a Shift press (which types nothing) is sent until the compositor focuses the window.
    private func waitUntilActive(_ process: ChildProcess, after mark: Int = 0, line: String) async throws {
        let active = try await eventually(within: .seconds(15), every: .milliseconds(100)) {
            if logLines().dropFirst(mark).contains(line) || !process.isRunning { return true }
            try await key("Shift_L")
            return logLines().dropFirst(mark).contains(line)
        }
        guard active, process.isRunning else {
            throw SetupFailure(
                "the window never became active: \(logLines().suffix(20)) \(process.stderr.suffix(1000))")
        }
    }

    private func clipboardBecomes(_ text: String) async throws -> Bool {
        let wlPaste = try tool("wl-paste", package: "wl-clipboard")
        return try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            let result = try await sandbox.run(wlPaste, ["--no-newline"], timeout: .seconds(10))
            return result.succeeded && result.stdout == Data(text.utf8)
        }
    }

    private func logLines() -> [String] {
        guard let data = FileManager.default.contents(atPath: logURL.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            guard let space = line.firstIndex(of: " ") else { return String(line) }
            return String(line[line.index(after: space)...])
        }
    }

    private func waitForLog(
        _ process: ChildProcess, after mark: Int = 0, _ matches: @escaping (String) -> Bool
    ) async throws {
        var found = false
        _ = try await eventually(within: .seconds(15), every: .milliseconds(25)) {
            found = logLines().dropFirst(mark).contains(where: matches)
            return found || !process.isRunning
        }
        guard found else {
            throw SetupFailure(
                "the app's log did not show the expected line; it shows:\n"
                    + logLines().suffix(30).joined(separator: "\n") + "\nstderr: \(process.stderr.suffix(2000))")
        }
    }
}
