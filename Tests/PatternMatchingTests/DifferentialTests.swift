import PatternMatching
import Testing

/// The engine against NSRegularExpression on a table covering every supported feature: the same answer to
/// "is there a match", and the same leftmost match, start and end.
@Suite struct DifferentialTests {
    @Test(arguments: DifferentialCases.all)
    func agreesWithNSRegularExpression(pattern source: String, text: String) throws {
        let expected = try Oracle.firstMatch(source, in: text)
        let pattern = try Pattern(source)
        #expect(pattern.matches(in: text) == (expected != nil))
        #expect(pattern.firstMatchOffsets(in: text) == expected)
    }

    /// Options given to the initializer, each with a pattern and a text it changes the answer for.
    static let optionCases: [(String, String, Pattern.Options)] = [
        ("abc", "xABC", .caseInsensitive), ("[é-ë]", "Ê", .caseInsensitive), ("^b$", "a\nb\nc", .anchorsMatchLines),
        ("a$", "a\nb", .anchorsMatchLines), ("a.b", "a\nb", .dotMatchesLineSeparators),
        ("a.b", "a\r\nb", .dotMatchesLineSeparators), (" a b # c", "ab", .allowsCommentsAndWhitespace),
        ("(?-i)a", "A", .caseInsensitive), ("(?-m)^b", "a\nb", .anchorsMatchLines),
        ("^B.$", "a\nb\r\n", [.caseInsensitive, .anchorsMatchLines, .dotMatchesLineSeparators]),
    ]

    /// Options given to the initializer behave like the inline flags and NSRegularExpression's options.
    @Test(arguments: optionCases)
    func optionsAgreeWithNSRegularExpression(pattern source: String, text: String, options: Pattern.Options) throws {
        let expected = try Oracle.firstMatch(source, in: text, options: options)
        let pattern = try Pattern(source, options: options)
        #expect(pattern.matches(in: text) == (expected != nil))
        #expect(pattern.firstMatchOffsets(in: text) == expected)
    }

    @Test func tableCoversEnoughCases() {
        #expect(DifferentialCases.all.count >= 150)
    }
}
