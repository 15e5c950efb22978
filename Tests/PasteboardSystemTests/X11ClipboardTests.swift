import Foundation
import PasteboardTestSupport
import Testing

/// With a display, `Pasteboard.general` is the X11 CLIPBOARD: example programs, `pb` and `xclip` see each
/// other's copies. Each test has its own Xvfb; a missing Xvfb fails the test.
@Suite(.timeLimit(.minutes(2))) struct X11ClipboardTests {
    @Test func profileOwnedByItsProcessIsPastedAsProfileJSONAndText() async throws {
        let sandbox = try await ProcessSandbox(displayLifetime: .test)
        // A generous hold: under a full parallel test run on two cores the checks below took more than 20 s.
        let owner = try sandbox.launch(.profile, ["copy", "X", "1", "--hold", "45"])
        // Its "copied" reaches the output file only at exit (stdout is not a terminal): watch the clipboard instead.
        let owned = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            try await sandbox.xclipPaste().output == "X" || !owner.isRunning
        }
        try #require(
            owned && owner.isRunning, "profile copy --hold 45: \(owner.result.map(\.description) ?? owner.stderr)")

        let paste = try await sandbox.run(.profile, ["paste"])
        #expect(paste.succeeded && paste.lines == ["profile: X, 1"], "\(paste)")
        let json = try await sandbox.xclipPaste(target: "com.example.profile")
        #expect(json.succeeded && json.output == #"{"age":1,"name":"X"}"#, "\(json)")
        let text = try await sandbox.xclipPaste()
        #expect(text.succeeded && text.output == "X", "\(text)")
        #expect(owner.isRunning, "the checks above must run while the copying process holds the clipboard")

        let exit = try await owner.finish(timeout: .seconds(80))
        #expect(exit.succeeded && exit.output == "copied\n", "\(exit)")
        // Without a daemon the clipboard goes with the process that owned it.
        let afterExit = try await sandbox.run(.profile, ["paste"])
        #expect(afterExit.status == 1 && afterExit.stdout.isEmpty, "\(afterExit)")
    }

    @Test func daemonKeepsServingAProfileAfterTheCopyingProcessExits() async throws {
        let sandbox = try await ProcessSandbox(displayLifetime: .test)
        let daemon = try await sandbox.startDaemon()

        let copy = try await sandbox.succeed(.profile, ["copy", "Y", "2"])
        #expect(copy.lines == ["copied"], "\(copy)")

        let paste = try await sandbox.run(.profile, ["paste"])
        #expect(paste.succeeded && paste.lines == ["profile: Y, 2"], "\(paste)")
        let json = try await sandbox.xclipPaste(target: "com.example.profile")
        #expect(json.succeeded && json.output == #"{"age":2,"name":"Y"}"#, "\(json)")

        let newest = try await sandbox.history(limit: 1)
        #expect(newest.count == 1, "\(newest)")
        #expect(newest.first?["preview"] as? String == "Y", "\(newest)")
        #expect(newest.first?["source"] as? String == "profile", "\(newest)")
        let types = newest.first?["types"] as? [String] ?? []
        #expect(types.first == "com.example.profile" && types.contains("public.utf8-plain-text"), "\(newest)")
        // The daemon serving the item must not record it a second time.
        let all = try await sandbox.history()
        #expect(all.count == 1, "\(all)")

        try await sandbox.stop(daemon: daemon)
    }

    @Test func clipboardTextPrintsWhatXclipCopied() async throws {
        let sandbox = try await ProcessSandbox(displayLifetime: .test)
        let owner = try sandbox.xclipCopy("copied by xclip")
        // Generous: in a full parallel run on two cores the first reads have taken longer than 5 s.
        let owned = try await eventually(within: .seconds(30), every: .milliseconds(50)) {
            try await sandbox.xclipPaste().output == "copied by xclip" || !owner.isRunning
        }
        try #require(owned && owner.isRunning, "xclip -i: \(owner.result.map(\.description) ?? owner.stderr)")

        let paste = try await sandbox.run(.clipboardText, [])
        #expect(paste.succeeded && paste.lines == ["copied by xclip"], "\(paste)")
    }

    @Test func clipboardTextSaysSoWhenTheClipboardIsEmpty() async throws {
        let sandbox = try await ProcessSandbox(displayLifetime: .test)

        let paste = try await sandbox.run(.clipboardText, [])
        #expect(paste.succeeded && paste.lines == ["(the clipboard holds no text)"], "\(paste)")
    }

    @Test func clipboardTextCopyReachesOtherClientsThroughTheDaemon() async throws {
        let sandbox = try await ProcessSandbox(displayLifetime: .test)
        let daemon = try await sandbox.startDaemon()

        // It waits for a line on standard input: the file gives it one at once, so it exits right after copying.
        let copy = try await sandbox.run(.clipboardText, ["hello", "world"], stdin: Data("\n".utf8))
        #expect(copy.succeeded && copy.output.hasPrefix("Copied. Change count: "), "\(copy)")

        let text = try await sandbox.xclipPaste()
        #expect(text.succeeded && text.output == "hello world", "\(text)")
        try await sandbox.stop(daemon: daemon)
    }
}
