/// Simple (one scalar to one scalar) case folding, as case-insensitive matching uses it.
///
/// Two scalars match case-insensitively when their folds are equal: `A` and `a`, `É` and `é`, `Σ`, `σ` and `ς`,
/// `K`, `k` and the Kelvin sign. Full folding, which would let `ß` match `ss`, is not done. The Turkic dotted and
/// dotless i (`İ`, `ı`) fold to themselves, as in Unicode's default folding.
///
/// ASCII is folded inline; other scalars consult a table built from the standard library's Unicode data the first
/// time it is needed.
enum CaseFolding {
    /// The fold of `value`: one scalar standing for its whole case class.
    static func fold(_ value: UInt32) -> UInt32 {
        if value < 0x80 { return (value &- 0x41) < 26 ? value | 0x20 : value }
        return table.folds[value] ?? value
    }

    /// Whether `value` or any scalar folding like it satisfies `predicate`.
    static func anyVariant(of value: UInt32, satisfies predicate: (UInt32) -> Bool) -> Bool {
        if predicate(value) { return true }
        if value < 0x80 {
            // Only two scalars outside ASCII fold to ASCII letters: the Kelvin sign and the long s.
            guard ((value | 0x20) &- 0x61) < 26 else { return false }
            let lower = value | 0x20
            if predicate(lower) || predicate(lower & ~0x20) { return true }
            if lower == 0x6B { return predicate(0x212A) }
            if lower == 0x73 { return predicate(0x017F) }
            return false
        }
        guard let members = table.classes[fold(value)] else { return false }
        for member in members where member != value && predicate(member) { return true }
        return false
    }

    /// Whether some other scalar folds like `scalar`, so a case-insensitive pattern must treat it as a class.
    static func hasVariants(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return ((scalar.value | 0x20) &- 0x61) < 26 }
        // A scalar that no case mapping changes is never the fold of another.
        return scalar.properties.changesWhenCaseMapped
    }

    // MARK: - The table

    /// Folds of every non-ASCII scalar whose fold differs from itself, and every case class of two or more.
    struct Table: Sendable {
        /// Scalar → fold, for scalars that are not their own fold (ASCII included when the source is not ASCII).
        var folds: [UInt32: UInt32] = [:]
        /// Fold → every scalar with that fold (the fold included), for classes of more than one scalar.
        var classes: [UInt32: [UInt32]] = [:]
    }

    /// Built once, on first use; a global `let` is initialized lazily and thread-safely.
    static let table: Table = makeTable()

    /// The highest scalar with a case mapping is in Adlam (U+1E943); the scan stops a little above it.
    private static let lastCasedScalar: UInt32 = 0x1E9FF

    private static func makeTable() -> Table {
        var table = Table()
        var value: UInt32 = 0
        while value <= lastCasedScalar {
            defer { value += 1 }
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenCaseMapped else { continue }
            let folded = computeFold(scalar)
            if folded != value { table.folds[value] = folded }
            table.classes[folded, default: [folded]].append(value)
        }
        table.classes = table.classes.filter { $0.value.count > 1 }.mapValues { members in
            var unique: [UInt32] = []
            for member in members where !unique.contains(member) { unique.append(member) }
            return unique
        }
        return table
    }

    /// The simple fold: the lowercase form when it is one scalar, else the lowercase of the uppercase form, which
    /// sends `ς` to `σ` and `ſ` to `s`.
    private static func computeFold(_ scalar: Unicode.Scalar) -> UInt32 {
        if scalar.value == 0x130 || scalar.value == 0x131 { return scalar.value }
        if let lower = single(scalar.properties.lowercaseMapping), lower.value != scalar.value { return lower.value }
        if let upper = single(scalar.properties.uppercaseMapping), upper.value != scalar.value,
            let lower = single(upper.properties.lowercaseMapping)
        {
            return lower.value
        }
        return scalar.value
    }

    private static func single(_ mapping: String) -> Unicode.Scalar? {
        var scalars = mapping.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
