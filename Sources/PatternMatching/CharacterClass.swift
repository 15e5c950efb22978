/// A set of Unicode scalars: a bracket expression such as `[a-z\d]`, or an escape such as `\w` or `\p{Lu}`.
///
/// Membership of the 128 ASCII scalars is computed once, into a bitmap; other scalars evaluate the expression.
struct CharacterClass: Sendable {
    /// How membership is decided.
    ///
    /// Trees stay shallow and cheap to evaluate: unions and intersections are n-ary (a subtraction is an
    /// intersection with a complement), and case closure wraps only leaves (see ``closedOverCase``).
    indirect enum Expression: Sendable {
        /// Any scalar in one of these ranges, which are sorted and neither overlap nor touch.
        case ranges([ClosedRange<UInt32>])
        /// Any scalar with the property.
        case property(ScalarProperty)
        /// Any scalar in one of the parts.
        case union([Expression])
        /// Any scalar in all of the parts.
        case intersection([Expression])
        /// Any scalar not in the set.
        case complement(Expression)
        /// Any scalar whose case variant (its fold or a scalar with the same fold) is in the set.
        case caseClosure(Expression)
    }

    /// The set.
    let expression: Expression
    /// What testing one scalar outside ASCII costs, in steps comparable to one instruction.
    let cost: Int
    private let asciiLow: UInt64
    private let asciiHigh: UInt64

    init(_ expression: Expression) {
        self.expression = expression
        cost = expression.cost
        var low: UInt64 = 0
        var high: UInt64 = 0
        for value in UInt32(0)..<128 where expression.contains(value) {
            if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
        }
        asciiLow = low
        asciiHigh = high
    }

    /// Whether the scalar with value `value` is in the set.
    @inline(__always)
    func contains(_ value: UInt32) -> Bool {
        if value < 64 { return asciiLow & (1 << UInt64(value)) != 0 }
        if value < 128 { return asciiHigh & (1 << UInt64(value - 64)) != 0 }
        return expression.contains(value)
    }

    /// Whether the ASCII scalar `value` is in the set.
    func containsASCII(_ value: UInt8) -> Bool { contains(UInt32(value)) }

    /// The first UTF-8 bytes of the scalars outside ASCII that may be in the set: exact for plain ranges, all lead
    /// bytes otherwise.
    var possibleLeadBytes: [UInt8] {
        guard case .ranges(let ranges) = expression else { return Array(0xC2...0xF4) }
        var bytes: [UInt8] = []
        for range in ranges where range.upperBound >= 0x80 {
            let lower = UTF8.leadByte(of: max(range.lowerBound, 0x80))
            let upper = UTF8.leadByte(of: range.upperBound)
            for byte in lower...upper where !bytes.contains(byte) { bytes.append(byte) }
        }
        return bytes
    }
}

extension CharacterClass.Expression {
    /// Whether the scalar with value `value` is in the set.
    func contains(_ value: UInt32) -> Bool {
        switch self {
        case .ranges(let ranges): return Self.search(ranges, for: value)
        case .property(let property): return property.contains(value)
        case .union(let parts):
            for part in parts where part.contains(value) { return true }
            return false
        case .intersection(let parts):
            for part in parts where !part.contains(value) { return false }
            return true
        case .complement(let inner): return !inner.contains(value)
        case .caseClosure(let inner): return CaseFolding.anyVariant(of: value) { inner.contains($0) }
        }
    }

    /// The set closed over case, as a case-insensitive pattern needs it: every leaf wrapped in ``caseClosure``.
    ///
    /// Closing the leaves rather than the whole tree keeps evaluation linear in the size of the tree (closures
    /// nested in closures would multiply). It is exact for unions and complements (`(?i)[^a]` excludes `A`, as in
    /// ICU); an intersection of closed sets may hold a little more than the closure of the intersection.
    var closedOverCase: Self {
        switch self {
        case .ranges, .property: return .caseClosure(self)
        case .caseClosure: return self
        case .union(let parts): return .union(parts.map(\.closedOverCase))
        case .intersection(let parts): return .intersection(parts.map(\.closedOverCase))
        case .complement(let inner): return .complement(inner.closedOverCase)
        }
    }

    /// What testing one scalar costs: one step per leaf, four for a closed leaf (no case class has more than four
    /// members).
    var cost: Int {
        switch self {
        case .ranges, .property: return 1
        case .union(let parts), .intersection(let parts): return parts.reduce(0) { $0 + $1.cost }
        case .complement(let inner): return inner.cost
        case .caseClosure(let inner): return 4 * inner.cost
        }
    }

    /// Binary search of sorted, disjoint ranges.
    private static func search(_ ranges: [ClosedRange<UInt32>], for value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if value < ranges[middle].lowerBound {
                high = middle
            } else if value > ranges[middle].upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Ranges sorted and merged where they overlap or touch.
    static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// The union of single scalars and ranges in `ranges` with the other sets in `others`.
    static func union(ranges: [ClosedRange<UInt32>], others: [Self]) -> Self {
        let merged = normalized(ranges)
        if others.isEmpty { return .ranges(merged) }
        if merged.isEmpty && others.count == 1 { return others[0] }
        return .union(merged.isEmpty ? others : [.ranges(merged)] + others)
    }
}
