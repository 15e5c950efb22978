import Foundation
import PasteboardTestSupport
import Testing

/// Hostile and mistaken input on the command line and in the configuration: every one gets a clear
/// message and a non-zero exit, and nothing changes when a command cannot do all it was asked.
@Suite struct InputValidationTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func copyAll(_ texts: [String]) async throws -> [Int64] {
        for text in texts { try await sandbox.copy(text) }
        return try await sandbox.history().reversed().map(\.id)
    }

    // MARK: - several ids: all or nothing

    @Test func pinOfAMissingIdPinsNothing() async throws {
        let ids = try await copyAll(["one", "two"])
        let result = try await sandbox.run(["pin", String(ids[0]), "999", String(ids[1]), "998"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: No history items with ids 999, 998."])
        #expect(result.stdout.isEmpty)
        #expect(try await sandbox.history().allSatisfy { !$0.isPinned })
        let both = try await sandbox.succeed(["pin", String(ids[0]), String(ids[1])])
        #expect(both.outputLines == ["Pinned \(ids[0]) and \(ids[1])."])
        #expect(try await sandbox.history().allSatisfy(\.isPinned))
        let unpin = try await sandbox.run(["unpin", String(ids[0]), "999"])
        #expect(unpin.status == 1)
        #expect(try await sandbox.history().allSatisfy(\.isPinned))
    }

    @Test func aRepeatedIdIsDeletedOnceAndReportedOnce() async throws {
        let ids = try await copyAll(["one", "two", "three"])
        let result = try await sandbox.succeed(["delete", String(ids[1]), String(ids[1])])
        #expect(result.outputLines == ["Deleted \(ids[1])."], "\(result)")
        #expect(try await sandbox.history().map(\.id) == [ids[2], ids[0]])
    }

    // MARK: - durations

    @Test(arguments: [
        ("99999999999999999999d", "Error: --expire '99999999999999999999d': a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years."),
        ("5", "Error: --expire '5': a duration needs a unit: 30s, 5m, 2h, 7d or 4w."),
        ("infs", "Error: --expire 'infs': a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years."),
    ])
    func absurdOrUnitlessExpiryIsRefused(duration: String, message: String) async throws {
        let result = try await sandbox.run(["copy", "--expire", duration], stdin: Data("secret".utf8))
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.first == message)
        #expect(try await sandbox.history().isEmpty)
    }

    @Test func theLongestExpiryIsStoredAndExportedAgain() async throws {
        try await sandbox.copy("for a century", ["--expire", "36500d"])
        let export = try await sandbox.succeed(["export"])
        #expect(export.output.contains("\"expiresAt\""), "\(export)")
        let other = try Sandbox()
        let file = try other.file("history.jsonl", export.stdout)
        try await other.succeed(["import", file.path])
        #expect(try await other.history().map(\.preview) == ["for a century"])
        #expect(try await other.history().first?.hasExpiry == true)
    }

    // MARK: - the configuration

    @Test(arguments: [
        ("ignore-type = bogus\n", "config:1: ignore-type 'bogus' is not a known type."),
        ("max-items = 0\n", "config:1: max-items needs a whole number of at least 1"),
        ("max-age = 30\n", "config:1: max-age: a duration needs a unit"),
        ("\n\nmax-age = 1e400d\n", "config:3: max-age: a duration is a positive number"),
    ])
    func aBadSettingNamesItsLine(config: String, fragment: String) async throws {
        try sandbox.writeConfig(config)
        let result = try await sandbox.run(["history"])
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains(fragment), "\(result)")
    }

    @Test func typePatternsThatNameTypesAreAccepted() async throws {
        try sandbox.writeConfig("ignore-type = image/*\nignore-type = text/html\nignore-type = png\nignore-type = public.rtf\n")
        try await sandbox.succeed(["history"])
    }

    // MARK: - regular expressions

    @Test func anInvalidRegexIsAUsageError() async throws {
        try await sandbox.copy("text")
        let result = try await sandbox.run(["search", "--regex", "(unclosed"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.first?.hasPrefix("Error: Invalid regular expression") == true, "\(result)")
    }

    // MARK: - what errors and show print

    @Test func errorsQuoteAtMost200BytesWithControlCharactersEscaped() async throws {
        let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J" + String(repeating: "x", count: 5000)
        let result = try await sandbox.run(["show", hostile])
        #expect(result.status == 64)
        let first = try #require(result.errorLines.first)
        #expect(!first.contains("\u{1B}") && !first.contains("\u{07}"), "\(result)")
        #expect(first.hasPrefix("Error: '\\e]0;owned\\u{7}\\e[2J"), "\(result)")
        #expect(first.contains("…'"))
        #expect(first.utf8.count < 300, "\(first.utf8.count) bytes")
    }

    @Test func showEscapesTerminalControlUnlessRaw() async throws {
        let text = "before \u{1B}]0;pwned\u{07} after, a long enough text to be text\n"
        try await sandbox.copy(Data(text.utf8), ["--type", "text"])
        let id = try #require(try await sandbox.history().first?.id)
        let shown = try await sandbox.succeed(["show", String(id)])
        #expect(!shown.output.contains("\u{1B}"), "\(shown)")
        #expect(shown.output.contains("before \\e]0;pwned\\u{7} after"), "\(shown)")
        let raw = try await sandbox.succeed(["show", "--raw", String(id)])
        #expect(raw.output.hasSuffix(text), "\(raw)")
        let listed = try await sandbox.succeed(["history"])
        #expect(!listed.output.contains("\u{1B}"), "\(listed)")
    }

    @Test func showPrintsAt64KiBOfTextUnlessFull() async throws {
        let text = String(repeating: "é漢", count: 40_000)  // 200,000 bytes, no ASCII to cut at
        try await sandbox.copy(text)
        let id = try #require(try await sandbox.history().first?.id)
        let shown = try await sandbox.succeed(["show", String(id)])
        #expect(shown.stdout.count < 70_000, "\(shown.stdout.count) bytes")
        let lines = shown.outputLines
        #expect(lines.last == "… 134 KB more (pb show --full \(id), or pb paste after pb restore \(id))", "\(lines.suffix(2))")
        #expect(lines.dropLast().last?.hasSuffix("é漢") == true || lines.dropLast().last?.hasSuffix("é") == true)
        let full = try await sandbox.succeed(["show", "--full", String(id)])
        #expect(full.output.hasSuffix(text + "\n"))
    }
}
