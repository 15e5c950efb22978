// MARK: - Groups and inline flags

extension Parser {
    /// The group whose `(` is at `start` (already consumed): `( )`, `(?: )`, `(?<name> )`, `(?flags: )`, or a
    /// flag setting `(?flags)` or comment `(?# )`, which return nil.
    mutating func parseGroup(openedAt start: Int) throws(PatternError) -> Node? {
        try enterNesting(at: start)
        defer { depth -= 1 }
        let saved = flags
        if peek == "?" {
            index += 1
            switch try parseGroupKind(openedAt: start) {
            case .plain: break
            case .nothing: return nil
            case .flags(let newFlags, let scoped):
                flags = newFlags
                if !scoped { return nil }
            }
        }
        let body = try parseAlternation()
        guard peek == ")" else { throw syntaxError("unmatched '('; add a ')' to close the group", at: start) }
        index += 1
        flags = saved
        return body
    }

    /// What follows `(?`.
    enum GroupKind {
        /// A group that only groups: `(?:`, `(?<name>`, `(?P<name>`, `(?'name'`, `(?|`.
        case plain
        /// A comment, already skipped with its `)`.
        case nothing
        /// Flags for the rest of the enclosing group (`(?i)`, `)` consumed) or for a group body (`(?i:`).
        case flags(Flags, scoped: Bool)
    }

    private mutating func parseGroupKind(openedAt start: Int) throws(PatternError) -> GroupKind {
        guard let kind = peek else { throw syntaxError("unterminated group '(?'", at: start) }
        switch kind {
        case ":", "|":
            index += 1
            return .plain
        case "<":
            index += 1
            if peek == "=" || peek == "!" { throw nonLinear("lookbehind (?<= and (?<! is", at: start) }
            try parseGroupName(closedBy: ">", openedAt: start)
            return .plain
        case "'":
            index += 1
            try parseGroupName(closedBy: "'", openedAt: start)
            return .plain
        case "P":
            index += 1
            if peek == "<" {
                index += 1
                try parseGroupName(closedBy: ">", openedAt: start)
                return .plain
            }
            if peek == "=" { throw nonLinear("backreferences such as (?P=name) are", at: start) }
            if peek == ">" { throw nonLinear("recursion such as (?P>name) is", at: start) }
            throw syntaxError("unknown group syntax '(?P'; named groups are written (?<name>…)", at: start)
        case "=", "!": throw nonLinear("lookahead (?= and (?! is", at: start)
        case ">": throw nonLinear("atomic groups (?> are", at: start)
        case "(": throw nonLinear("conditional groups (?( are", at: start)
        case "R", "&", "+", "0"..."9": throw nonLinear("recursion such as (?R) and (?1) is", at: start)
        case "-" where peek(1).map { $0.properties.numericType != nil } ?? false:
            throw nonLinear("recursion such as (?-1) is", at: start)
        case "C": throw unsupported("callouts (?C…) are not supported", at: start)
        case "#":
            while let scalar = peek, scalar != ")" { index += 1 }
            guard peek == ")" else { throw syntaxError("unterminated comment '(?#'; close it with ')'", at: start) }
            index += 1
            return .nothing
        default:
            return try parseFlags(openedAt: start)
        }
    }

    /// A group name, ASCII letters, digits and underscores starting with a letter, and its closing delimiter.
    private mutating func parseGroupName(closedBy delimiter: Unicode.Scalar, openedAt start: Int) throws(PatternError) {
        let nameStart = index
        while let scalar = peek, scalar.isASCII,
            scalar.properties.isAlphabetic || scalar == "_"
                || (index > nameStart && scalar.properties.numericType != nil)
        {
            index += 1
        }
        guard index > nameStart, peek == delimiter else {
            throw syntaxError(
                "a group name must start with an ASCII letter, hold only letters, digits and '_', and end with "
                    + "'\(delimiter)'", at: index < scalars.count ? index : start)
        }
        index += 1
    }

    /// `i`, `m`, `s` and `x`, optionally a `-` and flags to turn off, then `)` or `:`.
    private mutating func parseFlags(openedAt start: Int) throws(PatternError) -> GroupKind {
        var newFlags = flags
        var turningOn = true
        var sawAny = false
        while let scalar = peek {
            let flagIndex = index
            index += 1
            switch scalar {
            case "i": newFlags.isCaseInsensitive = turningOn
            case "m": newFlags.anchorsMatchLines = turningOn
            case "s": newFlags.dotMatchesLineTerminators = turningOn
            case "x": newFlags.allowsCommentsAndWhitespace = turningOn
            case "-" where turningOn: turningOn = false
            case "w":
                throw unsupported(
                    "the flag (?w) (Unicode word breaks for \\b) is not supported; \\b divides \\w from \\W",
                    at: flagIndex)
            case ")", ":":
                guard sawAny || !turningOn else {
                    throw syntaxError("empty group options '(?\(scalar)'", at: start)
                }
                return .flags(newFlags, scoped: scalar == ":")
            default:
                throw syntaxError(
                    "unknown group syntax or flag '\(PatternError.escaped(String(scalar)))'; the flags are i, m, s "
                        + "and x, as in (?i) or (?i:…)", at: flagIndex)
            }
            sawAny = true
        }
        throw syntaxError("unterminated group '(?'", at: start)
    }
}
