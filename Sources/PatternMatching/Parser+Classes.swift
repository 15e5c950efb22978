// MARK: - Bracket expressions

extension Parser {
    /// The class whose `[` is at `start` (already consumed), up to its `]`.
    ///
    /// As in ICU: a `]` first is literal, `-` at either end is literal, classes nest (`[a[bc]]` is a union),
    /// `&&` intersects and `--` subtracts, POSIX names such as `[:alpha:]` are Unicode-aware, and a
    /// case-insensitive class is closed over case before `^` complements it.
    mutating func parseBracketExpression(openedAt start: Int) throws(PatternError) -> CharacterClass.Expression {
        try enterNesting(at: start)
        defer { depth -= 1 }
        var isNegated = false
        if peek == "^" {
            isNegated = true
            index += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var others: [CharacterClass.Expression] = []
        var accumulated: CharacterClass.Expression?
        var pendingOperator: Unicode.Scalar?
        var isFirst = true
        while true {
            if flags.allowsCommentsAndWhitespace, let scalar = peek, scalar.properties.isWhitespace {
                index += 1
                continue
            }
            guard let scalar = peek else {
                throw syntaxError("unterminated character class; add a ']' to close it", at: start)
            }
            let itemStart = index
            if scalar == "]" && !isFirst {
                index += 1
                break
            }
            isFirst = false
            if (scalar == "&" || scalar == "-") && peek(1) == scalar {
                // A set operator: everything so far is its left operand.
                guard accumulated != nil || !ranges.isEmpty || !others.isEmpty else {
                    throw syntaxError("'\(scalar)\(scalar)' needs a set on its left, as in [a-z&&[^aeiou]]", at: index)
                }
                let left = CharacterClass.Expression.union(ranges: ranges, others: others)
                accumulated = Self.combine(accumulated, pendingOperator, left)
                pendingOperator = scalar
                ranges = []
                others = []
                index += 2
                continue
            }
            if scalar == "[" {
                if let posix = try parsePOSIXClass() {
                    others.append(posix)
                    continue
                }
                index += 1
                others.append(try parseBracketExpression(openedAt: itemStart))
                continue
            }
            let lower: Unicode.Scalar
            if scalar == "\\" {
                index += 1
                switch try parseClassEscape(at: itemStart) {
                case .set(let expression):
                    others.append(expression)
                    continue
                case .scalar(let value): lower = value
                }
            } else {
                index += 1
                lower = scalar
            }
            // A range `a-z`; a `-` before `]` or starting `--` is not one.
            guard peek == "-", let after = peek(1), after != "]", after != "-" else {
                ranges.append(lower.value...lower.value)
                continue
            }
            index += 1
            let upper = try parseRangeEnd(rangeStart: itemStart)
            guard upper.value >= lower.value else {
                throw syntaxError(
                    "the range \(PatternError.escaped("\(lower)-\(upper)")) is out of order; write the smaller end "
                        + "first", at: itemStart)
            }
            ranges.append(lower.value...upper.value)
        }
        let last = CharacterClass.Expression.union(ranges: ranges, others: others)
        if let pendingOperator, ranges.isEmpty, others.isEmpty {
            throw syntaxError(
                "'\(pendingOperator)\(pendingOperator)' needs a set on its right, as in [a-z&&[^aeiou]]", at: index - 1)
        }
        var expression = Self.combine(accumulated, pendingOperator, last)
        if flags.isCaseInsensitive { expression = expression.closedOverCase }
        return isNegated ? .complement(expression) : expression
    }

    private static func combine(
        _ left: CharacterClass.Expression?, _ operation: Unicode.Scalar?, _ right: CharacterClass.Expression
    ) -> CharacterClass.Expression {
        guard let left, let operation else { return right }
        let operand = operation == "&" ? right : .complement(right)
        // Chains (`a&&b&&c`, `a--b--c`) stay one flat intersection.
        if case .intersection(let parts) = left { return .intersection(parts + [operand]) }
        return .intersection([left, operand])
    }

    /// The upper end of a range, a single scalar; `index` is just past the `-`.
    private mutating func parseRangeEnd(rangeStart: Int) throws(PatternError) -> Unicode.Scalar {
        let endStart = index
        let scalar = scalars[index]
        index += 1
        guard scalar == "\\" else {
            if scalar == "[" {
                throw syntaxError("a range must end with a single character, not a class", at: endStart)
            }
            return scalar
        }
        switch try parseClassEscape(at: endStart) {
        case .scalar(let value): return value
        case .set:
            throw syntaxError(
                "a range must end with a single character, not a class escape; write \\- for a literal '-'",
                at: endStart)
        }
    }

    /// An escape inside a class; `index` is just past the backslash at `start`.
    private mutating func parseClassEscape(at start: Int) throws(PatternError) -> Escape {
        switch peek {
        case "b":
            throw syntaxError("\\b has no meaning inside a class; write \\x08 for a backspace", at: start)
        case "A", "z", "Z", "B", "G", "R", "X", "Q", "E", "K":
            let letter = peek.map { String($0) } ?? ""
            throw syntaxError("\\\(letter) cannot appear inside a class", at: start)
        case let scalar? where scalar.value >= 0x31 && scalar.value <= 0x39:
            throw syntaxError(
                "\\\(scalar) cannot appear inside a class; write \\x0\(scalar) for the character with code \(scalar)",
                at: start)
        default:
            return try parseCommonEscape(at: start)
        }
    }

    /// `[:name:]` or `[:^name:]` at `index`, or nil (index unchanged) when the `[` does not start one.
    private mutating func parsePOSIXClass() throws(PatternError) -> CharacterClass.Expression? {
        guard peek(1) == ":" else { return nil }
        var offset = 2
        let isNegated = peek(offset) == "^"
        if isNegated { offset += 1 }
        var name = ""
        while let scalar = peek(offset), scalar.isASCII, scalar.properties.isAlphabetic {
            name.unicodeScalars.append(scalar)
            offset += 1
        }
        guard peek(offset) == ":", peek(offset + 1) == "]" else { return nil }
        guard let property = ScalarProperty.posixClass(name) else {
            throw syntaxError(
                "unknown POSIX class [:\(name):]; the names are alpha, digit, alnum, upper, lower, space, blank, "
                    + "punct, cntrl, xdigit, word, graph and print", at: index)
        }
        index += offset + 2
        var expression = CharacterClass.Expression.property(property)
        if flags.isCaseInsensitive { expression = expression.closedOverCase }
        return isNegated ? .complement(expression) : expression
    }
}
