import PatternMatching
import Testing

/// Thousands of small random patterns and texts, the same every run, against NSRegularExpression.
@Suite struct RandomizedDifferentialTests {
    @Test(arguments: [UInt64(2024), 7, 99])
    func randomPatternsAgreeWithNSRegularExpression(seed: UInt64) throws {
        var random = RandomPatterns(seed: seed)
        var compared = 0
        var disagreements: [String] = []
        for _ in 0..<1_000 {
            let source = random.pattern()
            let pattern = try Pattern(source)
            for _ in 0..<3 {
                let text = random.text()
                let expected: Range<Int>?
                do {
                    expected = try Oracle.firstMatch(source, in: text)
                } catch {
                    // Skipped: NSRegularExpression rejects the pattern (the generator avoids that, but stay safe).
                    continue
                }
                compared += 1
                let found = pattern.firstMatchOffsets(in: text)
                if pattern.matches(in: text) != (expected != nil) || found?.lowerBound != expected?.lowerBound {
                    let answers = "\(String(describing: found)), ICU \(String(describing: expected))"
                    disagreements.append("\(source.debugDescription) on \(text.debugDescription): \(answers)")
                }
            }
        }
        #expect(compared >= 2_500)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }
}
