import Foundation
import PasteboardTestSupport
import Testing

/// `ignore-text`, `ignore-type` and `max-item-size` keep an item out of the history whichever way it comes in:
/// copied by another application (the daemon's capture), by `pb copy`, or by a program using the library. The
/// item still reaches the clipboard: the rules are about what is remembered, not what may be pasted.
@Suite(.timeLimit(.minutes(2))) struct IgnoreRulesTests {
    static let config = "ignore-text = ^otp-[0-9]{6}$\nignore-type = image/*\nmax-item-size = 1K\n"

    func writeConfig(_ sandbox: ProcessSandbox) throws {
        let url = sandbox.root.appendingPathComponent("config/pasteboard/config")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.config.utf8).write(to: url)
    }

    @Test func pbCopyHeadlessPutsItOnTheClipboardButNotInTheHistory() async throws {
        let sandbox = try ProcessSandbox()
        try writeConfig(sandbox)
        let copy = try await sandbox.succeed(.pb, ["copy"], stdin: Data("otp-123456".utf8))
        #expect(copy.stderr.contains("not recorded in the history: text matches an ignore-text rule"), "\(copy)")
        #expect(try await sandbox.succeed(.pb, ["paste"]).output == "otp-123456")
        #expect(try await sandbox.history().isEmpty)
        try await sandbox.succeed(.pb, ["copy"], stdin: Data(repeating: 0x61, count: 2000))
        #expect(try await sandbox.history().isEmpty, "max-item-size applies to pb copy")
        try await sandbox.succeed(.pb, ["copy"], stdin: Data("an ordinary text".utf8))
        #expect(try await sandbox.history().map { $0["preview"] as? String } == ["an ordinary text"])
    }

    @Test func theLibraryHeadlessObeysTheRules() async throws {
        let sandbox = try ProcessSandbox()
        try writeConfig(sandbox)
        try await sandbox.succeed(.clipboardText, ["otp-654321"], stdin: Data("\n".utf8))
        #expect(try await sandbox.succeed(.pb, ["paste"]).output == "otp-654321")
        #expect(try await sandbox.history().isEmpty)
    }

    @Test(arguments: [false, true])
    func onX11TheItemIsPastableButNotRecorded(withDaemon: Bool) async throws {
        let sandbox = try await ProcessSandbox(displayLifetime: .test)
        try writeConfig(sandbox)
        let daemon = withDaemon ? try await sandbox.startDaemon() : nil
        let copy = try await sandbox.succeed(.pb, ["copy"], stdin: Data("otp-111222".utf8))
        #expect(copy.stderr.contains("not recorded"), "\(copy)")
        let pasted = try await sandbox.xclipPaste()
        #expect(pasted.succeeded && pasted.output == "otp-111222", "\(pasted)")

        let library = try sandbox.launch(.clipboardText, ["otp-333444"])
        let owned = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            try await sandbox.xclipPaste().output == "otp-333444" || !library.isRunning
        }
        #expect(owned, "\(library.stderr)")
        library.terminate(grace: .seconds(1))

        try await sandbox.succeed(.pb, ["copy"], stdin: Data("remembered".utf8))
        _ = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            try await sandbox.history().count == 1
        }
        #expect(try await sandbox.history().map { $0["preview"] as? String } == ["remembered"])
        if let daemon {
            daemon.terminate(grace: .seconds(5))
            #expect(!daemon.stderr.contains("otp-"), "the log holds no clipboard contents")
        }
    }
}
