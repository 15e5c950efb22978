import PatternMatching
import Testing

/// The public surface: what a match is, how it is reported, and where Pasteboard departs from ICU on purpose.
@Suite struct PatternTests {
    // MARK: - Matching

    @Test func emptyPatternMatchesEverything() throws {
        let pattern = try Pattern("")
        #expect(pattern.matches(in: ""))
        #expect(pattern.matches(in: "anything"))
        let text = "abc"
        #expect(pattern.firstMatch(in: text) == text.startIndex..<text.startIndex)
    }

    @Test func firstMatchIsARangeOfTheText() throws {
        let text = "naïve café, 日本語 ok"
        let pattern = try Pattern("caf.|日本")
        let range = try #require(pattern.firstMatch(in: text))
        #expect(text[range] == "café")
        let japanese = try #require(try Pattern("日本.").firstMatch(in: text))
        #expect(text[japanese] == "日本語")
    }

    @Test func matchMayEndInsideACharacter() throws {
        let text = "cafe\u{301} au lait"
        let range = try #require(try Pattern("fe").firstMatch(in: text))
        #expect(String(text.unicodeScalars[range]) == "fe")
    }

    @Test func noMatchIsNil() throws {
        let pattern = try Pattern("x+y")
        #expect(pattern.firstMatch(in: "xxxx") == nil)
        #expect(!pattern.matches(in: "xxxx"))
    }

    @Test(arguments: [
        ("cat|category", "category", "cat"), ("category|cat", "category", "category"), ("<.+>", "<a><b>", "<a><b>"),
        ("<.+?>", "<a><b>", "<a>"), ("a{2,3}", "aaaa", "aaa"), ("a{2,3}?", "aaaa", "aa"),
        ("(a|ab)(c|bcd)", "abcd", "abcd"),
        ("x*", "yxx", ""), ("\\d+", "ab 123 45", "123"), ("(?:a|b)*?c", "ababc", "ababc"),
    ])
    func matchIsLeftmostFirst(pattern source: String, text: String, expected: String) throws {
        let range = try #require(try Pattern(source).firstMatch(in: text))
        #expect(String(text.unicodeScalars[range]) == expected)
    }

    @Test func possessiveQuantifiersCountAsGreedy() throws {
        // ICU finds no match (a++ keeps every a); here a++ may give one back.
        let range = try #require(try Pattern("a++a").firstMatch(in: "aaa"))
        #expect(range == "aaa".startIndex..<"aaa".endIndex)
        #expect(try Pattern("x*+y").matches(in: "xxy"))
    }

    // MARK: - Prefilters find every match

    @Test(arguments: [
        ("abd", "abcabd", true), ("needle\\d", String(repeating: "needle ", count: 1_000) + "needle7", true),
        ("needle\\d", String(repeating: "needle ", count: 1_000), false), ("日本語", "日本日本語", true),
        ("(?:foo|foobar)baz", "foobarbaz", true), ("\\bword\\b", "swordfish words word", true),
        ("\\bword\\b", "swordfish words", false), ("[xz]q", String(repeating: "xz", count: 500) + "zq", true),
        ("(?i)zebra", "a ZEBRA", true), ("(?i)straße", "STRAẞE", true), ("😀+!", "😀😀 😀!", true),
        ("a.c", "a\u{10FFFF}c", true), ("^abc", "xabc", false), ("abc$", "abcabc", true), ("(?m)^abc", "x\nabc", true),
        ("\\d{3}-\\d{4}", "call 555-1234 now", true),
        ("foo.*bar", "foo " + String(repeating: "x", count: 5_000), false),
    ])
    func prefiltersKeepEveryMatch(pattern source: String, text: String, matches: Bool) throws {
        let pattern = try Pattern(source)
        #expect(pattern.matches(in: text) == matches)
        #expect((pattern.firstMatch(in: text) != nil) == matches)
    }

    // MARK: - Case folding

    @Test(arguments: [
        ("é", "É", true), ("straße", "STRAẞE", true), ("ß", "ss", false), ("k", "\u{212A}", true), ("s", "ſ", true),
        ("σ", "ς", true), ("Σ", "σ", true), ("i", "İ", false), ("ı", "I", false), ("ǆ", "ǅ", true), ("я", "Я", true),
        ("[à-æ]", "Ä", true), ("[^é]", "É", false), ("[[:upper:]]", "a", true), ("\\p{Ll}", "A", true),
        ("Ꭰ", "ꭰ", true), ("𐐀", "𐐨", true), ("ab", "AB", true), ("@", "`", false), ("\\[", "{", false),
    ])
    func caseInsensitiveMatchingUsesSimpleFolding(pattern source: String, text: String, matches: Bool) throws {
        #expect(try Pattern(source, options: .caseInsensitive).matches(in: text) == matches)
    }

    // MARK: - Identity

    @Test func sourceAndOptionsAreKept() throws {
        let pattern = try Pattern("a.b", options: [.caseInsensitive, .dotMatchesLineSeparators])
        #expect(pattern.source == "a.b")
        #expect(pattern.options == [.caseInsensitive, .dotMatchesLineSeparators])
    }

    @Test func equalityIsSourceScalarsAndOptions() throws {
        #expect(try Pattern("a+") == Pattern("a+"))
        #expect(try Pattern("a+") != Pattern("a+", options: .caseInsensitive))
        #expect(try Pattern("é") != Pattern("e\u{301}"))
        let set: Set = [try Pattern("a"), try Pattern("a"), try Pattern("b")]
        #expect(set.count == 2)
    }

    @Test func patternIsSharedAcrossTasks() async throws {
        let pattern = try Pattern("(?i)item \\d+")
        let counts = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    (0..<500).filter { pattern.matches(in: "ITEM \($0 * task)") }.count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(counts == 2_000)
    }

    // MARK: - Departures from NSRegularExpression

    /// Extensions ICU lacks, accepted on purpose.
    @Test(arguments: [
        ("", "x", true), ("}", "a}", true), ("\\u{E9}", "é", true), ("\\x{1F600}", "😀", true),
        ("(?P<year>\\d+)", "2024", true),
        ("\\0", "\u{0}", true), ("\\pL", "a", true), ("\\p{^L}", "1", true), ("(?|a)", "a", true),
        ("(?<first_name>a)", "a", true), ("\\p{L&}", "a", true),
    ])
    func extensionsToICUSyntax(pattern source: String, text: String, matches: Bool) throws {
        #expect(try Pattern(source).matches(in: text) == matches)
    }

    /// Things ICU accepts and Pasteboard refuses: a likely typo, or a count too large to bound.
    @Test(arguments: ["\\y", "\\q", "a{1001}", "\\x{D800}", "(?<a>x)\\k<a>", "\\X"])
    func refusedThoughICUAcceptsThem(pattern source: String) throws {
        #expect(throws: PatternError.self) { try Pattern(source) }
        _ = try Oracle.firstMatch(source, in: "")
    }
}
