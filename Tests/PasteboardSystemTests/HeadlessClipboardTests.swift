import Foundation
import PasteboardTestSupport
import Testing

/// Without a display, `Pasteboard.general` is the store: what one process copies, another pastes.
@Suite(.timeLimit(.minutes(2))) struct HeadlessClipboardTests {
    let sandbox: ProcessSandbox

    init() throws {
        sandbox = try ProcessSandbox()
    }

    @Test func profileCopiedInOneProcessIsPastedWholeInAnother() async throws {
        let copy = try await sandbox.succeed(.profile, ["copy", "Ada Lovelace", "36"])
        #expect(copy.lines == ["copied"], "\(copy)")

        let paste = try await sandbox.succeed(.profile, ["paste"])
        #expect(paste.lines == ["profile: Ada Lovelace, 36"], "\(paste)")
    }

    @Test func textFieldsPasteTheProfilesName() async throws {
        try await sandbox.succeed(.profile, ["copy", "Ada Lovelace", "36"])

        let plain = try await sandbox.succeed(.pb, ["paste"])
        #expect(plain.output == "Ada Lovelace", "\(plain)")
    }

    @Test func profileTypeIsListedBeforeItsPlainTextProxy() async throws {
        try await sandbox.succeed(.profile, ["copy", "Ada Lovelace", "36"])

        let listed = try await sandbox.succeed(.pb, ["paste", "--list-types"])
        let identifiers = listed.lines.map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        #expect(identifiers.first == "com.example.profile", "\(listed)")
        #expect(identifiers.contains("public.utf8-plain-text"), "\(listed)")
    }

    @Test func profileIsStoredAsSortedJSON() async throws {
        try await sandbox.succeed(.profile, ["copy", "Ada Lovelace", "36"])

        let json = try await sandbox.succeed(.pb, ["paste", "--type", "com.example.profile"])
        #expect(json.output == #"{"age":36,"name":"Ada Lovelace"}"#, "\(json)")
    }

    @Test func copyingTheSameProfileTwiceKeepsOneHistoryItem() async throws {
        // Each copy runs in a fresh process; the encoded bytes must not depend on the process.
        for _ in 0..<4 { try await sandbox.succeed(.profile, ["copy", "Ada Lovelace", "36"]) }

        let history = try await sandbox.history()
        #expect(history.count == 1, "\(history)")
        #expect(history.first?["copyCount"] as? Int == 4, "\(history)")
    }

    @Test func csvTableRoundTripsThroughTheStore() async throws {
        let copy = try await sandbox.succeed(.csvArchive, ["copy"])
        #expect(copy.lines == ["copied 3 rows"], "\(copy)")

        let paste = try await sandbox.succeed(.csvArchive, ["paste"])
        #expect(paste.lines == ["city | population", "Lisbon | 545923", "Porto | 231800"], "\(paste)")
    }

    @Test func plainTextOnTheClipboardPastesAsANameOnly() async throws {
        try await sandbox.succeed(.pb, ["copy"], stdin: Data("hi\n".utf8))

        let paste = try await sandbox.succeed(.profile, ["paste"])
        // `echo hi` copies "hi\n"; the name keeps its newline, so the line is followed by an empty one.
        #expect(paste.lines.first == "name only: hi", "\(paste)")
        #expect(!paste.output.contains("profile:"), "\(paste)")
    }

    @Test func profilePasteFailsClearlyOnAnEmptyClipboard() async throws {
        let paste = try await sandbox.run(.profile, ["paste"])
        #expect(paste.status == 1 && !paste.wasSignalled, "\(paste)")
        #expect(paste.stderr.hasPrefix("Error: "), "\(paste)")
        #expect(paste.stdout.isEmpty, "\(paste)")
    }

    @Test func csvPasteRefusesPlainText() async throws {
        try await sandbox.succeed(.pb, ["copy"], stdin: Data("just words".utf8))

        let paste = try await sandbox.run(.csvArchive, ["paste"])
        #expect(paste.status == 1, "\(paste)")
        #expect(paste.lines == ["Error: the clipboard holds no CSV"], "\(paste)")
    }

    @Test func clipboardTextPrintsWhatPbCopied() async throws {
        try await sandbox.succeed(.pb, ["copy"], stdin: Data("from pb".utf8))

        let paste = try await sandbox.succeed(.clipboardText, [])
        #expect(paste.lines == ["from pb"], "\(paste)")
    }
}
