import FoundationEssentials

/// What the search index (`item_text`, schema 13) holds for a text, and what it is asked for a query: the text's
/// trigrams that neither start nor end with white space, each written as one word for FTS5's `unicode61` tokenizer.
///
/// A trigram is three scalars in a row of the text folded as search folds it (`SearchFolding.fold`: accents dropped,
/// lowercased). Trigrams that start or end with a space, tab or line break ("ab ", " cd") are left out: two for every
/// break between words, pairs of letters found in nearly every text, they took 0.25 of the index's 0.94× of the texts'
/// size (a million short texts of a small vocabulary). The one across the break ("b c" of "ab cd") stays, so that a
/// query of short words ("to be": "o b") is still answered by the index. Leaving that one out too saved another 0.15,
/// but a query without a word of three letters then read every text: 29 s for "zq xj" at ten million items.
///
/// A search checks each candidate's text anyway (the index keeps no positions). A query none of whose trigrams the
/// index holds ("ab ", "a  b") reads the texts, as a one- or two-letter search does (`SearchGrams` narrows it to the
/// blocks that may hold its pairs of letters).
///
/// A term is the trigram itself when it is three ASCII letters or digits (`abc`, `x86`), else `x` and the hex of its
/// UTF-8 bytes (`x2f2f3a` for "://", `x61c39f62` for "aßb"): seven characters at least, so never a term of the first
/// kind. `unicode61` splits words at anything but letters and digits, and leaves these words as they are (ASCII,
/// lowercase). A document is a pure function of its text: a contentless index removes an entry only given the
/// document it was made of.
enum SearchTerms {
    /// Distinct terms a query asks for, at most: a longer query (a pasted paragraph) is narrowed by its first words'
    /// terms, and each candidate is checked against the whole query anyway.
    static let queryTermLimit = 32
    /// Terms a query asks for per word, at most (see `query`).
    static let termsPerWord = 3
    /// Texts of more bytes than this have their repeated trigrams written once (below it, repeats are few, and
    /// the index merges them anyway).
    static let distinctAbove = 1024

    /// The document `text` is indexed as: its terms, separated by spaces, in the order they first occur.
    static func document(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 4)
        var seen: Set<UInt64>?
        if text.utf8.count > distinctAbove { seen = [] }
        forEachTrigram(text) { a, b, c in
            if seen != nil, !seen!.insert(key(a, b, c)).inserted { return true }
            if !out.isEmpty { out.append(0x20) }
            append(a, b, c, to: &out)
            return true
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The FTS5 query for a phrase (already folded, as `SearchMatcher.needle` is): for each of its words, its first,
    /// middle and last terms, and each pair of letters around a break between two words ("o b" of "to be"), quoted,
    /// all joined by AND (`detail=none` refuses phrases); nil when it has no term, so that the index cannot narrow
    /// the search.
    ///
    /// More terms of a word narrow little more (a million short texts: two common words side by side took 682
    /// candidates to 50 matches with all eleven of their words' terms, 694 with one term of each), and each one costs
    /// the index a list to walk for every candidate (6.8 ms against 1.7 ms).
    static func query(_ phrase: String) -> String? {
        var terms: [String] = []
        func add(_ term: [UInt8]) {
            let quoted = "\"" + String(decoding: term, as: UTF8.self) + "\""
            if !terms.contains(quoted), terms.count < queryTermLimit { terms.append(quoted) }
        }
        var word: [[UInt8]] = []  // the current word's distinct terms, in order
        var seen: Set<UInt64> = []
        func endWord() {
            let picked = word.count <= termsPerWord ? word : [word[0], word[word.count / 2], word[word.count - 1]]
            picked.forEach(add)
            word.removeAll()
            seen.removeAll()
        }
        var boundaries: [[UInt8]] = []
        forEachTrigram(phrase) { a, b, c in
            var term: [UInt8] = []
            append(a, b, c, to: &term)
            if isBreak(b) {
                endWord()
                boundaries.append(term)
            } else if seen.insert(key(a, b, c)).inserted {
                word.append(term)
            }
            return true
        }
        endWord()
        for term in boundaries { add(term) }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// Whether a scalar ends a run of the text: ASCII white space (tab, line feed, vertical tab, form feed, carriage
    /// return, space).
    @inline(__always)
    static func isBreak(_ value: UInt32) -> Bool { value == 0x20 || (value >= 0x09 && value <= 0x0D) }

    /// Calls `body` with each trigram of the folded text that neither starts nor ends with white space, in order,
    /// until it returns false.
    private static func forEachTrigram(_ text: String, _ body: (UInt32, UInt32, UInt32) -> Bool) {
        var first: UInt32 = 0
        var second: UInt32 = 0
        var count = 0  // scalars so far, up to 2
        for scalar in text.unicodeScalars {
            guard let folded = SearchFolding.fold(scalar) else { continue }  // an accent: folded away
            let value = folded.value
            if count == 2, !isBreak(first), !isBreak(value), !body(first, second, value) { return }
            first = second
            second = value
            count = min(count + 1, 2)
        }
    }

    /// The three scalars in one number (21 bits each).
    @inline(__always)
    private static func key(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt64 {
        UInt64(a) << 42 | UInt64(b) << 21 | UInt64(c)
    }

    @inline(__always)
    private static func isPlain(_ value: UInt32) -> Bool {
        (value >= 0x61 && value <= 0x7A) || (value >= 0x30 && value <= 0x39)
    }

    private static func append(_ a: UInt32, _ b: UInt32, _ c: UInt32, to out: inout [UInt8]) {
        if isPlain(a), isPlain(b), isPlain(c) {
            out.append(UInt8(a))
            out.append(UInt8(b))
            out.append(UInt8(c))
            return
        }
        out.append(0x78)  // "x"
        appendHex(a, to: &out)
        appendHex(b, to: &out)
        appendHex(c, to: &out)
    }

    /// The hex of a scalar's UTF-8 bytes.
    private static func appendHex(_ value: UInt32, to out: inout [UInt8]) {
        func byte(_ byte: UInt32) {
            out.append(hexDigit(UInt8(byte >> 4)))
            out.append(hexDigit(UInt8(byte & 0x0F)))
        }
        switch value {
        case ..<0x80:
            byte(value)
        case ..<0x800:
            byte(0xC0 | value >> 6)
            byte(0x80 | value & 0x3F)
        case ..<0x10000:
            byte(0xE0 | value >> 12)
            byte(0x80 | value >> 6 & 0x3F)
            byte(0x80 | value & 0x3F)
        default:
            byte(0xF0 | value >> 18)
            byte(0x80 | value >> 12 & 0x3F)
            byte(0x80 | value >> 6 & 0x3F)
            byte(0x80 | value & 0x3F)
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10 }
}
