public import PatternMatching

/// An `ignore-text` rule: a regular expression compiled once, when the configuration is read, and run by the
/// linear-time engine, so that no rule can stall the daemon whatever text it meets.
public struct TextRule: Sendable {
    /// The pattern as written.
    public let pattern: String
    private let expression: Pattern

    /// How much of a copy's text a rule looks at: secrets and one-time codes are short, and the cost of a
    /// match grows with the text.
    public static let maxTextBytes = 1 << 20

    /// Compiles `pattern`.
    public init(_ pattern: String) throws(PatternError) {
        expression = try Pattern(pattern)
        self.pattern = pattern
    }

    /// Whether the rule matches somewhere in the first `maxTextBytes` of `text`.
    public func matches(_ text: String) -> Bool {
        guard text.utf8.count > Self.maxTextBytes else { return expression.matches(in: text) }
        // A character cut in two at the end decodes as U+FFFD, which no rule is about.
        return expression.matches(in: String(decoding: text.utf8.prefix(Self.maxTextBytes), as: UTF8.self))
    }
}
