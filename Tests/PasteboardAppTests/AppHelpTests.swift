import Foundation
import PasteboardTestSupport
import Testing

/// `pasteboard-gtk --help`, with its keyboard shortcuts, against the whole golden file
/// `Tests/Fixtures/Golden/app-help.txt` (`PB_UPDATE_GOLDEN=1` rewrites it), and the shortcuts window (Ctrl+?) that
/// shows the same keys.
@Suite(.timeLimit(.minutes(2))) struct AppHelpTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Golden/app-help.txt")

    @Test func helpMatchesItsGoldenFile() async throws {
        let sandbox = try ProcessSandbox(label: "pbgtk-help")
        let result = try await sandbox.run(try Product.pasteboardGTK.path(), ["--help"], timeout: .seconds(20))
        #expect(result.succeeded, "\(result)")
        if ProcessInfo.processInfo.environment["PB_UPDATE_GOLDEN"] == "1" {
            try result.stdout.write(to: Self.golden)
            return
        }
        let expected = try Data(contentsOf: Self.golden)
        #expect(
            result.output == String(decoding: expected, as: UTF8.self),
            "pasteboard-gtk --help differs from app-help.txt; if intended, rewrite it with PB_UPDATE_GOLDEN=1")
    }

    @Test func ctrlQuestionShowsTheShortcutsWindow() async throws {
        let session = try await AppSession()
        _ = try await session.seed("something")
        try await session.launchApp()
        try await session.focusWindow()
        #expect(try await session.visibleWindows(named: "Keyboard Shortcuts") == 0)
        let mark = session.logLines().count
        try await session.key("ctrl+question")
        try await session.waitForLog(after: mark) { $0 == "shortcuts shown" }
        let shown = try await eventually(within: .seconds(5), every: .milliseconds(100)) {
            try await session.visibleWindows(named: "Keyboard Shortcuts") == 1
        }
        #expect(shown, "no window named Keyboard Shortcuts")
    }
}
