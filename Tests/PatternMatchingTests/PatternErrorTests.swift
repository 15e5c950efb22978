import PatternMatching
import Testing

/// Every refused pattern says why, where, and what to write instead.
@Suite struct PatternErrorTests {
    // MARK: - Syntax

    @Test(arguments: [
        ("ab)", 3), ("(ab", 1), ("a(b(c)", 2), ("[abc", 1), ("a[]", 2), ("*a", 1), ("a|+", 3), ("a**", 3),
        ("a{2}{3}", 5), ("a{", 2), ("a{x}", 2), ("a{,3}", 2), ("{", 1), ("a{3,2}", 2), ("[z-a]", 2), ("[a-\\d]", 4),
        ("\\", 1), ("ab\\", 3), ("\\y", 1), ("\\x", 1), ("\\x{}", 1), ("\\x{110000}", 1), ("\\x{D800}", 1),
        ("\\u12", 1), ("\\c", 1), ("(?z)", 3), ("(?", 1), ("(?i", 1), ("(?)", 1), ("(?<1a>x)", 4), ("[[:foo:]]", 2),
        ("[a&&]", 5), ("[&&a]", 2), ("[\\b]", 2), ("[\\1]", 2), ("(?#abc", 1), ("\\p{Lu", 1), ("\\p", 1), ("é(", 2),
        ("日本)", 3), ("(?P<n", 1), ("(?Px)", 1),
    ])
    func syntaxErrorNamesItsColumn(pattern source: String, column: Int) {
        let error = #expect(throws: PatternError.self) { try Pattern(source) }
        #expect(error?.code == .invalidSyntax)
        #expect(error?.column == column)
        #expect(error?.message.hasPrefix("Invalid regular expression at column \(column): ") == true)
    }

    @Test func unmatchedParenthesisMessage() {
        let error = #expect(throws: PatternError.self) { try Pattern("ab)") }
        #expect(
            error?.message
                == "Invalid regular expression at column 3: unmatched ')'; write \\) for a literal parenthesis. "
                + "Pattern: \"ab)\"")
        #expect(error?.description == error?.message)
        #expect(error?.problem == "unmatched ')'; write \\) for a literal parenthesis")
    }

    // MARK: - Unsupported features

    @Test(arguments: [
        ("(a)\\1", 4, "backreferences"), ("(?<n>a)\\k<n>", 8, "backreferences"),
        ("(?P<n>a)(?P=n)", 9, "backreferences"),
        ("(?=a)", 1, "lookahead"), ("(?!a)", 1, "lookahead"), ("x(?<=a)b", 2, "lookbehind"),
        ("(?<!a)b", 1, "lookbehind"),
        ("(?>a)", 1, "atomic groups"), ("(?(1)a|b)", 1, "conditional"), ("(?R)", 1, "recursion"),
        ("a(?1)", 2, "recursion"),
        ("(?-1)", 1, "recursion"), ("(?P>n)", 1, "recursion"), ("(?&n)", 1, "recursion"),
    ])
    func nonLinearFeatureIsUnsupported(pattern source: String, column: Int, feature: String) {
        let error = #expect(throws: PatternError.self) { try Pattern(source) }
        #expect(error?.code == .unsupported)
        #expect(error?.column == column)
        #expect(error?.problem.hasPrefix(feature) == true)
        #expect(
            error?.problem.hasSuffix(
                "not supported: Pasteboard patterns run in linear time so that no pattern can hang the daemon") == true)
    }

    @Test(arguments: [
        ("\\X", "\\X"), ("\\N{LATIN SMALL LETTER A}", "\\N"), ("\\p{Greek}", "\\p{Greek}"), ("(?w)a", "(?w)"),
        ("a\\Kb", "\\K"), ("(?C1)", "callouts"),
    ])
    func otherFeatureIsUnsupported(pattern source: String, mention: String) {
        let error = #expect(throws: PatternError.self) { try Pattern(source) }
        #expect(error?.code == .unsupported)
        #expect(error?.problem.contains(mention) == true)
    }

    @Test func backreferenceMessageExplainsWhy() {
        let error = #expect(throws: PatternError.self) { try Pattern("(a)\\1") }
        #expect(
            error?.message
                == "Unsupported regular expression at column 4: backreferences such as \\1 are not supported: "
                + "Pasteboard patterns run in linear time so that no pattern can hang the daemon. Pattern: \"(a)\\1\"")
    }

    // MARK: - Limits

    @Test(arguments: [
        "a{1001}", "a{2,5000}", "a{99999999999999999999}", String(repeating: "a", count: 4_097),
        String(repeating: "(", count: 33) + String(repeating: ")", count: 33),
        String(repeating: "[", count: 33) + "a" + String(repeating: "]", count: 33), "(?:a{1000}){11}",
        "((a{1000}){1000}){1000}", "(?:(?:(?:.{10}){10}){10}){10}", "(?s:.{1000}){2}",
        "(?i)[a-z\\d\\s\\p{L}]{1000}", "[" + String(repeating: "\\p{L}\\d", count: 30) + "]{200}",
    ])
    func oversizedPatternIsTooComplex(pattern source: String) {
        let error = #expect(throws: PatternError.self) { try Pattern(source) }
        #expect(error?.code == .tooComplex)
    }

    @Test func repeatingNothingCompilesAtOnce() throws {
        let pattern = try Pattern("(((?:){1000}){1000}){1000}(?:a{0}){1000}")
        #expect(pattern.matches(in: "anything"))
    }

    @Test func deeplyNestedCaseInsensitiveClassStaysCheap() throws {
        let nested = String(repeating: "[", count: 32) + "k" + String(repeating: "]", count: 32)
        let pattern = try Pattern("(?i)" + nested + "+")
        let text = String(repeating: "K\u{212A}k", count: 10_000)
        #expect(pattern.firstMatch(in: text) == text.startIndex..<text.endIndex)
        let chain = try Pattern("[a-z" + String(repeating: "&&[a-y]", count: 500) + "]")
        #expect(chain.matches(in: "Zy"))
        #expect(!chain.matches(in: "Zz"))
    }

    @Test func largestCountsAndSizesAreAccepted() throws {
        _ = try Pattern("a{1000}")
        _ = try Pattern("a{0,500}b{900}")
        _ = try Pattern(String(repeating: "a", count: 1_900))
        _ = try Pattern(String(repeating: "(", count: 32) + String(repeating: ")", count: 32))
        _ = try Pattern(String(repeating: "(?:a|", count: 32) + String(repeating: ")+", count: 32))
        _ = try Pattern(String(repeating: "[^", count: 32) + "a" + String(repeating: "]", count: 32))
    }

    @Test func nestingLimitNamesTheGroup() {
        let error = #expect(throws: PatternError.self) {
            try Pattern("x" + String(repeating: "(", count: 33) + String(repeating: ")", count: 33))
        }
        #expect(error?.column == 34)
        #expect(error?.problem == "groups and classes are nested more than 32 deep")
    }

    @Test func countLimitNamesTheCount() {
        let error = #expect(throws: PatternError.self) { try Pattern("x{5000}") }
        #expect(error?.column == 2)
        #expect(error?.problem.hasPrefix("the count {5000} is above the limit of 1000") == true)
    }

    @Test func programLimitHasNoColumn() {
        let error = #expect(throws: PatternError.self) { try Pattern("(?:a{1000}){3}") }
        #expect(error != nil)
        #expect(error?.column == nil)
        #expect(error?.message.hasPrefix("Regular expression too complex: it would take more than 2000 steps") == true)
    }

    // MARK: - Quoting the pattern

    @Test func messageQuotesAtMost200BytesOfThePattern() {
        let source = String(repeating: "é", count: 300) + ")"
        let error = #expect(throws: PatternError.self) { try Pattern(source) }
        #expect(error?.column == 301)
        #expect(error?.quotedPattern == "\"" + String(repeating: "é", count: 100) + "…\"")
        #expect((error?.message.utf8.count ?? .max) < 400)
    }

    @Test func messageEscapesControlCharacters() {
        let error = #expect(throws: PatternError.self) { try Pattern("a\n\t\r\u{1B}[\u{202E}") }
        #expect(error?.quotedPattern == "\"a\\n\\t\\r\\u{1B}[\\u{202E}\"")
        #expect(error?.message.contains("\n") == false)
        #expect(error?.column == 6)
    }

    @Test(arguments: [("[\n-\u{1}]", "\\n-\\u{1}"), ("(?\u{2028})", "\\u{2028}"), ("\\p{x\ny}", "x\\ny")])
    func problemEscapesThePatternsCharacters(pattern source: String, escaped: String) {
        let error = #expect(throws: PatternError.self) { try Pattern(source) }
        #expect(error?.problem.contains(escaped) == true)
        #expect(error?.message.contains("\n") == false)
    }
}
