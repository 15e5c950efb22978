import FoundationEssentials
import PatternMatching

/// One search text in one mode, as every search matches it: the store's (`pb search`, the lists of the app, the
/// popup and `pb pick`) and the app's highlighting of the matches in its rows. Matching ignores accents and case
/// (`SearchFolding`):
/// - substring: the folded text holds the folded query;
/// - fuzzy: the folded text holds the folded query's characters in order, anything between (`gh` finds "GitHub");
/// - regex: the pattern, case-insensitive, matches the text as it is, or (with accents dropped from both) the text
///   without its accents; `(?-i)` in the pattern makes it mind case. The engine is `PatternMatching`'s, linear in
///   the text's length.
public struct SearchMatcher: Sendable {
    public let text: String
    public let mode: HistoryFilter.Mode
    /// The query folded (substring and fuzzy).
    let needle: String
    private let needleScalars: [Unicode.Scalar]
    /// The folded query's bytes, when it is ASCII: matched on the item's bytes without decoding them.
    private let asciiNeedle: [UInt8]?
    private let pattern: Pattern?
    /// The pattern with its accents dropped, for the text without its accents (nil when it is the same pattern).
    private let strippedPattern: Pattern?
    /// What the index is asked for in a regex search (see `indexPhrase`).
    private let regexPhrase: String?
    /// The FTS5 query of `indexPhrase`, nil when the index cannot narrow the search (no phrase, or no trigram of it
    /// that the index keeps: "ab ", see `SearchTerms`).
    let indexQuery: String?

    /// - Throws: `HistoryError` (`invalidInput`) with the regex engine's message for a pattern that is not one.
    public init(_ text: String, mode: HistoryFilter.Mode) throws(HistoryError) {
        self.text = text
        self.mode = mode
        needle = SearchFolding.fold(text)
        needleScalars = Array(needle.unicodeScalars)
        asciiNeedle = needleScalars.allSatisfy(\.isASCII) ? Array(needle.utf8) : nil
        guard mode == .regex else {
            pattern = nil
            strippedPattern = nil
            regexPhrase = nil
            indexQuery = mode == .substring && needleScalars.count >= 3 ? SearchTerms.query(needle) : nil
            return
        }
        do {
            pattern = try Pattern(text, options: .caseInsensitive)
        } catch {
            throw HistoryError(.invalidInput, error.message)
        }
        let stripped = SearchFolding.stripAccents(text)
        strippedPattern = stripped == text ? nil : try? Pattern(stripped, options: .caseInsensitive)
        regexPhrase = Self.indexPhrase(pattern, strippedPattern)
        indexQuery = regexPhrase.flatMap(SearchTerms.query)
    }

    /// The text the search index narrows a regex search to: what every match contains, folded as the index folds
    /// it, when it is long enough for the index (three scalars). A match through the pattern without its accents
    /// must contain it too: the shorter of the two literals, when one holds the other.
    private static func indexPhrase(_ pattern: Pattern?, _ stripped: Pattern?) -> String? {
        guard let pattern else { return nil }
        var phrase = SearchFolding.fold(pattern.indexLiteral)
        if let stripped {
            let other = SearchFolding.fold(stripped.indexLiteral)
            if other.contains(phrase) {
                // Every match through either pattern holds `phrase`.
            } else if phrase.contains(other) {
                phrase = other
            } else {
                return nil
            }
        }
        return phrase.unicodeScalars.count >= 3 ? phrase : nil
    }

    /// The folded query when it is ASCII: what SQLite's `instr(lower(…))` may look for in ASCII texts beforehand.
    var asciiPrefilterNeedle: String? {
        guard mode == .substring, asciiNeedle != nil, !needle.isEmpty else { return nil }
        return needle
    }

    /// The phrase the search index is asked for (its terms, `SearchTerms`): the substring, folded, or the literal
    /// every match of a regex contains (`Pattern.indexLiteral`); nil for a fuzzy search. Candidates are then checked
    /// with `matches`.
    var indexPhrase: String? {
        switch mode {
        case .substring: return needleScalars.count >= 3 ? needle : nil
        case .regex: return regexPhrase
        case .fuzzy: return nil
        }
    }


    /// Whether the search index can answer.
    var usesIndex: Bool { indexQuery != nil }

    /// Whether an item's text (its first `ItemText.indexedPrefix` bytes, UTF-8) matches.
    func matches(_ bytes: Data) -> Bool {
        switch mode {
        case .substring:
            if needleScalars.isEmpty { return true }
            if asciiNeedle != nil {
                if ItemText.containsASCII(bytes, needle: asciiNeedle!) { return true }
                // ASCII bytes fold to themselves (lowercased): no other way to match.
                if bytes.withUnsafeBytes({ ItemText.isASCII(UnsafeRawBufferPointer(rebasing: $0.prefix(ItemText.indexedPrefix))) }) {
                    return false
                }
            }
            return containsNeedle(ItemText.decoded(bytes))
        case .fuzzy:
            if needleScalars.isEmpty { return true }
            if let asciiNeedle {
                var next = 0
                for byte in bytes.prefix(ItemText.indexedPrefix) {
                    let folded = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                    if folded == asciiNeedle[next] {
                        next += 1
                        if next == asciiNeedle.count { return true }
                    }
                }
                if bytes.withUnsafeBytes({ ItemText.isASCII(UnsafeRawBufferPointer(rebasing: $0.prefix(ItemText.indexedPrefix))) }) {
                    return false
                }
            }
            return fuzzyMatches(ItemText.decoded(bytes))
        case .regex:
            guard let pattern else { return true }
            let text = ItemText.decoded(bytes)
            if pattern.matches(in: text) { return true }
            // ASCII text has no accents to strip: no second try (checked on the bytes, eight at a time).
            if strippedPattern == nil,
                bytes.withUnsafeBytes({ ItemText.isASCII(UnsafeRawBufferPointer(rebasing: $0.prefix(ItemText.indexedPrefix))) })
            {
                return false
            }
            return matchesWithoutAccents(text)
        }
    }

    /// Whether `text` matches.
    public func matches(_ text: String) -> Bool {
        switch mode {
        case .substring: return needleScalars.isEmpty || containsNeedle(text)
        case .fuzzy: return needleScalars.isEmpty || fuzzyMatches(text)
        case .regex:
            guard let pattern else { return true }
            if pattern.matches(in: text) { return true }
            if strippedPattern == nil, text.utf8.withContiguousStorageIfAvailable({ ItemText.isASCII(UnsafeRawBufferPointer($0)) }) ?? false {
                return false
            }
            return matchesWithoutAccents(text)
        }
    }

    /// A regex search's second try: the text without its accents (only when that differs from what was matched).
    private func matchesWithoutAccents(_ text: String) -> Bool {
        guard let pattern else { return true }
        let stripped = SearchFolding.stripAccents(text)
        if strippedPattern == nil, stripped == text { return false }
        return (strippedPattern ?? pattern).matches(in: stripped)
    }

    private func containsNeedle(_ text: String) -> Bool {
        var folded: [Unicode.Scalar] = []
        folded.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let scalar = SearchFolding.fold(scalar) { folded.append(scalar) }
        }
        return Self.firstOccurrence(of: needleScalars, in: folded, from: 0) != nil
    }

    private func fuzzyMatches(_ text: String) -> Bool {
        var next = 0
        for scalar in text.unicodeScalars {
            guard let folded = SearchFolding.fold(scalar), folded == needleScalars[next] else { continue }
            next += 1
            if next == needleScalars.count { return true }
        }
        return false
    }

    // MARK: - Highlighting

    /// Where `text` matches, as ranges of its characters to highlight, in order and apart: every occurrence of a
    /// substring, the characters of a fuzzy match (the earliest), the first match of a regex. Empty when it does
    /// not match (or the query is empty).
    public func ranges(in text: String) -> [Range<String.Index>] {
        guard !text.isEmpty else { return [] }
        let scalars = Array(text.unicodeScalars)
        let indices = Array(text.unicodeScalars.indices) + [text.endIndex]
        var spans: [Range<Int>] = []  // in scalars of `text`
        switch mode {
        case .substring, .fuzzy:
            guard !needleScalars.isEmpty else { return [] }
            let (folded, origins) = SearchFolding.foldWithOrigins(text)
            /// A span of folded scalars as a span of the text's, taking in the accents that follow its end.
            func span(_ range: Range<Int>) -> Range<Int> {
                var end = origins[range.upperBound - 1] + 1
                while end < scalars.count, SearchFolding.fold(scalars[end]) == nil { end += 1 }
                return origins[range.lowerBound]..<end
            }
            if mode == .substring {
                var from = 0
                while let start = Self.firstOccurrence(of: needleScalars, in: folded, from: from) {
                    spans.append(span(start..<start + needleScalars.count))
                    from = start + needleScalars.count
                }
            } else {
                var next = 0
                var found: [Range<Int>] = []
                for (index, scalar) in folded.enumerated() where next < needleScalars.count && scalar == needleScalars[next] {
                    found.append(span(index..<index + 1))
                    next += 1
                }
                guard next == needleScalars.count else { return [] }
                // Neighbours join: "gh" in "ghost" is one span.
                for range in found {
                    if let last = spans.last, last.upperBound == range.lowerBound {
                        spans[spans.count - 1] = last.lowerBound..<range.upperBound
                    } else {
                        spans.append(range)
                    }
                }
            }
        case .regex:
            guard let pattern else { return [] }
            if let match = pattern.firstMatch(in: text) {
                guard match.lowerBound != match.upperBound else { return [] }
                return [match]
            }
            // On the text without its accents: a map back from its scalars to the text's.
            var stripped = String.UnicodeScalarView()
            var origins: [Int] = []
            for (offset, scalar) in scalars.enumerated() {
                guard let kept = SearchFolding.strip(scalar) else { continue }
                stripped.append(kept)
                origins.append(offset)
            }
            let strippedText = String(stripped)
            guard let match = (strippedPattern ?? pattern).firstMatch(in: strippedText) else { return [] }
            let low = strippedText.unicodeScalars.distance(from: strippedText.startIndex, to: match.lowerBound)
            let high = strippedText.unicodeScalars.distance(from: strippedText.startIndex, to: match.upperBound)
            guard high > low else { return [] }
            var end = origins[high - 1] + 1
            while end < scalars.count, SearchFolding.strip(scalars[end]) == nil { end += 1 }
            spans.append(origins[low]..<end)
        }
        return spans.map { indices[$0.lowerBound]..<indices[$0.upperBound] }
    }

    /// Where `needle` first occurs in `haystack` at or after `from`.
    static func firstOccurrence(of needle: [Unicode.Scalar], in haystack: [Unicode.Scalar], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        var start = from
        while start <= haystack.count - needle.count {
            if haystack[start] == needle[0] {
                var matched = 1
                while matched < needle.count && haystack[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return start }
            }
            start += 1
        }
        return nil
    }
}
