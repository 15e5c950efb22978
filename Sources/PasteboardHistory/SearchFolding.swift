@_spi(_Unicode) import Swift

/// How search ignores accents and case: every search (`pb search`, the app, `pb pick`, the popup) compares texts
/// folded this way, so "Unic" finds "Ünïcödé" and "cafe" finds "Café", and the other way round.
///
/// Folding is one scalar to one scalar, or to nothing, so that a match in a folded text maps back to the text as it
/// was (`SearchMatcher.ranges(in:)` highlights it):
/// - an accent is dropped: a scalar of the combining diacritical marks (U+0300–036F, U+1AB0–1AFF, U+1DC0–1DFF,
///   U+20D0–20FF, U+FE20–FE2F);
/// - a precomposed letter becomes its base letter, when its canonical decomposition is that letter and accents
///   only (`é` → `e`, `Ü` → `U`, `ǖ` → `u`, Greek `ά` → `α`). Letters without such a decomposition stay as they
///   are (`ø`, `ł`, `ß`, `æ`), as do Hangul syllables and kana (their decompositions are not accents);
/// - for matching (`fold`), letters are then lowercased (one scalar: `İ` is `i`).
///
/// The search index is given texts with their accents dropped (`stripAccents`; text that is all ASCII as it is), and
/// its terms (`SearchTerms`) are made of them folded.
public enum SearchFolding {
    /// The text as matching compares it: accents dropped, lowercased.
    public static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let folded = fold(scalar) { out.append(folded) }
        }
        return String(out)
    }

    /// The text with its accents dropped and its case kept (what the search index holds).
    public static func stripAccents(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let stripped = strip(scalar) { out.append(stripped) }
        }
        return String(out)
    }

    /// A text folded, with where each folded scalar came from: `origins[i]` is the offset, among the text's
    /// scalars, of folded scalar `i`.
    static func foldWithOrigins(_ text: String) -> (scalars: [Unicode.Scalar], origins: [Int]) {
        var scalars: [Unicode.Scalar] = []
        var origins: [Int] = []
        scalars.reserveCapacity(text.utf8.count)
        origins.reserveCapacity(text.utf8.count)
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            guard let folded = fold(scalar) else { continue }
            scalars.append(folded)
            origins.append(offset)
        }
        return (scalars, origins)
    }

    /// The fold of one scalar: accents gone (nil), precomposed letters to their base, then lowercased.
    @inline(__always)
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        if value < 0x80 { return (value &- 0x41) < 26 ? Unicode.Scalar(UInt8(value | 0x20)) : scalar }
        if value < Table.limit {
            let folded = table.folded[Int(value)]
            return folded == 0 ? nil : Unicode.Scalar(folded)
        }
        if isAccent(value) { return nil }
        return lowercase(scalar)
    }

    /// One scalar with its accents dropped (nil for an accent itself), case kept.
    @inline(__always)
    static func strip(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        if value < 0x80 { return scalar }
        if value < Table.limit {
            let stripped = table.stripped[Int(value)]
            return stripped == 0 ? nil : Unicode.Scalar(stripped)
        }
        return isAccent(value) ? nil : scalar
    }

    /// Whether `value` is a combining diacritical mark (an accent).
    static func isAccent(_ value: UInt32) -> Bool {
        (0x300...0x36F).contains(value) || (0x1AB0...0x1AFF).contains(value) || (0x1DC0...0x1DFF).contains(value)
            || (0x20D0...0x20FF).contains(value) || (0xFE20...0xFE2F).contains(value)
    }

    private static func lowercase(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard scalar.properties.changesWhenLowercased else { return scalar }
        return scalar.properties.lowercaseMapping.unicodeScalars.first ?? scalar
    }

    /// The folds of the scalars below `limit` (Latin, Greek, Cyrillic and the rest of the alphabets with accents),
    /// worked out once from the standard library's Unicode data; 0 stands for "dropped".
    struct Table: Sendable {
        static let limit: UInt32 = 0x3000
        var stripped: [UInt32]
        var folded: [UInt32]
    }

    /// Built on first use (a global `let` is initialized lazily and thread-safely).
    static let table: Table = {
        var stripped = [UInt32](repeating: 0, count: Int(Table.limit))
        var folded = [UInt32](repeating: 0, count: Int(Table.limit))
        for value in 0..<Table.limit {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates are not below the limit anyway
            if isAccent(value) { continue }
            var base = scalar
            if value >= 0xC0 {
                let decomposed = Array(String(scalar)._nfd)
                if decomposed.count > 1, decomposed.dropFirst().allSatisfy({ isAccent($0.value) }) {
                    base = decomposed[0]
                }
            }
            stripped[Int(value)] = base.value
            folded[Int(value)] = lowercase(base).value
        }
        return Table(stripped: stripped, folded: folded)
    }()
}
