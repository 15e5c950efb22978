import Foundation
import PasteboardTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One run of `pasteboard-gtk` in a world of its own: a private Xvfb (1024×768), private XDG directories, and
/// `pb daemon` when asked for. The test drives it like a person, with `xdotool`, and checks it through what a
/// person would see or get: its test log (`PASTEBOARD_GTK_TEST_LOG`, one line per visible change), screenshots
/// (`import -window root`), the clipboard (`xclip -o`) and the store (`pb history --json`).
final class AppSession: Sendable {
    let sandbox: ProcessSandbox
    let logURL: URL
    private let app = Mutex<ChildProcess?>(nil)
    private let daemon = Mutex<ChildProcess?>(nil)

    static let screenWidth = 1024
    static let screenHeight = 768

    init() async throws {
        for (tool, package) in Self.tools { _ = try Self.tool(tool, package: package) }
        sandbox = try await ProcessSandbox(
            label: "pbgtk", requiredBy: "the pasteboard-gtk integration tests",
            screen: "\(Self.screenWidth)x\(Self.screenHeight)x24")
        logURL = sandbox.root.appendingPathComponent("io/app-log.txt")
    }

    /// What the tests need besides Xvfb, and the Debian package of each.
    static let tools = [
        ("xdotool", "xdotool"), ("xclip", "xclip"), ("import", "imagemagick"), ("convert", "imagemagick"),
        ("python3", "python3"),
    ]

    /// A tool's path, or a `SetupFailure` saying how to install it (a missing tool fails the test, never skips it).
    static func tool(_ name: String, package: String) throws -> String {
        guard let path = executableOnPath(name) else {
            throw SetupFailure(
                "'\(name)' is needed by the pasteboard-gtk integration tests: apt-get install -y \(package)")
        }
        return path
    }

    // MARK: - pb

    /// Runs `pb` with `arguments`, headless (no DISPLAY) unless `display`, and throws unless it succeeds.
    @discardableResult
    func pb(_ arguments: [String], stdin: Data? = nil, display: Bool = false) async throws -> ProcessResult {
        let child = try sandbox.launch(
            try Product.pb.path(), arguments, stdin: stdin, environment: display ? [:] : ["DISPLAY": nil])
        let result = try await child.finish(timeout: .seconds(20))
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    /// Records `text` in the history (headless `pb copy`: nothing owns the display's clipboard); returns its id.
    @discardableResult
    func seed(_ text: String) async throws -> Int64 {
        try await pb(["copy"], stdin: Data(text.utf8))
        return try await newestID()
    }

    /// Records the file `url` (`pb copy FILE`, with `type` when given); returns its id.
    @discardableResult
    func seed(file url: URL, type: String? = nil) async throws -> Int64 {
        try await pb(["copy"] + (type.map { ["--type", $0] } ?? []) + [url.path])
        return try await newestID()
    }

    /// The history, newest first.
    func history(limit: Int = 100) async throws -> [[String: Any]] {
        let result = try await pb(["history", "--json", "--limit", String(limit)])
        guard let items = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]] else {
            throw SetupFailure("pb history --json printed no JSON array: \(result)")
        }
        return items
    }

    func newestID() async throws -> Int64 {
        guard let id = try await history(limit: 1).first?["id"] as? Int else {
            throw SetupFailure("the history is empty")
        }
        return Int64(id)
    }

    /// Starts `pb daemon` and waits until its socket answers.
    func startDaemon() async throws {
        let child = try sandbox.launch(try Product.pb.path(), ["daemon"])
        daemon.withLock { $0 = child }
        let up = try await eventually(within: .seconds(15), every: .milliseconds(20)) {
            !child.isRunning || access(sandbox.socketPath, F_OK) == 0
        }
        guard up, child.isRunning else { throw SetupFailure("pb daemon did not start: \(child.stderr)") }
    }

    /// Stops `pb daemon` (SIGTERM) and waits for it.
    func stopDaemon() async throws {
        guard let child = daemon.withLock({ $0 }) else { return }
        child.send(SIGTERM)
        _ = try await child.waitForExit(timeout: .seconds(10))
    }

    // MARK: - The app

    /// Starts the app (with `arguments`: `--popup`) and waits until its first frame is drawn and the window
    /// titled `title` has the focus.
    func launchApp(
        _ arguments: [String] = [], title: String = "Pasteboard History", environment extra: [String: String?] = [:]
    ) async throws {
        var environment = appEnvironment
        for (key, value) in extra { environment[key] = value }
        let mark = logLines().count
        let child = try sandbox.launch(try Product.pasteboardGTK.path(), arguments, environment: environment)
        app.withLock { $0 = child }
        try await waitForLog(after: mark, timeout: .seconds(20)) { $0 == "first frame" }
        try await focusWindow(named: title)
    }

    /// Starts `pasteboard-gtk --background` (the resident popup without the window) as the app, and waits until
    /// its popup is ready, hidden.
    func launchBackground() async throws {
        let mark = logLines().count
        let child = try sandbox.launch(try Product.pasteboardGTK.path(), ["--background"], environment: appEnvironment)
        app.withLock { $0 = child }
        try await waitForLog(after: mark, timeout: .seconds(20)) { $0 == "popup resident" }
    }

    /// Runs a command that asks for the popup (`pasteboard-gtk --popup`, `pb popup`) and waits for it to exit;
    /// its result. With a resident popup, it only hands the request over.
    func requestPopup(_ executable: String, _ arguments: [String]) async throws -> ProcessResult {
        let child = try sandbox.launch(executable, arguments, environment: appEnvironment)
        return try await child.finish(timeout: .seconds(20))
    }

    /// What the app runs with in every test: its test log, software rendering, no accessibility bus.
    var appEnvironment: [String: String?] {
        [
            "PASTEBOARD_GTK_TEST_LOG": logURL.path, "GSK_RENDERER": "cairo", "GTK_A11Y": "none",
            "NO_AT_BRIDGE": "1",
        ]
    }

    /// Ends the app (SIGTERM) and waits for it.
    func stopApp() async throws {
        guard let child = app.withLock({ $0 }) else { return }
        child.send(SIGTERM)
        _ = try await child.waitForExit(timeout: .seconds(5))
    }

    /// Waits until the app exits by itself; its exit status, or nil when it is still running.
    func appExit(timeout: Duration = .seconds(5)) async throws -> Int32? {
        guard let child = app.withLock({ $0 }) else { return nil }
        return try await child.waitForExit(timeout: timeout)?.status
    }

    /// The app's process id, while it runs.
    var appPID: pid_t? { app.withLock { $0.flatMap { $0.isRunning ? $0.pid : nil } } }

    /// Whether the app still runs.
    var appIsRunning: Bool { appPID != nil }

    /// What the app printed on standard error.
    var appErrors: String { app.withLock { $0?.stderr ?? "" } }

    /// GLib's warnings and criticals on the app's standard error (a wrong CSS name, a widget misused).
    var gtkComplaints: [String] {
        appErrors.split(separator: "\n").map(String.init).filter { $0.contains("-WARNING") || $0.contains("-CRITICAL") }
    }

    // MARK: - The test log

    /// The log's lines without their time stamps.
    func logLines() -> [String] {
        guard let data = FileManager.default.contents(atPath: logURL.path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            guard let space = line.firstIndex(of: " ") else { return String(line) }
            return String(line[line.index(after: space)...])
        }
    }

    /// Waits for a log line after the first `mark` lines that `matches` accepts, and returns it.
    @discardableResult
    func waitForLog(
        after mark: Int = 0, timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: @escaping (String) -> Bool
    ) async throws -> String {
        var found: String?
        _ = try await eventually(within: timeout, every: .milliseconds(25)) {
            found = logLines().dropFirst(mark).first(where: matches)
            return found != nil || app.withLock({ $0.map { !$0.isRunning } ?? false })
        }
        guard let found else {
            let lines = logLines().dropFirst(mark).suffix(30).joined(separator: "\n")
            throw SetupFailure(
                "the app's log did not show the expected line; it shows:\n\(lines)\nstderr: \(appErrors.suffix(2000))")
        }
        return found
    }

    // MARK: - Driving it

    private func xdotool(_ arguments: [String]) async throws {
        let xdotool = try Self.tool("xdotool", package: "xdotool")
        let result = try await sandbox.run(xdotool, arguments, timeout: .seconds(10))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    /// Gives the window the keyboard focus (there is no window manager) and parks the pointer where hovering
    /// selects nothing.
    func focusWindow(named title: String = "Pasteboard History") async throws {
        try await xdotool(["mousemove", "1020", "764"])
        try await xdotool(["search", "--sync", "--onlyvisible", "--name", "^\(title)$", "windowfocus", "--sync"])
    }

    func movePointer(x: Int, y: Int) async throws { try await xdotool(["mousemove", String(x), String(y)]) }

    /// Drags with the first button from one point to another in small steps, as a hand does (GTK starts a drag
    /// after the pointer moved a few pixels with the button down, and follows the motion to the target).
    func drag(from start: (x: Int, y: Int), to end: (x: Int, y: Int)) async throws {
        try await xdotool(["mousemove", String(start.x), String(start.y), "mousedown", "1"])
        for step in 1...12 {
            let x = start.x + (end.x - start.x) * step / 12
            let y = start.y + (end.y - start.y) * step / 12
            try await xdotool(["mousemove", String(x), String(y)])
            try await Task.sleep(for: .milliseconds(40))
        }
        try await Task.sleep(for: .milliseconds(250))
        try await xdotool(["mouseup", "1"])
    }

    /// Moves another application's window to x, y and raises it above the app's (there is no window manager).
    func placeWindow(named title: String, x: Int, y: Int) async throws {
        try await xdotool(
            ["search", "--sync", "--onlyvisible", "--name", "^\(title)$", "windowmove", "--sync", String(x), String(y)])
        try await xdotool(["search", "--onlyvisible", "--name", "^\(title)$", "windowraise"])
    }

    func resizeWindow(named title: String = "Pasteboard History", width: Int, height: Int) async throws {
        try await xdotool(
            ["search", "--sync", "--onlyvisible", "--name", "^\(title)$", "windowsize", "--sync", String(width), String(height)])
    }

    /// How many mapped windows have exactly this title.
    func visibleWindows(named title: String) async throws -> Int {
        let xdotool = try Self.tool("xdotool", package: "xdotool")
        let result = try await sandbox.run(xdotool, ["search", "--onlyvisible", "--name", "^\(title)$"], timeout: .seconds(10))
        return result.output.split(separator: "\n").count
    }

    func key(_ keys: String...) async throws {
        for key in keys { try await xdotool(["key", key]) }
    }

    func type(_ text: String) async throws { try await xdotool(["type", "--delay", "8", text]) }

    /// A click with `modifier` (`ctrl`, `shift`) held.
    func click(x: Int, y: Int, holding modifier: String) async throws {
        try await xdotool(["mousemove", String(x), String(y), "keydown", modifier, "click", "1", "keyup", modifier])
        try await xdotool(["mousemove", "1020", "764"])
    }

    func click(x: Int, y: Int) async throws {
        try await xdotool(["mousemove", String(x), String(y), "click", "1"])
        try await xdotool(["mousemove", "1020", "764"])
    }

    // MARK: - Checking it

    /// `xclip -selection clipboard -o [-t target]`.
    func clipboard(target: String? = nil) async throws -> Data {
        let xclip = try Self.tool("xclip", package: "xclip")
        let result = try await sandbox.run(
            xclip, ["-selection", "clipboard", "-o"] + (target.map { ["-t", $0] } ?? []), timeout: .seconds(10))
        return result.succeeded ? result.stdout : Data()
    }

    /// Waits until the clipboard's text is `text`; true when it is.
    func clipboardBecomes(_ text: String, target: String? = nil) async throws -> Bool {
        try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            try await clipboard(target: target) == Data(text.utf8)
        }
    }

    /// A screenshot of the whole screen, as a PNG file.
    func screenshot(_ name: String) async throws -> URL {
        let importTool = try Self.tool("import", package: "imagemagick")
        let url = sandbox.root.appendingPathComponent("io/\(name).png")
        let result = try await sandbox.run(importTool, ["-window", "root", url.path], timeout: .seconds(20))
        guard result.succeeded else { throw CommandFailed(result: result) }
        return url
    }

    /// Width, height and number of distinct colours of an image (ImageMagick's `%w %h %k`).
    func imageStatistics(_ url: URL) async throws -> (width: Int, height: Int, colours: Int) {
        let output = try await magick(url, format: "%w %h %k")
        let numbers = output.split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 3 else { throw SetupFailure("ImageMagick printed \(output)") }
        return (numbers[0], numbers[1], numbers[2])
    }

    /// The fraction of an image's pixels that are (almost) pure red: where a red test picture is drawn.
    func redFraction(_ url: URL) async throws -> Double {
        let convert = try Self.tool("convert", package: "imagemagick")
        let result = try await sandbox.run(
            convert,
            [
                url.path, "-fuzz", "8%", "-fill", "white", "-opaque", "#ff0000", "-fill", "black", "+opaque", "white",
                "-format", "%[fx:mean]", "info:",
            ],
            timeout: .seconds(20))
        guard result.succeeded, let value = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CommandFailed(result: result)
        }
        return value
    }

    private func magick(_ url: URL, format: String) async throws -> String {
        let convert = try Self.tool("convert", package: "imagemagick")
        let result = try await sandbox.run(convert, [url.path, "-format", format, "info:"], timeout: .seconds(20))
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A solid red PNG of `width` × `height`, written under the sandbox's files.
    func redPNG(width: Int = 64, height: Int = 48) async throws -> URL {
        let convert = try Self.tool("convert", package: "imagemagick")
        let url = sandbox.root.appendingPathComponent("files/red.png")
        let result = try await sandbox.run(convert, ["-size", "\(width)x\(height)", "xc:#ff0000", url.path])
        guard result.succeeded else { throw CommandFailed(result: result) }
        return url
    }
}
