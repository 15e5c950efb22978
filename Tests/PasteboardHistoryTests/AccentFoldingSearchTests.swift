import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Search ignores accents and case, in every mode and on both paths (`items`, what `pb search` runs, and `page`, what
/// the app, the popup and `pb pick` run), through the index and through scans; schema 6 re-indexes older stores.
@Suite struct AccentFoldingSearchTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    func record(_ texts: [String]) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for text in texts { ids[text] = try store.record(PasteboardItem(string: text)).id }
        return ids
    }

    /// The previews found by both search paths, which must agree.
    func found(_ text: String, mode: HistoryFilter.Mode = .substring) throws -> Set<String> {
        let listed = Set(try store.items(
            HistoryQuery(text: text, isRegex: mode == .regex, limit: 100).with(fuzzy: mode == .fuzzy)).map(\.preview))
        let paged = Set(try store.page(HistoryFilter(text: text, mode: mode), limit: 100).items.map(\.preview))
        #expect(listed == paged, "pb search and the lists disagree on \(text) (\(mode))")
        return paged
    }

    static let corpus = ["Ünïcödé", "Café crème", "cafe latte", "ÉCOLE normale", "Ångström", "plain words", "日本語のテキスト"]

    @Test(arguments: [
        ("Unic", ["Ünïcödé"]),
        ("unicode", ["Ünïcödé"]),
        ("ÜNÏCÖDÉ", ["Ünïcödé"]),
        ("cafe", ["Café crème", "cafe latte"]),
        ("Café", ["Café crème", "cafe latte"]),
        ("creme", ["Café crème"]),
        ("ecole", ["ÉCOLE normale"]),
        ("angstrom", ["Ångström"]),
        ("ca", ["Café crème", "cafe latte"]),  // scanned: shorter than a trigram
        ("é", ["Café crème", "cafe latte", "ÉCOLE normale", "Ünïcödé"]),
        ("テキスト", ["日本語のテキスト"]),
        ("words", ["plain words"]),
    ])
    func substringIgnoresAccentsAndCase(query: String, expected: [String]) throws {
        _ = try record(Self.corpus)
        #expect(try found(query) == Set(expected))
    }

    @Test func decomposedTextAndQueryMatchTheirPrecomposedForms() throws {
        _ = try record(["Cafe\u{301} noir", "Zoë"])
        #expect(try found("café") == ["Cafe\u{301} noir"])
        #expect(try found("zoe\u{308}") == ["Zoë"])
        #expect(try found("zoe") == ["Zoë"])
    }

    @Test func theBacklogOfAnImportIsSearchedTheSameWay() throws {
        let bulk = try HistoryImport(store: store)
        try bulk.add(PasteboardItem(string: "Ünïcödé imported"), metadata: CaptureMetadata(date: Date()))
        try bulk.commit()
        #expect(try store.unindexedCount() == 1)
        #expect(try found("Unic") == ["Ünïcödé imported"])
        while try store.indexBacklog() > 0 {}
        #expect(try found("Unic") == ["Ünïcödé imported"])
    }

    @Test func fuzzyIgnoresAccentsAndCase() throws {
        _ = try record(Self.corpus)
        #expect(try found("ucd", mode: .fuzzy) == ["Ünïcödé"])
        #expect(try found("CFCRM", mode: .fuzzy) == ["Café crème"])
    }

    @Test func regexIgnoresCaseAndAccentsUnlessItAsks() throws {
        _ = try record(Self.corpus)
        #expect(try found("^unic", mode: .regex) == ["Ünïcödé"])
        #expect(try found("^caf[eé] ", mode: .regex) == ["Café crème", "cafe latte"])
        #expect(try found("crème$", mode: .regex) == ["Café crème"])
        #expect(try found("creme$", mode: .regex) == ["Café crème"])
        #expect(try found("(?-i)^école", mode: .regex).isEmpty)
        #expect(try found("(?-i)^ÉCOLE", mode: .regex) == ["ÉCOLE normale"])
        #expect(try found("\\u00E9", mode: .regex) == ["Café crème", "Ünïcödé", "ÉCOLE normale"])
    }

    @Test func theIndexHoldsTextsWithoutTheirAccentsAndStaysExactAfterDeletes() throws {
        let ids = try record(["Ünïcödé", "Ünïcödé again"])
        #expect(try indexMatchCount(location, phrase: "unicode") == 2)
        try store.delete(id: try #require(ids["Ünïcödé"]))
        #expect(try indexMatchCount(location, phrase: "unicode") == 1)
        // A repeat moves the item: its entry is rebuilt from the same bytes, so it is removed exactly.
        try store.record(PasteboardItem(string: "Ünïcödé again"))
        #expect(try indexMatchCount(location, phrase: "unicode") == 1)
        #expect(try found("Unic") == ["Ünïcödé again"])
    }

    /// A store of schema 5 holds index entries with accents: schema 6 empties the index, every item becomes the
    /// backlog (searched exactly meanwhile), and the catch-up indexes them again, a slice at a time.
    @Test func aStoreOfSchemaFiveIsReindexedWithoutAccents() throws {
        let ids = try record(["Ünïcödé", "plain ascii", "Café crème"])
        do {
            // What schema 5 wrote: every text indexed as it is.
            let db = try rawConnection(location)
            try db.execute(
                """
                INSERT INTO item_text(item_text) VALUES ('delete-all');
                INSERT INTO item_text(rowid, text) SELECT i.position, CAST(b.data AS TEXT) FROM items i
                    JOIN blobs b ON b.id = i.text_blob;
                DROP TABLE recognized_text;
                \(try undoingSchema14(db))
                PRAGMA user_version = 5;
                """)
        }
        let reopened = try HistoryStore(location: location)
        #expect(try reopened.stats().schemaVersion == 15)
        #expect(try reopened.unindexedCount() == 3)
        #expect(try indexMatchCount(location, phrase: "ünï") == 0)
        #expect(try reopened.items(HistoryQuery(text: "Unic")).map(\.id) == [ids["Ünïcödé"]])
        #expect(try reopened.page(HistoryFilter(text: "creme"), limit: 10).items.map(\.id) == [ids["Café crème"]])
        #expect(try reopened.indexBacklog(limit: 2) == 2)
        #expect(try reopened.unindexedCount() == 1)
        #expect(try reopened.items(HistoryQuery(text: "Unic")).map(\.id) == [ids["Ünïcödé"]])
        while try reopened.indexBacklog() > 0 {}
        #expect(try reopened.unindexedCount() == 0)
        #expect(try indexMatchCount(location, phrase: "unicode") == 1)
        #expect(try indexMatchCount(location, phrase: "plain ascii") == 1)
        #expect(try reopened.items(HistoryQuery(text: "Unic")).map(\.id) == [ids["Ünïcödé"]])
        #expect(try reopened.items(HistoryQuery(text: "café")).map(\.id) == [ids["Café crème"]])
        try reopened.delete(id: try #require(ids["Ünïcödé"]))
        #expect(try indexMatchCount(location, phrase: "unicode") == 0)
    }

    // MARK: - Highlighting

    func highlighted(_ text: String, _ query: String, mode: HistoryFilter.Mode = .substring) throws -> [String] {
        try SearchMatcher(query, mode: mode).ranges(in: text).map { String(text.unicodeScalars[$0]) }
    }

    @Test func rangesAreThoseOfTheTextAsWritten() throws {
        #expect(try highlighted("Ünïcödé, ünïcode", "unic") == ["Ünïc", "ünïc"])
        #expect(try highlighted("Cafe\u{301} au lait", "cafe") == ["Cafe\u{301}"])
        #expect(try highlighted("Café crème", "é c") == ["é c"])
        #expect(try highlighted("GitHub home", "gh", mode: .fuzzy) == ["G", "H"])
        #expect(try highlighted("ghost", "gh", mode: .fuzzy) == ["gh"])
        #expect(try highlighted("Ünïcödé 42", "\\d+", mode: .regex) == ["42"])
        #expect(try highlighted("Ünïcödé", "^unic", mode: .regex) == ["Ünïc"])
        #expect(try highlighted("plain", "zzz").isEmpty)
    }

    @Test(arguments: ["(unclosed", "[a-", "a{2,1}", "(a)\\1"])
    func aBadPatternIsAnInvalidInputError(_ pattern: String) {
        #expect(throws: HistoryError.self) { _ = try SearchMatcher(pattern, mode: .regex) }
    }
}

extension HistoryQuery {
    func with(fuzzy: Bool) -> HistoryQuery {
        var query = self
        query.isFuzzy = fuzzy
        return query
    }
}

/// A regex search narrowed by the index (issue 30, item 1) finds what a scan of every item finds.
@Suite struct RegexIndexPrefilterTests {
    @Test func theIndexedRegexSearchFindsWhatAScanFinds() throws {
        let temporary = try TemporaryDirectory()
        let store = try HistoryStore(location: temporary.storeLocation)
        let texts = [
            "error: 42 failed at step 3", "Error: 7 FAILED", "warning: error: 9 failed", "https://example.org/a",
            "http://EXAMPLE.org/b", "HTTPS://example.com", "Café au lait", "cafe au lait", "CAFÉ AU LAIT",
            "token=ABC", "TOKEN=xyz", "Token = no", "Kelvin \u{212A}elvin", "\u{212A}ELVIN only", "ſpecial text",
            "special text",
            "日本語のテキスト error: 1 failed", "plain words",
        ] + (0..<300).map { "filler \($0) words and numbers \($0 * 7)" }
        for text in texts { try store.record(PasteboardItem(string: text)) }
        let patterns = [
            "error: [0-9]+ failed", "https?://example", "caf[eé] au lait", "café au", "(?-i)TOKEN=[a-z]+",
            "token\\s*=", "\\u212Aelvin", "kelvin", "special text", "^filler 2[0-9] words", "numbers (14|21)$",
            "au lait$", "(?-i)Café",
        ]
        for source in patterns {
            let matcher = try SearchMatcher(source, mode: .regex)
            let expected = Set(texts.filter { matcher.matches($0) })
            let listed = Set(try store.items(HistoryQuery(text: source, isRegex: true, limit: 1_000)).map(\.preview))
            let paged = Set(try store.page(HistoryFilter(text: source, mode: .regex), limit: 1_000).items.map(\.preview))
            #expect(listed == expected, "pb search --regex \(source)")
            #expect(paged == expected, "the lists' regex \(source)")
        }
    }
}
