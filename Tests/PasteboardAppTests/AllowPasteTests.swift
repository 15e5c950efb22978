import Foundation
import PasteboardTestSupport
import Testing

/// "Allow Paste": an item that asks is held by the daemon while the app asks, and `xclip -o` gets it only when
/// the user allows; the item's paste log names the reader.
@Suite(.timeLimit(.minutes(2))) struct AllowPasteTests {
    /// A daemon (with `configuration` as its file), the app, and an item copied with `pb copy --ask`.
    func askingItem(_ text: String, configuration: String? = nil, app: Bool = true) async throws -> (
        AppSession, Int64, ProcessResult
    ) {
        let session = try await AppSession()
        if let configuration {
            let directory = session.sandbox.root.appendingPathComponent("config/pasteboard")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(configuration.utf8).write(to: directory.appendingPathComponent("config"))
        }
        try await session.startDaemon()
        if app {
            try await session.launchApp()
            try await session.waitForLog { $0 == "daemon connected" }
        }
        let copy = try await session.pb(["copy", "--ask"], stdin: Data(text.utf8), display: true)
        return (session, try await session.newestID(), copy)
    }

    /// `xclip -o` started in the background: it waits while the daemon holds its request.
    func startReader(_ session: AppSession) throws -> ChildProcess {
        try session.sandbox.launch(
            try AppSession.tool("xclip", package: "xclip"), ["-selection", "clipboard", "-o"])
    }

    /// `pb show --json ID`'s paste log: (reader, outcome), newest first.
    func pasteLog(_ session: AppSession, _ id: Int64) async throws -> [(reader: String?, outcome: String?)] {
        let shown = try await session.pb(["show", "--json", String(id)])
        let object = try JSONSerialization.jsonObject(with: shown.stdout) as? [String: Any]
        #expect(object?["asksBeforePaste"] as? Bool == true, "\(shown.output)")
        let pastes = object?["pastes"] as? [[String: Any]] ?? []
        return pastes.map { ($0["reader"] as? String, $0["outcome"] as? String) }
    }

    @Test(arguments: [true, false])
    func theAppAsksAndOnlyAllowLetsTheReaderPaste(allow: Bool) async throws {
        let (session, id, copy) = try await askingItem("a secret to ask about")
        #expect(!copy.stderr.contains("Notice"), "an app is running to ask: \(copy.stderr)")
        let mark = session.logLines().count
        let reader = try startReader(session)
        let question = try await session.waitForLog(after: mark) { $0.hasPrefix("paste question ") }
        #expect(question.hasSuffix("Allow xclip to paste from pb?"), "\(question)")

        // The daemon goes on answering while it holds the paste: other X11 readers and the control socket.
        let targets = try await session.clipboard(target: "TARGETS")
        #expect(String(decoding: targets, as: UTF8.self).contains("UTF8_STRING"), "TARGETS while a paste is held")
        let doctor = try await session.pb(["doctor"], display: true)
        #expect(doctor.output.contains("paste:    asks through 1 app"), "\(doctor.output)")
        #expect(reader.isRunning, "xclip waits for the answer")
        if allow {
            _ = try await session.screenshot("allow-paste")
        }

        try await session.focusWindow(named: "Allow Paste")
        try await session.key(allow ? "alt+a" : "Escape")
        let result = try await reader.finish(timeout: .seconds(10))
        if allow {
            #expect(result.succeeded && result.output == "a secret to ask about", "\(result)")
        } else {
            #expect(!result.succeeded && result.stdout.isEmpty, "Don't Allow gives the reader nothing: \(result)")
        }
        let outcome = allow ? "allowed" : "refused"
        try await session.waitForLog(after: mark) { $0 == "pasted \(id) by xclip: \(outcome)" }
        let log = try await pasteLog(session, id)
        #expect(log.first?.reader == "xclip" && log.first?.outcome == outcome, "\(log)")
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    @Test func noAnswerBeforeTheTimeoutRefusesThePaste() async throws {
        let (session, id, _) = try await askingItem("nobody answers", configuration: "ask-timeout = 1s\n")
        let mark = session.logLines().count
        let started = Date()
        let reader = try startReader(session)
        try await session.waitForLog(after: mark) { $0.hasPrefix("paste question ") }
        let result = try await reader.finish(timeout: .seconds(10))
        #expect(!result.succeeded && result.stdout.isEmpty, "\(result)")
        #expect(Date().timeIntervalSince(started) >= 0.9, "refused at the timeout, not before")
        // The question goes away with its deadline.
        try await session.waitForLog(after: mark) { $0 == "pasted \(id) by xclip: unanswered" }
        let log = try await pasteLog(session, id)
        #expect(log.first?.reader == "xclip" && log.first?.outcome == "unanswered", "\(log)")
    }

    @Test func withoutTheAppThePasteIsRefusedAndPbSaysSo() async throws {
        let (session, id, copy) = try await askingItem("no app to ask", app: false)
        #expect(copy.stderr.contains("Notice: no Pasteboard History app is running to ask"), "\(copy.stderr)")
        let result = try await startReader(session).finish(timeout: .seconds(10))
        #expect(!result.succeeded && result.stdout.isEmpty, "\(result)")
        let log = try await pasteLog(session, id)
        #expect(log.first?.reader == "xclip" && log.first?.outcome == "no-approver", "\(log)")
        let doctor = try await session.pb(["doctor"], display: true)
        #expect(doctor.output.contains("no Pasteboard History app is running"), "\(doctor.output)")

        // Without the daemon nothing can hold a paste: pb copy --ask refuses rather than serve everyone.
        try await session.stopDaemon()
        let child = try session.sandbox.launch(try Product.pb.path(), ["copy", "--ask"], stdin: Data("x".utf8))
        let refused = try await child.finish(timeout: .seconds(20))
        #expect(refused.status == 1 && refused.stderr.contains("only the daemon can hold a paste"), "\(refused)")
    }

    @Test func theToggleMakesAnItemAskAndThePreviewShowsWhoPasted() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let id = try await session.seed("toggled in the window")
        try await session.launchApp()
        try await session.waitForLog { $0 == "daemon connected" }
        try await session.key("ctrl+f", "Down")
        try await session.waitForLog { $0.hasPrefix("preview text \(id) ") }
        try await session.key("ctrl+k")
        try await session.waitForLog { $0 == "asks \(id)" }
        let mark = session.logLines().count
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(id)" }

        let reader = try startReader(session)
        try await session.waitForLog(after: mark) { $0.hasPrefix("paste question ") }
        try await session.focusWindow(named: "Allow Paste")
        try await session.key("alt+a")
        let result = try await reader.finish(timeout: .seconds(10))
        #expect(result.output == "toggled in the window", "\(result)")
        try await session.waitForLog(after: mark) { $0 == "pasted \(id) by xclip: allowed" }
        // The selected item's preview lists who pasted it.
        try await session.waitForLog(after: mark) { $0 == "preview pastes \(id): xclip allowed" }
        let log = try await pasteLog(session, id)
        #expect(log.first?.reader == "xclip", "\(log)")
    }
}
