/// Turns the source of a pattern into a ``Node`` tree and a table of character classes.
///
/// A recursive descent over the pattern's Unicode scalars. Inline flags (`(?i)`, `(?m)`, `(?s)`, `(?x)`) are
/// resolved while parsing and hold to the end of the enclosing group. Errors carry the 1-based column of the
/// scalar at fault.
struct Parser {
    /// The modes inline flags and options switch.
    struct Flags {
        var isCaseInsensitive = false
        var anchorsMatchLines = false
        var dotMatchesLineTerminators = false
        var allowsCommentsAndWhitespace = false
    }

    /// The deepest nesting of groups and classes accepted; deeper patterns are refused as too complex.
    static let nestingLimit = 32
    /// The largest count `{n,m}` accepts.
    static let countLimit = 1_000

    let source: String
    let scalars: [Unicode.Scalar]
    var index = 0
    var flags: Flags
    var depth = 0
    /// The classes nodes refer to by index.
    var classes: [CharacterClass] = []

    init(_ source: String, flags: Flags) {
        self.source = source
        self.scalars = Array(source.unicodeScalars)
        self.flags = flags
    }

    /// Parses the whole source.
    mutating func parse() throws(PatternError) -> Node {
        let node = try parseAlternation()
        if index < scalars.count {
            // Only an unmatched `)` stops the top-level alternation early.
            throw syntaxError("unmatched ')'; write \\) for a literal parenthesis", at: index)
        }
        return node
    }

    // MARK: - Scanning

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// In `(?x)` mode, skips white space and `#` comments; says whether it skipped anything.
    @discardableResult
    mutating func skipCommentsAndWhitespace() -> Bool {
        guard flags.allowsCommentsAndWhitespace else { return false }
        let start = index
        while let scalar = peek {
            if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "#" {
                while let next = peek, !Node.isLineTerminator(next.value) { index += 1 }
            } else {
                break
            }
        }
        return index > start
    }

    // MARK: - Errors

    func syntaxError(_ problem: String, at index: Int) -> PatternError {
        PatternError(.invalidSyntax, column: index + 1, problem: problem, pattern: source)
    }

    /// A feature refused because it cannot run in linear time.
    func nonLinear(_ feature: String, at index: Int) -> PatternError {
        PatternError(
            .unsupported, column: index + 1,
            problem: "\(feature) not supported: Pasteboard patterns run in linear time so that no pattern can hang "
                + "the daemon", pattern: source)
    }

    func unsupported(_ problem: String, at index: Int) -> PatternError {
        PatternError(.unsupported, column: index + 1, problem: problem, pattern: source)
    }

    func tooComplex(_ problem: String, at index: Int) -> PatternError {
        PatternError(.tooComplex, column: index + 1, problem: problem, pattern: source)
    }

    // MARK: - Alternation and concatenation

    mutating func parseAlternation() throws(PatternError) -> Node {
        var branches = [try parseConcatenation()]
        while peek == "|" {
            index += 1
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    // Groups recurse through parseAlternation, parseConcatenation and parseGroup only, which keep their frames
    // small (no error messages built in them): a debug build reserves room for every temporary of a function.

    mutating func parseConcatenation() throws(PatternError) -> Node {
        var items: [Node] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            if skipCommentsAndWhitespace() { continue }
            let atom: Node?
            if scalar == "(" {
                index += 1
                atom = try parseGroup(openedAt: index - 1)
            } else if scalar == "\\", peek(1) == "Q" {
                atom = parseQuoted(into: &items)
            } else {
                atom = try parseAtom()
            }
            guard let atom else { continue }
            items.append(try parseQuantifiers(of: atom))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// `\Q…\E`, quoting literally up to `\E` or the end of the pattern: all scalars but the last go to `items`, the
    /// last is returned, so that a quantifier after `\E` repeats only it, as in PCRE.
    mutating func parseQuoted(into items: inout [Node]) -> Node? {
        index += 2
        var last: Node?
        while let scalar = peek {
            if scalar == "\\", peek(1) == "E" {
                index += 2
                break
            }
            if let last { items.append(last) }
            last = literal(scalar)
            index += 1
        }
        return last
    }

    /// One atom other than a group or `\Q…\E`, or nil for one that matches nothing (a stray `\E`).
    mutating func parseAtom() throws(PatternError) -> Node? {
        let start = index
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case "[": return .characterClass(add(CharacterClass(try parseBracketExpression(openedAt: start))))
        case ".": return .anyScalar(matchesLineTerminators: flags.dotMatchesLineTerminators)
        case "^": return .assertion(flags.anchorsMatchLines ? .startOfLine : .startOfText)
        case "$": return .assertion(flags.anchorsMatchLines ? .endOfLine : .endOfTextOrBeforeFinalTerminator)
        case "\\": return try parseEscape(at: start)
        case "*", "+", "?", "{":
            throw syntaxError(
                "nothing to repeat before '\(scalar)'; write \\\(scalar) for a literal '\(scalar)'", at: start)
        default: return literal(scalar)
        }
    }

    /// A literal scalar, case-folded when the pattern is case-insensitive and the scalar has case variants.
    func literal(_ scalar: Unicode.Scalar) -> Node {
        guard flags.isCaseInsensitive, CaseFolding.hasVariants(scalar) else { return .scalar(scalar) }
        return .foldedScalar(CaseFolding.fold(scalar.value))
    }

    mutating func add(_ characterClass: CharacterClass) -> Int {
        classes.append(characterClass)
        return classes.count - 1
    }

    mutating func enterNesting(at start: Int) throws(PatternError) {
        depth += 1
        if depth > Self.nestingLimit {
            throw tooComplex("groups and classes are nested more than \(Self.nestingLimit) deep", at: start)
        }
    }

    // MARK: - Quantifiers

    /// `node` followed by any quantifier: `*`, `+`, `?` or a count, each optionally lazy (`?`) or possessive (`+`).
    mutating func parseQuantifiers(of node: Node) throws(PatternError) -> Node {
        skipCommentsAndWhitespace()
        guard let scalar = peek else { return node }
        var repetition: Repetition
        switch scalar {
        case "*": repetition = Repetition(minimum: 0, maximum: nil, isLazy: false)
        case "+": repetition = Repetition(minimum: 1, maximum: nil, isLazy: false)
        case "?": repetition = Repetition(minimum: 0, maximum: 1, isLazy: false)
        case "{": repetition = try parseCount()
        default: return node
        }
        if scalar != "{" { index += 1 }
        if peek == "?" {
            repetition.isLazy = true
            index += 1
        } else if peek == "+" {
            // Possessive: matched as greedy, which reports the same range whenever a match exists without it.
            index += 1
        }
        skipCommentsAndWhitespace()
        if let next = peek, next == "*" || next == "+" || next == "?" || next == "{" {
            throw syntaxError(
                "a quantifier cannot follow another quantifier; group the first, as in (?:a*)\(next), to repeat it",
                at: index)
        }
        return .repetition(node, repetition)
    }

    /// `{n}`, `{n,}` or `{n,m}`, starting at the `{`.
    mutating func parseCount() throws(PatternError) -> Repetition {
        let start = index
        index += 1
        let braceError = syntaxError(
            "'{' must start a count such as {3}, {2,} or {2,5}; write \\{ for a literal brace", at: start)
        guard let minimum = parseDecimal() else { throw braceError }
        var maximum: Int? = minimum
        if peek == "," {
            index += 1
            maximum = parseDecimal()
        }
        guard peek == "}" else { throw braceError }
        index += 1
        if max(minimum, maximum ?? 0) > Self.countLimit {
            let written = String(String.UnicodeScalarView(scalars[start..<index]))
            throw tooComplex(
                "the count \(written) is above the limit of \(Self.countLimit); match the text in smaller pieces",
                at: start)
        }
        if let maximum, maximum < minimum {
            throw syntaxError("the count {\(minimum),\(maximum)} has its minimum above its maximum", at: start)
        }
        return Repetition(minimum: minimum, maximum: maximum, isLazy: false)
    }

    /// A run of ASCII digits, saturating well above any accepted count; nil when there is none.
    mutating func parseDecimal() -> Int? {
        var value: Int?
        while let scalar = peek, scalar.value >= 0x30, scalar.value <= 0x39 {
            let digit = Int(scalar.value - 0x30)
            value = min((value ?? 0) * 10 + digit, 1_000_000)
            index += 1
        }
        return value
    }
}
