import Foundation
import Testing

/// `pb search`: substring (indexed for three or more characters, scanned below) and regular expressions.
@Suite struct SearchCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func copyCorpus() async throws {
        for text in ["Invoice 2024-001 for ACME", "grocery list: milk, eggs", "https://example.com/invoice", "Ab", "日本語のテキスト"] {
            try await sandbox.copy(text)
        }
    }

    func previews(_ arguments: [String]) async throws -> [String] {
        let result = try await sandbox.succeed(["search", "--json"] + arguments)
        return try Sandbox.entries(fromJSON: result.stdout).map(\.preview)
    }

    @Test(arguments: [
        ("invoice", ["https://example.com/invoice", "Invoice 2024-001 for ACME"]),
        ("INVOICE", ["https://example.com/invoice", "Invoice 2024-001 for ACME"]),
        ("acme", ["Invoice 2024-001 for ACME"]),
        ("milk, EGGS", ["grocery list: milk, eggs"]),
        ("テキスト", ["日本語のテキスト"]),
        ("ab", ["Ab"]),
        ("AB", ["Ab"]),
        ("k,", ["grocery list: milk, eggs"]),
        ("語", ["日本語のテキスト"]),
    ])
    func substringSearchIgnoresCase(query: String, expected: [String]) async throws {
        try await copyCorpus()
        #expect(try await previews([query]) == expected)
    }

    /// Letters beyond ASCII ignore case too, in the scan (one or two characters) and through the index (three or
    /// more): SQLite folds ASCII alone, so the scan cannot use it as a prefilter, and pb lowercases both sides itself.
    @Test(arguments: [
        ("é", ["ÉCOLE normale", "café"]), ("É", ["ÉCOLE normale", "café"]), ("éc", ["ÉCOLE normale"]),
        ("ÉCo", ["ÉCOLE normale"]), ("σο", ["σοφία"]), ("ΣΟΦ", ["σοφία"]),
    ])
    func nonASCIISearchIgnoresCase(query: String, expected: [String]) async throws {
        for text in ["café", "ÉCOLE normale", "σοφία", "plain"] {
            try await sandbox.copy(text)
        }
        #expect(Set(try await previews([query])) == Set(expected))
    }

    @Test func tableOutputAndLimit() async throws {
        try await copyCorpus()
        let result = try await sandbox.succeed(["search", "invoice"])
        #expect(result.outputLines.count == 2, "\(result)")
        #expect(result.outputLines[0].hasSuffix("https://example.com/invoice"))
        let limited = try await sandbox.succeed(["search", "--limit", "1", "invoice"])
        #expect(limited.outputLines.count == 1)
        let dmenu = try await sandbox.succeed(["search", "--format", "dmenu", "grocery"])
        #expect(dmenu.outputLines.count == 1)
        #expect(dmenu.outputLines.first?.hasSuffix("\tgrocery list: milk, eggs") == true)
    }

    /// Accents are ignored too, both ways, in the index (three characters or more) and in the scan.
    @Test(arguments: [
        ("Unic", ["Ünïcödé"]), ("cafe", ["Café", "cafe"]), ("Café", ["Café", "cafe"]), ("ca", ["Café", "cafe"]),
    ])
    func searchIgnoresAccents(query: String, expected: [String]) async throws {
        for text in ["Ünïcödé", "Café", "cafe", "plain"] {
            try await sandbox.copy(text)
        }
        #expect(Set(try await previews([query])) == Set(expected))
        #expect(try await previews(["--regex", "^unicode$"]) == ["Ünïcödé"])
    }

    @Test func regexSearch() async throws {
        try await copyCorpus()
        #expect(try await previews(["--regex", "^https?://"]) == ["https://example.com/invoice"])
        #expect(try await previews(["-e", "[0-9]{4}-[0-9]{3}"]) == ["Invoice 2024-001 for ACME"])
        #expect(try await previews(["--regex", "^ab$"]) == ["Ab"], "a regex ignores case unless it asks otherwise")
        let caseSensitive = try await sandbox.run(["search", "--regex", "(?-i)^ab$"])
        #expect(caseSensitive.status == 1, "(?-i) makes a regex mind case: \(caseSensitive)")
    }

    @Test func noMatchExitsOne() async throws {
        try await copyCorpus()
        let result = try await sandbox.run(["search", "zebra crossing"])
        #expect(result.status == 1)
        #expect(result.errorLines == ["Error: No items match 'zebra crossing'."])
        #expect(result.stdout.isEmpty)
        let short = try await sandbox.run(["search", "qz"])
        #expect(short.status == 1)
        let regex = try await sandbox.run(["search", "--regex", "^zzz"])
        #expect(regex.status == 1)
        let json = try await sandbox.run(["search", "--json", "zebra"])
        #expect(json.status == 0, "JSON output is an empty array rather than an error")
        #expect(try JSONSerialization.jsonObject(with: json.stdout) as? [Any] != nil)
    }

    @Test func invalidRegexFailsClearly() async throws {
        try await copyCorpus()
        let result = try await sandbox.run(["search", "--regex", "(unclosed[group"])
        #expect(result.status == 64, "a pattern that is not one is a usage error: \(result)")
        #expect(!result.wasSignalled)
        #expect(result.errorLines.count == 3 && result.errorLines[1].hasPrefix("Usage: pb search"), "\(result)")
        let line = try #require(result.errorLines.first)
        #expect(line.hasPrefix("Error: "))
        #expect(line.lowercased().contains("regular expression") || line.lowercased().contains("regex"), "\(result)")
        #expect(line.contains("(unclosed[group"), "the message names the pattern: \(result)")
    }

    @Test func emptyQueryIsAUsageError() async throws {
        let result = try await sandbox.run(["search", ""])
        #expect(result.status == 64)
        #expect(result.errorLines.first == "Error: The search text is empty.")
        let missing = try await sandbox.run(["search"])
        #expect(missing.status == 64)
        #expect(missing.errorLines.first == "Error: Missing argument QUERY.")
    }
}

/// While the search index catches up after an import (its backlog), `pb search` still finds every item and says why
/// it may be slower; once the backlog is indexed, it says nothing.
@Suite struct SearchBacklogNoteTests {
    @Test func searchSaysTheIndexIsCatchingUpAndStillFindsEverything() async throws {
        let sandbox = try Sandbox()
        for text in ["Invoice 2024-001 for ACME", "grocery list: milk, eggs", "https://example.com/invoice"] {
            try await sandbox.copy(text)
        }
        // What an import stopped before its indexing leaves (and what migration 6 does): every item in the backlog.
        try SQLiteTool.run(
            "INSERT INTO item_text(item_text) VALUES('delete-all'); "
                + "INSERT INTO search_backlog(id, indexed_through) SELECT 1, min(position) - 1 FROM items;",
            on: sandbox.databaseURL, in: sandbox)
        let during = try await sandbox.succeed(["search", "invoice"])
        #expect(during.outputLines.count == 2, "\(during)")
        #expect(during.stderr.contains("Note: the search index is catching up after an import"), "\(during)")
        // `pb import` indexes the backlog before it ends, whatever it imported (here nothing new).
        let again = try sandbox.file("io/again.jsonl", Data(#"{"text":"grocery list: milk, eggs"}"#.utf8 + [0x0A]))
        try await sandbox.succeed(["import", again.path])
        let after = try await sandbox.succeed(["search", "invoice"])
        #expect(after.outputLines.count == 2, "\(after)")
        #expect(after.stderr.isEmpty, "\(after)")
    }
}
