import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The resident popup: a `pasteboard-gtk` that keeps GTK running (`--background`, or the main window) shows its
/// prebuilt popup when `pasteboard-gtk --popup` or `pb popup` asks over `popup.sock`, stays current from the
/// daemon's events while hidden, and costs nothing while hidden. (The fallback, `--popup` with no resident, is
/// `PopupTests`.)
@Suite(.timeLimit(.minutes(2))) struct ResidentPopupTests {
    @Test func theResidentPopupShowsFiltersCopiesAndFollowsTheHistoryWhileHidden() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        try await session.seed("alpha resident")
        let needle = try await session.seed("bravo needle")
        try await session.launchBackground()
        #expect(session.logLines().contains("popup follows the daemon"))
        #expect(!session.logLines().contains("window shown Pasteboard Popup"), "hidden until asked")
        let socket = session.sandbox.root.appendingPathComponent("run/popup.sock").path
        var info = stat()
        #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600, "owner-only socket")

        // Asked by pasteboard-gtk --popup: it hands the request over and exits at once.
        try await session.movePointer(x: 200, y: 150)
        var mark = session.logLines().count
        let handed = try await session.requestPopup(try Product.pasteboardGTK.path(), ["--popup"])
        #expect(handed.succeeded, "\(handed)")
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        let shown = Array(session.logLines().dropFirst(mark))
        #expect(shown.contains("popup at 200,150"), "\(shown)")
        #expect(shown.contains("rows 2"), "\(shown)")
        try await session.focusWindow(named: "Pasteboard Popup")

        // A second request while shown only focuses it.
        let again = try await session.requestPopup(try Product.pb.path(), ["popup"])
        #expect(again.succeeded, "\(again)")
        try await session.waitForLog(after: mark) { $0 == "popup focused" }

        try await session.type("needle")
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(needle)" }
        try await session.waitForLog(after: mark) { $0 == "popup closed: copied" }
        #expect(try await session.clipboardBecomes("bravo needle"))

        // Copied while hidden: the daemon's event refreshes the hidden popup, and the next show lists it first.
        mark = session.logLines().count
        let fresh = try await session.seed("charlie copied while hidden")
        try await session.waitForLog(after: mark) { $0.hasPrefix("popup refreshed") }
        #expect(!session.logLines().dropFirst(mark).contains("window shown Pasteboard Popup"))

        // Imported by another process while hidden: the daemon's feed event refreshes it too.
        mark = session.logLines().count
        let file = try session.sandbox.file(Data(#"{"text":"delta imported"}"#.utf8 + [0x0A]), name: "one.jsonl")
        try await session.pb(["import", file.path])
        try await session.waitForLog(after: mark) { $0 == "popup refreshed: imported" }
        _ = try await session.pb(["delete", String(try await session.newestID())])
        try await session.waitForLog(after: mark) { $0 == "popup refreshed: deleted" }

        // Hidden, it does not wake up: no thread of the process is scheduled at all.
        let pid = try #require(session.appPID)
        try await Task.sleep(for: .milliseconds(500))
        let before = try #require(contextSwitches(of: pid))
        try await Task.sleep(for: .seconds(2))
        let after = try #require(contextSwitches(of: pid))
        // Per thread: one that ended meanwhile (a pool worker timing out) takes its count with it, and is not a
        // wake-up that repeats; one that is still there, or new, must not have been scheduled.
        let woken = after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
        #expect(woken == 0, "context switches while hidden, per thread: \(before) → \(after)")

        mark = session.logLines().count
        let byPB = try await session.requestPopup(try Product.pb.path(), ["popup"])
        #expect(byPB.succeeded, "\(byPB)")
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        #expect(session.logLines().dropFirst(mark).contains("rows 3"))
        try await session.focusWindow(named: "Pasteboard Popup")
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "restored \(fresh)" }
        #expect(try await session.clipboardBecomes("charlie copied while hidden"))

        mark = session.logLines().count
        #expect(try await session.requestPopup(try Product.pb.path(), ["popup"]).succeeded)
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        try await session.focusWindow(named: "Pasteboard Popup")
        try await session.key("Escape")
        try await session.waitForLog(after: mark) { $0 == "popup closed: escape" }
        #expect(session.appIsRunning, "the resident stays after closing its popup")
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    @Test func pbPopupStartsABackgroundInstanceWhenNoneRunsAndItStays() async throws {
        let session = try await AppSession()
        try await session.seed("started by pb popup")
        let lock = session.sandbox.root.appendingPathComponent("run/popup.lock").path
        let started = try await session.requestPopup(try Product.pb.path(), ["popup"])
        #expect(started.succeeded, "\(started)")
        let pidText = try String(contentsOfFile: lock, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(pid_t(pidText))
        defer { kill(pid, SIGTERM) }
        #expect(kill(pid, 0) == 0, "the background instance runs")
        try await session.waitForLog { $0 == "popup drawn" }
        try await session.focusWindow(named: "Pasteboard Popup")
        try await session.key("Escape")
        try await session.waitForLog { $0 == "popup closed: escape" }

        let mark = session.logLines().count
        #expect(try await session.requestPopup(try Product.pb.path(), ["popup"]).succeeded)
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        #expect(!session.logLines().dropFirst(mark).contains("popup resident"), "the same instance showed it")
    }

    @Test func theMainWindowKeepsThePopupReady() async throws {
        let session = try await AppSession()
        try await session.seed("from the window's process")
        try await session.launchApp()
        try await session.waitForLog { $0 == "popup resident" }
        let mark = session.logLines().count
        #expect(try await session.requestPopup(try Product.pasteboardGTK.path(), ["--popup"]).succeeded)
        try await session.waitForLog(after: mark) { $0 == "popup drawn" }
        try await session.focusWindow(named: "Pasteboard Popup")
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0.hasPrefix("restored ") }
        #expect(try await session.clipboardBecomes("from the window's process"))
        #expect(session.appIsRunning, "closing the popup leaves the window")
    }

    /// Voluntary and involuntary context switches of every thread of `pid`, summed.
    /// Each thread's voluntary and involuntary context switches so far, by thread id.
    private func contextSwitches(of pid: pid_t) -> [String: Int]? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var counts: [String: Int] = [:]
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else {
                continue  // the thread has just ended
            }
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                counts[task, default: 0] += Int(line.split(separator: "\t").last.map(String.init) ?? "") ?? 0
            }
        }
        return counts
    }
}
