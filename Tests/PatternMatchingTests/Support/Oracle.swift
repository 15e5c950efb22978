import Foundation
import PatternMatching

/// NSRegularExpression (ICU, backtracking) as the reference the engine is compared with.
enum Oracle {
    /// The first match of `pattern` in `text` as UTF-16 offsets; nil when there is none; throws when ICU rejects
    /// the pattern.
    static func firstMatch(_ pattern: String, in text: String, options: Pattern.Options = []) throws -> Range<Int>? {
        let expression = try NSRegularExpression(pattern: pattern, options: nsOptions(options))
        let match = expression.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count))
        guard let match, match.range.location != NSNotFound else { return nil }
        return match.range.location..<(match.range.location + match.range.length)
    }

    private static func nsOptions(_ options: Pattern.Options) -> NSRegularExpression.Options {
        var result: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { result.insert(.caseInsensitive) }
        if options.contains(.anchorsMatchLines) { result.insert(.anchorsMatchLines) }
        if options.contains(.dotMatchesLineSeparators) { result.insert(.dotMatchesLineSeparators) }
        if options.contains(.allowsCommentsAndWhitespace) { result.insert(.allowCommentsAndWhitespace) }
        return result
    }
}

extension Pattern {
    /// The first match as UTF-16 offsets, to compare with ``Oracle``.
    func firstMatchOffsets(in text: String) -> Range<Int>? {
        guard let range = firstMatch(in: text) else { return nil }
        let lower = text.utf16.distance(from: text.startIndex, to: range.lowerBound)
        return lower..<(lower + text.utf16.distance(from: range.lowerBound, to: range.upperBound))
    }
}
