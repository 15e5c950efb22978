import Foundation

/// An `ignore-text` rule: a regular expression compiled once, when the configuration is read.
public struct TextRule: @unchecked Sendable {
    // @unchecked Sendable: NSRegularExpression is immutable after creation and its matching methods are
    // documented as thread-safe.
    /// The pattern as written.
    public let pattern: String
    private let expression: NSRegularExpression

    /// Compiles `pattern`; nil when it is not a valid regular expression.
    public init?(_ pattern: String) {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return nil }
        self.pattern = pattern
        self.expression = expression
    }

    /// Whether the rule matches somewhere in `text`.
    public func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
