import PatternMatching
import Testing

/// Patterns that take a backtracking engine exponential or quadratic time finish at once on 100 KB of text.
///
/// Each search must take under 2 s of CPU time in a debug build (release builds take milliseconds) and under 10 s
/// of wall-clock time, generous for a machine busy with parallel tests; ICU takes minutes on some of them.
@Suite struct LinearTimeTests {
    static let cpuBound = Duration.seconds(2)
    static let wallClockBound = Duration.seconds(10)

    /// A large text, named briefly so that a failing case does not print 100 KB.
    struct Input: Sendable, CustomTestStringConvertible {
        let text: String
        let testDescription: String

        init(_ text: String, _ name: String) {
            self.text = text
            testDescription = name
        }
    }

    static let aaa = String(repeating: "a", count: 100_000)
    static let lines = String(repeating: String(repeating: "a", count: 15) + "\n", count: 6_250)

    @Test(arguments: [
        ("(a+)+$", Input(aaa + "b", "100 KB of a, then b"), false), ("(a+)+$", Input(aaa, "100 KB of a"), true),
        ("(a|a)*b", Input(aaa + "c", "100 KB of a, then c"), false),
        ("(a|a)*b", Input(aaa + "b", "100 KB of a, then b"), true),
        ("(a*)*c", Input(aaa + "b", "100 KB of a, then b"), false),
        ("(a*)*c", Input(aaa + "c", "100 KB of a, then c"), true),
        ("(.*a){20}", Input(lines, "100 KB of lines of 15 a"), false),
        ("(.*a){20}", Input(lines + String(repeating: "a", count: 20), "100 KB of lines of 15 a, then 20 a"), true),
        ("(x+x+)+y", Input(String(repeating: "x", count: 100_000) + "-y", "100 KB of x, then -y"), false),
        ("^(([a-z])+.)+[A-Z]([a-z])+$", Input(aaa + "!", "100 KB of a, then !"), false),
        ("^(\\w+\\s?)*$", Input(String(repeating: "word ", count: 20_000) + "!", "20,000 words, then !"), false),
        ("(?i)(a|A|\\w)*z", Input(aaa, "100 KB of a"), false),
        (String(repeating: "a", count: 1_900) + "b", Input(aaa, "100 KB of a"), false),
    ])
    func pathologicalPatternFinishesQuickly(pattern source: String, input: Input, matches: Bool) throws {
        let text = input.text
        let pattern = try Pattern(source)
        var found = false
        let search = Stopwatch { found = pattern.matches(in: text) }
        #expect(found == matches)
        var range: Range<String.Index>?
        let firstMatch = Stopwatch { range = pattern.firstMatch(in: text) }
        #expect((range != nil) == matches)
        for time in [search, firstMatch] {
            #expect(time.cpu < Self.cpuBound, "\(source): \(time.cpu) of CPU time")
            #expect(time.wallClock < Self.wallClockBound, "\(source): \(time.wallClock)")
        }
    }

    @Test func literalSearchOfAMegabyteIsQuick() throws {
        let text = String(repeating: "the quick brown fox jumps over the lazy dog ", count: 24_000)
        let pattern = try Pattern("lazy cat")
        var found = true
        let time = Stopwatch { found = pattern.matches(in: text) }
        #expect(!found)
        #expect(time.cpu < .milliseconds(500))
    }
}
