import PatternMatching
import Testing

/// `Pattern.indexLiteral`: the text every match contains, for a search index that drops accents and ignores case.
@Suite struct IndexLiteralTests {
    @Test(arguments: [
        ("error: [0-9]+ failed", [], "error: "),
        ("https?://example", [.caseInsensitive], "://example"),
        ("(foo|foobar)baz", [], "foo"),
        ("a*bcd", [], "bcd"),
        ("café au lait", [.caseInsensitive], " au lait"),
        ("(?-i)café", [.caseInsensitive], "café"),
        ("x{3}y", [], "xxxy"),
        ("\\d+", [], ""),
        ("ab(cd)?ef", [], "ab"),
        ("(?:abc)+def", [], "abc"),
        ("TOKEN=[A-Z]+", [.caseInsensitive], "token="),
    ] as [(String, Pattern.Options, String)])
    func theLiteralIsWhatEveryMatchHolds(source: String, options: Pattern.Options, literal: String) throws {
        #expect(try Pattern(source, options: options).indexLiteral == literal)
    }

    /// What the index holds of a text, in this test's alphabet: ASCII lowercased, the Kelvin sign as `k` (its
    /// decomposition), anything else as it is (ſ stays ſ, which is why `s` is never in a case-insensitive literal).
    static func folded(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar -> Unicode.Scalar in
            if scalar.value == 0x212A { return "k" }
            if (0x41...0x5A).contains(scalar.value) { return Unicode.Scalar(UInt8(scalar.value + 0x20)) }
            return scalar
        }))
    }

    /// For random patterns and texts: whenever the pattern matches, the folded text holds the folded literal.
    @Test func everyMatchHoldsTheLiteral() throws {
        var random = SplitMix(seed: 26)
        let atoms = ["a", "b", "s", "S", "k", "K", "é", ".", "\\d", "(ab|ac)", "x?", "y*", "z+", "[ks]", "ab{2}", "(?-i:Sk)"]
        let alphabet: [Unicode.Scalar] = ["a", "b", "c", "s", "S", "k", "K", "\u{212A}", "\u{17F}", "é", "x", "y", "z", "1", " "]
        var checked = 0
        for _ in 0..<3_000 {
            let source = (0..<random.next(upTo: 7) + 1).map { _ in atoms[random.next(upTo: atoms.count)] }.joined()
            let options: Pattern.Options = random.next(upTo: 2) == 0 ? [.caseInsensitive] : []
            guard let pattern = try? Pattern(source, options: options) else { continue }
            let literal = Self.folded(pattern.indexLiteral)
            for _ in 0..<20 {
                let text = String(String.UnicodeScalarView((0..<random.next(upTo: 14)).map { _ in
                    alphabet[random.next(upTo: alphabet.count)]
                }))
                guard pattern.matches(in: text) else { continue }
                checked += 1
                #expect(literal.isEmpty || Self.folded(text).contains(literal), "\(source) \(options) matches \(text) but lacks \(literal)")
            }
        }
        #expect(checked > 1_000, "too few matches to say anything: \(checked)")
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(upTo bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
