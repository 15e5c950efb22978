import Foundation
import PasteboardTestSupport
import Testing

/// Putting items on the Wayland clipboard: `pb copy` with and without a daemon, `pb restore`, `--once`,
/// `--expire`, `pb take`. Part of the serialized `WaylandTests`: one seat, one clipboard.
extension WaylandTests {
    @Test func pbRestoreServesEveryStoredType() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let source = try await session.testSource([
            "--type", "text/html", "--type", "text/plain;charset=utf-8", "--data", "<i>both</i>",
        ])
        let items = try await session.waitForHistory(count: 1)
        let id = try #require(items.first?["id"] as? Int, "\(items); \(daemon.stderr)")
        try session.wlCopy(Data("something else".utf8))
        // The shared seat may still hold an earlier test's copy when the daemon starts, which it records too: the
        // count that matters is the one before the restore.
        var recorded: [[String: Any]] = []
        _ = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            recorded = try await session.history()
            return recorded.first?["preview"] as? String == "something else"
        }
        source.terminate(grace: .seconds(1))

        try await session.succeed(["restore", String(id)])
        let offered = try await session.wlTypes()
        #expect(offered.contains("text/html") && offered.contains("text/plain;charset=utf-8"), "\(offered)")
        let html = try await session.wlPaste(type: "text/html")
        #expect(html.succeeded && html.output == "<i>both</i>", "\(html)")
        let text = try await session.wlPaste(type: "text/plain")
        #expect(text.succeeded && text.output == "<i>both</i>", "\(text)")
        #expect(try await session.history().count == recorded.count, "a restore records nothing new")
        try await session.stop(daemon: daemon)
    }

    @Test func pbCopyWithoutADaemonServesFromAProcessOfItsOwn() async throws {
        let session = try await WaylandSession()
        try await session.succeed(["copy"], stdin: Data("no daemon here".utf8))
        let pasted = try await session.wlPaste()
        #expect(pasted.succeeded && pasted.output == "no daemon here", "\(pasted)")
        let paste = try await session.pb(["paste"])
        #expect(paste.succeeded && paste.output == "no daemon here", "\(paste)")
        // The owner process gives up when another client copies.
        try session.wlCopy(Data("replaced".utf8))
        let replaced = try await eventually(within: .seconds(5)) {
            try await session.pb(["paste"]).output == "replaced"
        }
        #expect(replaced)
    }

    @Test(arguments: [false, true]) func copyOnceServesTheFirstPasteOnly(withDaemon: Bool) async throws {
        let session = try await WaylandSession()
        let daemon = withDaemon ? try await session.startDaemon() : nil
        try await session.succeed(["copy", "--once"], stdin: Data("read me once".utf8))
        let first = try await session.wlPaste()
        #expect(first.succeeded && first.output == "read me once", "\(first); \(daemon?.stderr ?? "")")
        let gone = try await eventually(within: .seconds(3)) { try await !session.wlPaste().succeeded }
        let second = try await session.wlPaste()
        #expect(gone, "a second paste got: \(second)")
        if let daemon { try await session.stop(daemon: daemon) }
    }

    /// A paste stack (issue 26): each paste gets the next item, in the order given; the last one stays.
    @Test func aPasteStackServesOneItemPerPaste() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        for text in ["one", "two", "three"] { try await session.succeed(["copy"], stdin: Data(text.utf8)) }
        let history = try await session.history()
        func id(_ text: String) throws -> String {
            String(try #require(history.first { $0["preview"] as? String == text }?["id"] as? Int, "\(history)"))
        }
        try await session.succeed(["restore", try id("three"), try id("one"), try id("two"), "--stack"])
        let first = try await session.wlPaste()
        #expect(first.output == "three", "\(first); \(daemon.stderr)")
        // The pasted item stays a moment (serving nothing) before the next one takes the clipboard.
        var pasted: [String] = []
        for expected in ["one", "two"] {
            let next = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
                let result = try await session.wlPaste()
                if result.succeeded && !result.output.isEmpty { pasted.append(result.output) }
                return result.output == expected
            }
            #expect(next, "expected \(expected), pasted \(pasted); \(daemon.stderr)")
        }
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await session.wlPaste().output == "two", "the last item stays")
        #expect(pasted == ["one", "two"], "no item pasted twice or skipped")
        try await session.stop(daemon: daemon)
    }

    @Test func copyWithExpiryIsClearedFromTheClipboardAndTheHistory() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        try await session.succeed(["copy", "--expire", "1s"], stdin: Data("short-lived".utf8))
        let pasted = try await session.wlPaste()
        #expect(pasted.succeeded && pasted.output == "short-lived", "\(pasted)")
        let cleared = try await eventually(within: .seconds(5), every: .milliseconds(100)) {
            try await !session.wlPaste().succeeded
        }
        #expect(cleared, "\(daemon.stderr)")
        let emptied = try await eventually(within: .seconds(5), every: .milliseconds(100)) {
            try await session.history().isEmpty
        }
        #expect(emptied)
        try await session.stop(daemon: daemon)
    }

    @Test func takePrintsTheLinkAndClearsTheClipboard() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let source = try session.wlCopy(Data("https://example.com/a".utf8))
        _ = try await session.waitForHistory(count: 1)

        let take = try await session.pb(["take", "--url"])
        #expect(take.succeeded && take.output.trimmingCharacters(in: .newlines) == "https://example.com/a", "\(take)")
        let emptied = try await eventually(within: .seconds(3)) { try await !session.wlPaste().succeeded }
        let after = try await session.wlPaste()
        #expect(emptied, "after pb take: \(after)")
        let exited = try await source.waitForExit(timeout: .seconds(3))
        #expect(exited != nil, "clearing cancels the source, which then exits")
        // Not taken over either: the clipboard stays empty.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await !session.wlPaste().succeeded)
        try await session.stop(daemon: daemon)
    }
}

extension WaylandTests {
    @Test func primaryIsRecordedWhenTheConfigurationSaysSo() async throws {
        let session = try await WaylandSession()
        let config = session.sandbox.root.appendingPathComponent("config/pasteboard")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("primary = on\n".utf8).write(to: config.appendingPathComponent("config"))
        let daemon = try await session.startDaemon()
        let source = try await session.testSource(["--primary", "--data", "selected words"])

        let items = try await session.waitForHistory(count: 1)
        #expect(items.first?["preview"] as? String == "selected words", "\(items); \(daemon.stderr)")
        #expect(daemon.stderr.contains("primary: recorded item"), "\(daemon.stderr)")
        source.terminate(grace: .seconds(1))
        try await session.stop(daemon: daemon)
    }

    @Test func pasteboardGeneralOfASwiftProgramIsTheWaylandClipboard() async throws {
        let session = try await WaylandSession()
        try session.wlCopy(Data("read through PasteboardKit".utf8))
        let read = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            try await session.wlPaste().output == "read through PasteboardKit"
        }
        try #require(read)
        let paste = try await session.sandbox.run(try Product.clipboardText.path(), [])
        #expect(paste.succeeded && paste.lines == ["read through PasteboardKit"], "\(paste)")
    }
}
