import Foundation
import PasteboardTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One Chromium shared by the Chromium tests (it takes seconds to start): a real browser window, not headless, on
/// an Xvfb of its own that lives until the test process exits, showing pages from a `LoopbackHTTPServer` in this
/// process. Each test runs its own `pb daemon` on that display with a fresh store (`X11Session(sharing:)`).
///
/// Chromium is driven as a person would: xdotool focuses its window, types an address, clicks (a page script
/// copies on click with `document.execCommand('copy')`) or opens the context menu. Started on first use, and
/// again after a test closed it (`close()`). A missing `chromium` or `xdotool` fails the test.
final class ChromiumDesk: Sendable {
    let display: VirtualDisplay
    let server: LoopbackHTTPServer
    private let root: URL
    private let browser = Mutex<(process: ChildProcess, window: String)?>(nil)
    /// Removes the desk's directory once this test process is gone (kept, never released).
    private let janitor: ChildProcess

    /// Serializes start-up: the first test to ask starts the desk, the others wait for it.
    private static let starting = Mutex<Task<ChromiumDesk, any Error>?>(nil)

    /// The desk, started on first use.
    static func shared() async throws -> ChromiumDesk {
        let task = starting.withLock { task in
            if let task { return task }
            let started = Task { try await ChromiumDesk() }
            task = started
            return started
        }
        do {
            return try await task.value
        } catch {
            starting.withLock { $0 = nil }  // let the next test try again, and fail with its own message
            throw error
        }
    }

    private init() async throws {
        guard executableOnPath("chromium") != nil else {
            throw SetupFailure("chromium is needed by the Chromium tests: apt-get install -y chromium")
        }
        guard executableOnPath("xdotool") != nil else {
            throw SetupFailure("xdotool is needed by the Chromium tests: apt-get install -y xdotool")
        }
        root = URL(fileURLWithPath: "/tmp/pb-chromium-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("io"), withIntermediateDirectories: true)
        janitor = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; rm -rf \"$0\"", root.path],
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], stdin: nil,
            ioDirectory: root)
        display = try await VirtualDisplay(
            ioDirectory: root.appendingPathComponent("io"), lifetime: .testProcess, requiredBy: "the Chromium tests",
            screen: "1024x768x24")
        server = try LoopbackHTTPServer(pages: ChromiumPages.all)
    }

    /// The browser's top-level window, starting Chromium when it does not run.
    func window() async throws -> String {
        if let running = browser.withLock({ $0 }), running.process.isRunning { return running.window }
        let profile = root.appendingPathComponent("profile-\(UUID().uuidString.prefix(8))")
        let arguments = [
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
            "--no-default-browser-check", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-features=Translate,MediaRouter", "--password-store=basic",
            "--window-position=0,0", "--window-size=1024,768", server.url("/blank.html"),
        ]
        // The shell stops Chromium and removes its profile when this test process is gone, or when asked (TERM).
        let script = """
            "$0" "$@" >/dev/null 2>&1 & browser=$!
            stop() { kill $browser 2>/dev/null; wait $browser; rm -rf "\(profile.path)"; exit 0; }
            trap stop TERM INT
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $browser 2>/dev/null; do sleep 0.2; done
            stop
            """
        let chromium = executableOnPath("chromium") ?? "/usr/bin/chromium"
        let process = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", script, chromium] + arguments,
            environment: [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "DISPLAY": display.name,
                "HOME": root.path, "LANG": "C.UTF-8", "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
                "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
            ],
            stdin: nil, ioDirectory: root.appendingPathComponent("io"))
        let window: String
        do {
            window = try await Self.visibleWindow(
                named: "^pb-blank", on: display, io: root.appendingPathComponent("io"), timeout: .seconds(30))
        } catch {
            process.send(SIGTERM)  // the shell stops Chromium before it goes
            _ = try await process.waitForExit(timeout: .seconds(20))
            throw error
        }
        browser.withLock { $0 = (process, window) }
        return window
    }

    /// Stops Chromium (SIGTERM: its normal exit, which hands the clipboard to the clipboard manager) and waits
    /// until it is gone. The next `window()` starts it again.
    func close() async throws {
        guard let running = browser.withLock({ $0 }) else { return }
        running.process.send(SIGTERM)
        guard try await running.process.waitForExit(timeout: .seconds(20)) != nil else {
            throw SetupFailure("Chromium did not exit within 20 s of SIGTERM")
        }
        browser.withLock { $0 = nil }
    }

    /// Shows the page at `path` (with a fresh query, so it loads anew) and waits until its title says it loaded.
    func open(_ path: String, in session: X11Session) async throws -> String {
        let window = try await window()
        let token = UUID().uuidString.prefix(8)
        try await session.xdotool(["windowfocus", "--sync", window])
        try await session.xdotool(["key", "ctrl+l"])
        try await session.xdotool(["type", "--delay", "2", server.url(path) + "?\(token)"])
        try await session.xdotool(["key", "Return"])
        try await waitForTitle(window, containing: String(token), in: session)
        return window
    }

    /// Reloads the page shown and waits until it loaded again (each load writes a new title).
    func reload(_ window: String, in session: X11Session) async throws {
        let before = try await session.windowName(window)
        try await session.xdotool(["windowfocus", "--sync", window])
        try await session.xdotool(["key", "F5"])
        let reloaded = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            let now = try await session.windowName(window)
            return now != before && now.contains("loaded")
        }
        guard reloaded else { throw SetupFailure("Chromium did not reload the page within 15 s") }
    }

    /// Left-clicks inside the page (the test pages copy on click) until the page says it copied: a click that
    /// comes while Chromium still settles the page it just showed can be lost.
    func click(_ window: String, in session: X11Session) async throws {
        let before = Self.copies(in: try await session.windowName(window))
        for _ in 1...5 {
            try await session.xdotool(["mousemove", "--window", window, "512", "500", "click", "1"])
            let copied = try await eventually(within: .milliseconds(1500), every: .milliseconds(50)) {
                Self.copies(in: try await session.windowName(window)) > before
            }
            if copied { return }
        }
        throw SetupFailure("The page did not copy after 5 clicks (title: \(try await session.windowName(window)))")
    }

    /// Opens the context menu on the page (its pictures fill the page) and picks the `index`-th entry (from 1) with
    /// the keyboard: 3 is "Copy image" for a picture.
    func contextMenu(_ window: String, pick index: Int, in session: X11Session) async throws {
        let before = try await Self.visibleWindows(on: session)
        for _ in 1...5 {
            try await session.xdotool(["mousemove", "--window", window, "512", "500", "click", "3"])
            let opened = try await eventually(within: .milliseconds(1500), every: .milliseconds(20)) {
                try await Self.visibleWindows(on: session).count > before.count
            }
            if opened {
                try await session.xdotool(["key"] + Array(repeating: "Down", count: index) + ["Return"])
                return
            }
        }
        throw SetupFailure("Chromium's context menu did not open after 5 right-clicks")
    }

    /// How many copies the page reported in its title (`… copied N`).
    private static func copies(in title: String) -> Int {
        guard let range = title.range(of: "copied ") else { return 0 }
        return Int(title[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    private func waitForTitle(_ window: String, containing text: String, in session: X11Session) async throws {
        let loaded = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            let name = try await session.windowName(window)
            return name.contains(text) && name.contains("loaded")
        }
        guard loaded else {
            throw SetupFailure(
                "Chromium did not show the page within 15 s (title: \(try await session.windowName(window)))")
        }
    }

    private static func visibleWindows(on session: X11Session) async throws -> [String] {
        let result = try await session.sandbox.run(
            executableOnPath("xdotool") ?? "/usr/bin/xdotool", ["search", "--onlyvisible", "--name", ".*"],
            timeout: .seconds(10))
        return result.output.split(separator: "\n").map(String.init)
    }

    private static func visibleWindow(named name: String, on display: VirtualDisplay, io: URL, timeout: Duration)
        async throws
        -> String
    {
        let xdotool = executableOnPath("xdotool") ?? "/usr/bin/xdotool"
        var found: String?
        _ = try await eventually(within: timeout, every: .milliseconds(100)) {
            // The output files stay in the desk's directory, removed with it when the test process is gone.
            let search = try ChildProcess(
                executable: xdotool, arguments: ["search", "--onlyvisible", "--name", name],
                environment: ["DISPLAY": display.name], stdin: nil, ioDirectory: io)
            let result = try await search.finish(timeout: .seconds(10))
            found = result.output.split(separator: "\n").first.map(String.init)
            return found != nil
        }
        guard let found else { throw SetupFailure("Chromium's window did not appear within \(timeout).") }
        return found
    }
}

/// The pages the Chromium tests show. Each sets its title to `pb-NAME loaded TIME` when it has loaded, so a
/// test can tell a reload from the page before; the copying pages fill the window, so a click anywhere hits.
enum ChromiumPages {
    static let pictureBytes = Payloads.png

    static var all: [String: (type: String, body: Data)] {
        [
            "/blank.html": ("text/html", page("blank", body: "")),
            "/text.html": (
                "text/html",
                page(
                    "text",
                    body: """
                        <div id="t" style="width:100vw;height:100vh">Copied from Chromium, <b>twice</b></div>
                        <script>
                        document.addEventListener('click', () => {
                          const range = document.createRange();
                          range.selectNodeContents(document.getElementById('t'));
                          getSelection().removeAllRanges();
                          getSelection().addRange(range);
                          document.execCommand('copy');
                        });
                        </script>
                        """)
            ),
            "/picture.html": (
                "text/html",
                page(
                    "picture",
                    body: """
                        <img src="/picture.png" alt="a picture" style="display:block;width:100vw;height:100vh">
                        """)
            ),
            "/picture.png": ("image/png", pictureBytes),
            "/secret.html": (
                "text/html",
                page(
                    "secret",
                    body: """
                        <div style="width:100vw;height:100vh">a password field</div>
                        <script>
                        document.addEventListener('copy', (event) => {
                          event.clipboardData.setData('text/plain', 'PB-SECRET-FROM-A-PAGE hunter2');
                          event.clipboardData.setData('x-kde-passwordManagerHint', 'secret');
                          event.preventDefault();
                        });
                        document.addEventListener('click', () => document.execCommand('copy'));
                        </script>
                        """)
            ),
        ]
    }

    private static func page(_ name: String, body: String) -> Data {
        Data(
            """
            <!doctype html><meta charset="utf-8"><title>pb-\(name)</title>
            <body style="margin:0;overflow:hidden">
            \(body)
            <script>
            // The title says the page is shown (two frames after load) and how many copies it made.
            const base = 'pb-\(name) ' + location.search + ' loaded ' + performance.timeOrigin;
            let copies = 0;
            document.addEventListener('copy', () => {
              copies += 1;
              setTimeout(() => document.title = base + ' copied ' + copies, 0);
            });
            addEventListener('load', () => requestAnimationFrame(() => requestAnimationFrame(() => {
              document.title = base;
            })));
            </script>
            </body>
            """.utf8)
    }
}
