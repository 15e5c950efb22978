import Foundation
import PasteboardTestSupport
import Testing

/// "Pasteboard Settings" (Ctrl+,), run for real under Xvfb and driven with the keyboard alone: what it writes is
/// the configuration file `pb` reads, in place, and a bad value writes nothing.
@Suite(.timeLimit(.minutes(2))) struct SettingsWindowTests {
    static let title = "Pasteboard Settings"
    static let original = "# my settings, by hand\nmax-items = 500   # plenty\n\nignore-app = KeePassXC\n"

    /// Opens the settings with Ctrl+, from the main window and gives them the focus.
    static func openSettings(in session: AppSession) async throws {
        let mark = session.logLines().count
        try await session.key("ctrl+comma")
        try await session.waitForLog(after: mark) { $0 == "settings open" }
        try await session.focusWindow(named: title)
        #expect(try await session.visibleWindows(named: title) == 1)
    }

    @Test func appliedValuesAreWhatPbReadsAndTheDaemonUsesAtOnce() async throws {
        let session = try await AppSession()
        let config = session.sandbox.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.original.utf8).write(to: config)
        try await session.startDaemon()
        for text in ["first", "second", "third"] { try await session.seed(text) }
        try await session.launchApp()
        try await Self.openSettings(in: session)

        // The focus starts in "Keep at most (items)": 1 there, and Enter applies.
        var mark = session.logLines().count
        try await session.key("ctrl+a")
        try await session.type("1")
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "settings saved: max-items" }
        #expect(try String(contentsOf: config, encoding: .utf8)
            == "# my settings, by hand\nmax-items = 1  # plenty\n\nignore-app = KeePassXC\n")
        // The running daemon read it again and applied it: one unpinned item left.
        let pruned = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            try await session.history().count == 1
        }
        #expect(pruned, "\(session.logLines().suffix(10))")

        // Tab by Tab to Images' "forget after" (past the three limits for all and five cells of the kinds' grid),
        // then on to the PRIMARY check box, with the keyboard alone; Ctrl+S applies.
        try await session.key("ctrl+a")
        try await session.type("100")
        for _ in 0..<14 { try await session.key("Tab") }
        try await session.type("7d")
        for _ in 0..<12 { try await session.key("Tab") }
        try await session.key("space")
        mark = session.logLines().count
        try await session.key("ctrl+s")
        try await session.waitForLog(after: mark) { $0.hasPrefix("settings saved: ") }
        #expect(try String(contentsOf: config, encoding: .utf8)
            == "# my settings, by hand\nmax-items = 100  # plenty\n\nignore-app = KeePassXC\nmax-age.image = 7d\nprimary = on\n")
        let prune = try await session.pb(["prune"])
        #expect(prune.output == "Deleted 0 items.\n", "\(prune.output)")
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    @Test func aBadValueShowsPbsMessageAndLeavesTheFileByteForByte() async throws {
        let session = try await AppSession()
        let config = session.sandbox.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.original.utf8).write(to: config)
        try await session.seed("an item")
        try await session.launchApp()
        try await Self.openSettings(in: session)

        let mark = session.logLines().count
        try await session.key("ctrl+a")
        try await session.type("lots")
        try await session.key("Return")
        let refused = try await session.waitForLog(after: mark) { $0.hasPrefix("settings refused: ") }
        let drawn = try await session.imageStatistics(try await session.screenshot("settings"))
        #expect(drawn.colours > 100, "a drawn window has text, fields and the red message: \(drawn)")
        #expect(refused == "settings refused: \(config.path):2: max-items needs a whole number of at least 1 "
            + "(pinned items are always kept). To keep no history at all, stop the daemon instead.")
        #expect(try Data(contentsOf: config) == Data(Self.original.utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: config.deletingLastPathComponent().path) == ["config"])
        // pb says the same of that value.
        try Data("max-items = lots\n".utf8).write(to: config)
        let pb = try await session.sandbox.run(try Product.pb.path(), ["history"], timeout: .seconds(20))
        #expect(pb.stderr.contains("max-items needs a whole number of at least 1"), "\(pb.stderr)")
        // Escape closes the window; Ctrl+, opens it again.
        try await session.key("Escape")
        try await session.focusWindow()
        try await Self.openSettings(in: session)
    }
}
