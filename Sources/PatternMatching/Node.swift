/// A parsed regular expression: the syntax tree the compiler turns into a ``Program``.
///
/// Inline flags are already resolved: a case-insensitive literal is a ``foldedScalar(_:)``, `.` knows whether it
/// crosses lines, and `^`/`$` are the ``Assertion`` their mode selects. Groups leave no node of their own, since
/// nothing is captured.
indirect enum Node: Sendable {
    /// Matches the empty string.
    case empty
    /// Matches exactly this scalar.
    case scalar(Unicode.Scalar)
    /// Matches any scalar whose simple case fold is this value.
    case foldedScalar(UInt32)
    /// `.`: any scalar; with `matchesLineTerminators` false, any but a line terminator.
    case anyScalar(matchesLineTerminators: Bool)
    /// A set of scalars, by index into the parser's table of classes.
    case characterClass(Int)
    /// A zero-width test.
    case assertion(Assertion)
    /// The parts in order.
    case concatenation([Node])
    /// One of the branches, the earlier preferred.
    case alternation([Node])
    /// The node repeated.
    case repetition(Node, Repetition)
}

/// How often a repeated node may match, and which count the matcher prefers.
struct Repetition: Sendable, Hashable {
    /// The fewest repetitions.
    var minimum: Int
    /// The most repetitions, or nil for no limit.
    var maximum: Int?
    /// Whether fewer repetitions are preferred (`*?`); possessive forms count as greedy.
    var isLazy: Bool
}

/// A zero-width test of the position between two scalars.
enum Assertion: Sendable, Hashable {
    /// `\A`, `\G`, and `^` without multiline mode.
    case startOfText
    /// `\z`.
    case endOfText
    /// `\Z`, and `$` without multiline mode: the end, or just before a line terminator that ends the text.
    case endOfTextOrBeforeFinalTerminator
    /// `^` in multiline mode: the start, or after a line terminator that does not end the text.
    case startOfLine
    /// `$` in multiline mode: the end, or before a line terminator.
    case endOfLine
    /// `\b`: between a word scalar and a non-word scalar (combining marks belong to what they follow).
    case wordBoundary
    /// `\B`.
    case notWordBoundary
    /// Not just before a line feed; lets `.` and `\R` take CR LF as one line terminator.
    case notBeforeLineFeed
}

extension Node {
    /// The scalars that end a line for `.`, `^`, `$` and `\R`, as in ICU: LF, VT, FF, CR, NEL, LS and PS.
    static func isLineTerminator(_ value: UInt32) -> Bool {
        (value >= 0x0A && value <= 0x0D) || value == 0x85 || value == 0x2028 || value == 0x2029
    }
}
