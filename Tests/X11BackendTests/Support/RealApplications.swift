import Foundation
import PasteboardTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The toolkits whose own clipboard code the owners in `Tests/Fixtures` drive: `gtk3-owner.py`, `gtk4-owner.py`
/// and `qt5-owner.py`, run with the system Python (Debian's python3-gi, gir1.2-gtk-3.0, gir1.2-gtk-4.0,
/// python3-pyqt5).
enum Toolkit: String, Sendable, CaseIterable, CustomStringConvertible {
    case gtk3
    case gtk4
    case qt5

    var description: String {
        switch self {
        case .gtk3: return "GTK 3"
        case .gtk4: return "GTK 4"
        case .qt5: return "Qt 5"
        }
    }

    var script: String { "\(rawValue)-owner.py" }

    /// The Debian packages it needs.
    var packages: String {
        switch self {
        case .gtk3: return "python3-gi gir1.2-gtk-3.0"
        case .gtk4: return "python3-gi gir1.2-gtk-4.0"
        case .qt5: return "python3-pyqt5"
        }
    }

    /// What the toolkit needs under Xvfb: X11 backends, software rendering, no accessibility bus.
    var environment: [String: String?] {
        ["GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "QT_QPA_PLATFORM": "xcb", "NO_AT_BRIDGE": "1"]
    }
}

/// Where the fixtures are: `Tests/Fixtures`, found from this file's path.
func fixturesDirectory(filePath: String = #filePath) -> URL {
    // Tests/X11BackendTests/Support/RealApplications.swift → Tests/Fixtures
    URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
}

/// The interpreter the toolkit owners need: Debian's, where python3-gi and python3-pyqt5 are installed (another
/// `python3` on PATH may lack them).
let systemPython = "/usr/bin/python3"

extension X11Session {
    // MARK: - Toolkit owners

    /// Starts a toolkit owner with `arguments` and waits until it says "ready" (its copy is made, or its window
    /// is mapped); it serves until it is stopped.
    func startToolkitOwner(_ toolkit: Toolkit, _ arguments: [String], timeout: Duration = .seconds(20)) async throws
        -> ChildProcess
    {
        guard FileManager.default.isExecutableFile(atPath: systemPython) else {
            throw SetupFailure(
                "\(systemPython) is needed by the \(toolkit) tests: apt-get install -y python3 \(toolkit.packages)")
        }
        let script = fixturesDirectory().appendingPathComponent(toolkit.script).path
        let owner = try sandbox.launch(systemPython, [script] + arguments, environment: toolkit.environment)
        let ready = try await eventually(within: timeout, every: .milliseconds(10)) {
            owner.stdout.starts(with: Data("ready".utf8)) || !owner.isRunning
        }
        guard ready, owner.stdout.starts(with: Data("ready".utf8)) else {
            owner.terminate(grace: .milliseconds(500))
            throw SetupFailure(
                "\(toolkit.script) did not start (are \(toolkit.packages) installed?): "
                    + (owner.result.map(\.description) ?? owner.stderr.suffix(2000).description))
        }
        return owner
    }

    /// Stops an owner with SIGTERM (a toolkit application's normal exit) and waits for it.
    func stopOwner(_ owner: ChildProcess) async throws {
        owner.send(SIGTERM)
        guard try await owner.waitForExit(timeout: .seconds(10)) != nil else {
            owner.terminate(grace: .milliseconds(200))
            throw SetupFailure("\(owner.command) did not exit within 10 s of SIGTERM")
        }
    }

    // MARK: - Reading what an owner offers

    /// `xclip -o -t TARGET` of a selection, with its result.
    func xclipRead(_ target: String, selection: String = "clipboard", timeout: Duration = .seconds(30)) async throws
        -> ProcessResult
    {
        try await sandbox.run(xclip, ["-selection", selection, "-o", "-t", target], timeout: timeout)
    }

    /// The targets the selection's owner lists, without the meta targets.
    func offeredTargets(selection: String = "clipboard") async throws -> [String] {
        let result = try await xclipRead("TARGETS", selection: selection)
        guard result.succeeded else { return [] }
        let meta: Set<String> = ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS"]
        return result.output.split(separator: "\n").map(String.init).filter { !meta.contains($0) }
    }

    // MARK: - xdotool

    /// Runs `xdotool` with `arguments`.
    @discardableResult
    func xdotool(_ arguments: [String], timeout: Duration = .seconds(20)) async throws -> ProcessResult {
        guard let xdotool = executableOnPath("xdotool") else {
            throw SetupFailure(
                "xdotool is needed by the tests that type into real applications: apt-get install -y xdotool")
        }
        let result = try await sandbox.run(xdotool, arguments, timeout: timeout)
        guard result.succeeded else { throw CommandFailed(result: result) }
        return result
    }

    /// The first window whose name matches `name` (a regular expression), waiting up to `timeout`.
    func window(named name: String, timeout: Duration = .seconds(15)) async throws -> String {
        var found: String?
        _ = try await eventually(within: timeout, every: .milliseconds(50)) {
            let result = try await sandbox.run(
                executableOnPath("xdotool") ?? "/usr/bin/xdotool", ["search", "--onlyvisible", "--name", name],
                timeout: .seconds(10))
            found = result.output.split(separator: "\n").first.map(String.init)
            return found != nil
        }
        guard let found else { throw SetupFailure("No window named /\(name)/ appeared within \(timeout).") }
        return found
    }

    /// The name (title) of a window.
    func windowName(_ window: String) async throws -> String {
        try await xdotool(["getwindowname", window]).output.trimmingCharacters(in: .newlines)
    }

    // MARK: - The daemon's log

    /// Waits until the daemon's log contains `text`, after its first `offset` bytes (see `logLength`).
    func daemonSays(
        _ daemon: ChildProcess, _ text: String, since offset: Int = 0, within timeout: Duration = .seconds(10)
    ) async throws -> Bool {
        try await eventually(within: timeout, every: .milliseconds(20)) {
            String(decoding: daemon.stderr.utf8.dropFirst(offset), as: UTF8.self).contains(text)
        }
    }

    /// How many bytes the daemon has logged so far: a mark for `daemonSays(_:_:since:)`.
    func logLength(_ daemon: ChildProcess) -> Int { daemon.stderr.utf8.count }
}
