import PasteboardTestSupport

/// Small random patterns and texts over a tiny alphabet, where backtracking and the Pike VM are easy to compare
/// and every interaction of quantifiers, alternation and anchors turns up in a few thousand draws.
///
/// Groups take only greedy quantifiers and nest two deep: ICU takes seconds on some 8-character texts once
/// quantified groups nest deeper (the very problem this engine solves), and it mishandles lazy quantifiers on
/// groups that can match the empty string (`(a*)+?aa` finds nothing in `aaaaa`).
struct RandomPatterns {
    private var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// A pattern of at most about `depth` levels of nesting.
    mutating func pattern(depth: Int = 2) -> String {
        let count = Int.random(in: 1...3, using: &generator)
        var result = ""
        for _ in 0..<count { result += quantified(depth: depth) }
        if depth > 1 && Int.random(in: 0..<6, using: &generator) == 0 { result += "|" + pattern(depth: depth - 1) }
        return result
    }

    /// A text of up to `length` scalars over `a`, `b`, a space and a line feed.
    mutating func text(length: Int = 8) -> String {
        let alphabet: [Character] = ["a", "a", "b", "b", " ", "\n"]
        let count = Int.random(in: 0...length, using: &generator)
        return String((0..<count).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
    }

    private mutating func quantified(depth: Int) -> String {
        let atom = self.atom(depth: depth)
        let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?", "??", "{1,2}?"]
        let groupQuantifiers = ["", "", "", "", "*", "+", "?", "{2}"]
        guard !atom.isAnchor else { return atom.text }
        let choices = atom.isGroup ? groupQuantifiers : quantifiers
        return atom.text + (choices.randomElement(using: &generator) ?? "")
    }

    private mutating func atom(depth: Int) -> (text: String, isAnchor: Bool, isGroup: Bool) {
        let choice = Int.random(in: 0..<(depth > 1 ? 16 : 12), using: &generator)
        switch choice {
        case 0, 1, 2: return ("a", false, false)
        case 3, 4: return ("b", false, false)
        case 5: return (".", false, false)
        case 6:
            return (
                ["[ab]", "[^a]", "[a ]", "\\s", "\\w", "\\W"].randomElement(using: &generator) ?? "[ab]", false, false
            )
        case 7:
            return (["^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z"].randomElement(using: &generator) ?? "^", true, false)
        case 8: return ("(?i)A", false, false)
        case 9: return ("(?m)" + (["^", "$"].randomElement(using: &generator) ?? "^"), true, false)
        case 10, 11: return ("b", false, false)
        case 12, 13: return ("(" + pattern(depth: depth - 1) + ")", false, true)
        case 14: return ("(?:" + pattern(depth: depth - 1) + "|" + pattern(depth: depth - 1) + ")", false, true)
        default: return ("(?s:" + pattern(depth: depth - 1) + ")", false, true)
        }
    }
}
