import PatternMatching
import Testing

/// Patterns that take a backtracking engine exponential or quadratic time finish at once on 100 KB of text.
///
/// Each search must take under 2 s of CPU time in a debug build (release builds take milliseconds) and under 10 s
/// of wall-clock time, generous for a machine busy with parallel tests; ICU takes minutes on some of them.
@Suite struct LinearTimeTests {
    static let cpuBound = Duration.seconds(2)
    static let wallClockBound = Duration.seconds(10)

    static let aaa = String(repeating: "a", count: 100_000)
    static let lines = String(repeating: String(repeating: "a", count: 15) + "\n", count: 6_250)
    static let words = String(repeating: "word ", count: 20_000) + "!"

    @Test(arguments: [
        ("(a+)+$", aaa + "b", false), ("(a+)+$", aaa, true), ("(a|a)*b", aaa + "c", false),
        ("(a|a)*b", aaa + "b", true),
        ("(a*)*c", aaa + "b", false), ("(a*)*c", aaa + "c", true), ("(.*a){20}", lines, false),
        ("(.*a){20}", lines + String(repeating: "a", count: 20), true),
        ("(x+x+)+y", String(repeating: "x", count: 100_000) + "-y", false),
        ("^(([a-z])+.)+[A-Z]([a-z])+$", aaa + "!", false), ("^(\\w+\\s?)*$", words, false),
        ("(?i)(a|A|\\w)*z", aaa, false),
    ])
    func pathologicalPatternFinishesQuickly(pattern source: String, text: String, matches: Bool) throws {
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
