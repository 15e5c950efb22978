import Foundation
import PasteboardTestSupport
import Testing

/// `pb pick --paste` under Xvfb: the chosen item lands in the real GTK entry that had the keyboard focus when the
/// picker started, typed there through XTest, even after the focus moved to another window meanwhile.
@Suite(.timeLimit(.minutes(2))) struct PickPasteTests {
    let sandbox: Sandbox
    var io: URL { sandbox.root.appendingPathComponent("io") }

    init() throws {
        sandbox = try Sandbox()
    }

    /// A GTK 3 entry (`Tests/Fixtures/gtk3-entry.py`) on `display`, and its X window id.
    func entry(on display: VirtualDisplay) async throws -> (process: ChildProcess, window: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gtk3-entry.py")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            throw SetupFailure(
                "The paste test needs the system Python with GTK 3: apt-get install -y python3-gi gir1.2-gtk-3.0")
        }
        var environment = sandbox.environment
        environment["DISPLAY"] = display.name
        environment["GDK_BACKEND"] = "x11"
        let process = try ChildProcess(
            executable: "/usr/bin/python3", arguments: [script.path], environment: environment, stdin: nil,
            ioDirectory: io)
        var window: String?
        let ready = try await eventually(within: .seconds(20), every: .milliseconds(50)) {
            let lines = String(decoding: process.stdout, as: UTF8.self).split(separator: "\n")
            window = lines.first { $0.hasPrefix("WINDOW: ") }.map { String($0.dropFirst(8)) }
            return lines.contains("ready") || !process.isRunning
        }
        guard ready, let window else {
            throw SetupFailure("The GTK entry did not start: \(process.stderr.suffix(500))")
        }
        return (process, window)
    }

    func xdotool(_ arguments: [String], on display: VirtualDisplay) async throws {
        guard let xdotool = executableOnPath("xdotool") else {
            throw SetupFailure("xdotool is needed by the paste test: apt-get install -y xdotool")
        }
        let environment = ["DISPLAY": display.name, "PATH": sandbox.environment["PATH"] ?? "/usr/bin:/bin"]
        let result = try await ChildProcess(
            executable: xdotool, arguments: arguments, environment: environment, stdin: nil, ioDirectory: io
        ).finish(timeout: .seconds(10))
        #expect(result.succeeded, "xdotool \(arguments.joined(separator: " ")): \(result)")
    }

    static func texts(of process: ChildProcess) -> [String] {
        String(decoding: process.stdout, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("TEXT: ") }
            .compactMap { line in
                try? JSONDecoder().decode(String.self, from: Data(line.dropFirst(6).utf8))
            }
    }

    @Test func theChosenItemIsPastedIntoTheWindowFocusedBefore() async throws {
        try await sandbox.copy("an older item")
        try await sandbox.copy("pasted ✓ by pb pick")
        let display = try await VirtualDisplay(
            ioDirectory: io, requiredBy: "the pb pick --paste test", screen: "640x480x24")
        let target = try await entry(on: display)
        let other = try await entry(on: display)
        defer {
            target.process.terminate(grace: .seconds(1))
            other.process.terminate(grace: .seconds(1))
        }
        try await xdotool(["windowfocus", "--sync", target.window], on: display)

        let session = try await TerminalSession(
            "\(TerminalSession.shellQuoted(try Product.pb.path())) pick --paste", sandbox: sandbox,
            environment: ["DISPLAY": display.name])
        try await session.waitForScreen { $0.first?.hasPrefix(">") == true }
        // As a launcher's terminal would, another window takes the focus while the user picks.
        try await xdotool(["windowfocus", "--sync", other.window], on: display)
        try await session.send("Enter")
        let screen = try await session.waitForScreen { $0.contains { $0.hasPrefix("EXIT=") } }
        #expect(screen.contains("EXIT=0"), "\(screen)")

        let pasted = try await eventually(within: .seconds(10)) {
            Self.texts(of: target.process).last == "pasted ✓ by pb pick"
        }
        #expect(pasted, "the entry shows \(Self.texts(of: target.process))")
        #expect(Self.texts(of: other.process).isEmpty, "the window focused meanwhile got nothing")
    }

    /// Tab marks, Ctrl-O makes them a paste stack (issue 26): each paste gets the next marked item, in the order
    /// marked, served by the daemon on the display.
    @Test func ctrlOPutsTheMarkedItemsOnThePasteStack() async throws {
        let display = try await VirtualDisplay(ioDirectory: io, requiredBy: "the paste stack test", screen: "640x480x24")
        let onDisplay: [String: String?] = ["DISPLAY": display.name, "WAYLAND_DISPLAY": nil]
        let daemon = try sandbox.launch(["daemon"], environment: onDisplay)
        defer { daemon.send(SIGKILL) }
        let up = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            guard FileManager.default.fileExists(atPath: sandbox.socketPath) else { return false }
            return try await sandbox.run(["doctor"], environment: onDisplay).output.contains("running (pid")
        }
        try #require(up, "pb daemon did not come up: \(daemon.stderrSoFar)")
        for text in ["first", "second", "third"] {
            let copied = try await sandbox.run(["copy"], stdin: Data(text.utf8), environment: onDisplay)
            try #require(copied.status == 0, "\(copied)")
        }
        let session = try await TerminalSession(
            "\(TerminalSession.shellQuoted(try Product.pb.path())) pick", sandbox: sandbox,
            environment: ["DISPLAY": display.name])
        try await session.waitForScreen { $0.first?.hasPrefix(">") == true }
        // "third" is on top: mark "second" and then "third" (the order marked is the order pasted).
        try await session.send("Down")
        try await session.send("Tab")
        try await session.send("Up")
        try await session.send("Up")
        try await session.send("Tab")
        try await session.waitForScreen { $0.last { !$0.isEmpty }?.contains("2 marked") == true }
        try await session.send("C-o")
        let screen = try await session.waitForScreen { $0.contains { $0.hasPrefix("EXIT=") } }
        #expect(screen.contains("EXIT=0"), "\(screen)")
        var pasted: [String] = []
        for _ in 0..<3 {
            let read = try await sandbox.run(["paste"], environment: onDisplay)
            pasted.append(read.output)
        }
        #expect(pasted == ["second", "third", "third"], "\(pasted); \(daemon.stderrSoFar)")
    }

    @Test func pasteOptionsAreChecked() async throws {
        let both = try await sandbox.run(["pick", "--paste", "--print"])
        #expect(both.status == 64 && both.stderr.contains("--paste and --print"), "\(both)")
        let key = try await sandbox.run(["pick", "--paste", "--paste-key", "alt+v"])
        #expect(key.status == 64 && key.stderr.contains("ctrl+v, shift+insert or ctrl+shift+v"), "\(key)")
        let noDisplay = try await sandbox.run(
            ["pick", "--paste"], environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil])
        #expect(noDisplay.status == 1 && noDisplay.stderr.contains("needs a display"), "\(noDisplay)")
    }
}
