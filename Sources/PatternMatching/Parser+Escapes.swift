// MARK: - Escapes

extension Parser {
    /// What an escape stands for.
    enum Escape {
        /// One scalar: `\n`, `\x41`, `\.`.
        case scalar(Unicode.Scalar)
        /// A set: `\d`, `\W`, `\p{Lu}`.
        case set(CharacterClass.Expression)
    }

    /// The escape whose backslash is at `start` (already consumed), outside a class.
    mutating func parseEscape(at start: Int) throws(PatternError) -> Node? {
        guard let letter = peek else {
            throw syntaxError("the pattern ends with a lone backslash; write \\\\ for a literal backslash", at: start)
        }
        index += 1
        switch letter {
        case "A", "G": return .assertion(.startOfText)
        case "z": return .assertion(.endOfText)
        case "Z": return .assertion(.endOfTextOrBeforeFinalTerminator)
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "E": return nil
        case "R": return lineBreak()
        case "1"..."9", "k", "g": throw nonLinear("backreferences such as \\1 are", at: start)
        case "K": throw unsupported("\\K (reset match start) is not supported", at: start)
        case "X":
            throw unsupported("\\X (a grapheme cluster) is not supported; match a character with . instead", at: start)
        default:
            index -= 1
            switch try parseCommonEscape(at: start) {
            case .scalar(let scalar): return literal(scalar)
            case .set(let expression):
                return .characterClass(add(CharacterClass(expression)))
            }
        }
    }

    /// `\R`: CR LF, or any one line terminator.
    private mutating func lineBreak() -> Node {
        let others = CharacterClass.Expression.union(
            ranges: [0x0A...0x0C, 0x85...0x85, 0x2028...0x2029], others: [])
        return .alternation([
            .concatenation([.scalar("\r"), .alternation([.scalar("\n"), .assertion(.notBeforeLineFeed)])]),
            .characterClass(add(CharacterClass(others))),
        ])
    }

    /// An escape valid both in and outside a class: a scalar or a class escape. `index` is just past the backslash.
    mutating func parseCommonEscape(at start: Int) throws(PatternError) -> Escape {
        guard let letter = peek else {
            throw syntaxError("the pattern ends with a lone backslash; write \\\\ for a literal backslash", at: start)
        }
        index += 1
        switch letter {
        case "d": return .set(.property(.decimalDigit))
        case "D": return .set(.complement(.property(.decimalDigit)))
        case "w": return .set(.property(.word))
        case "W": return .set(.complement(.property(.word)))
        case "s": return .set(.property(.whitespace))
        case "S": return .set(.complement(.property(.whitespace)))
        case "h": return .set(.property(.horizontalWhitespace))
        case "H": return .set(.complement(.property(.horizontalWhitespace)))
        case "v": return .set(.property(.verticalWhitespace))
        case "V": return .set(.complement(.property(.verticalWhitespace)))
        case "p", "P": return .set(try parsePropertyEscape(negated: letter == "P", at: start))
        case "a": return .scalar("\u{07}")
        case "e": return .scalar("\u{1B}")
        case "f": return .scalar("\u{0C}")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "t": return .scalar("\t")
        case "0": return .scalar(parseOctal())
        case "x": return .scalar(try parseHex(at: start, braced: true, digits: 1...2))
        case "u": return .scalar(try parseHex(at: start, braced: true, digits: 4...4))
        case "U": return .scalar(try parseHex(at: start, braced: false, digits: 8...8))
        case "c": return .scalar(try parseControl(at: start))
        case "N":
            throw unsupported("character names \\N{…} are not supported; write the code point as \\x{…}", at: start)
        default:
            if letter.isASCII && (letter.properties.isAlphabetic || letter.properties.numericType != nil) {
                throw syntaxError(
                    "unknown escape '\\\(letter)'; write \(letter) without the backslash for the letter itself",
                    at: start)
            }
            return .scalar(letter)
        }
    }

    /// Up to three octal digits after `\0`, as long as the value stays at most 0377.
    private mutating func parseOctal() -> Unicode.Scalar {
        var value: UInt32 = 0
        for _ in 0..<3 {
            guard let scalar = peek, scalar.value >= 0x30, scalar.value <= 0x37,
                value * 8 + (scalar.value - 0x30) <= 0o377
            else { break }
            value = value * 8 + (scalar.value - 0x30)
            index += 1
        }
        return Unicode.Scalar(UInt8(value))
    }

    /// `{h…}` (one to eight hex digits) when `braced` and a `{` follows, else exactly `digits` hex digits.
    private mutating func parseHex(at start: Int, braced: Bool, digits: ClosedRange<Int>) throws(PatternError)
        -> Unicode.Scalar
    {
        let written = scalars[start + 1]
        let isBraced = braced && peek == "{"
        if isBraced { index += 1 }
        let allowed = isBraced ? 1...8 : digits
        var value: UInt32 = 0
        var count = 0
        while count < allowed.upperBound, let scalar = peek, let digit = Self.hexValue(scalar) {
            value = value << 4 | digit
            count += 1
            index += 1
        }
        guard allowed.contains(count), !isBraced || peek == "}" else {
            throw syntaxError(
                "malformed hexadecimal escape; write \\xhh, \\x{h…}, \\uhhhh, \\u{h…} or \\Uhhhhhhhh, as in \\x41",
                at: start)
        }
        if isBraced { index += 1 }
        guard let scalar = Unicode.Scalar(value) else {
            throw syntaxError(
                "\\\(written) names U+\(String(value, radix: 16, uppercase: true)), which is not a Unicode scalar "
                    + "(above 10FFFF or a surrogate)", at: start)
        }
        return scalar
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x41...0x46: return scalar.value - 0x41 + 10
        case 0x61...0x66: return scalar.value - 0x61 + 10
        default: return nil
        }
    }

    /// `\cX`: the control character of the ASCII letter (or one of `@[\]^_?`) X.
    private mutating func parseControl(at start: Int) throws(PatternError) -> Unicode.Scalar {
        guard let scalar = peek, scalar.value >= 0x3F, scalar.value < 0x7F,
            scalar.properties.isAlphabetic || "@[\\]^_?".unicodeScalars.contains(scalar)
        else {
            throw syntaxError("\\c must be followed by an ASCII letter, as in \\cA for U+0001", at: start)
        }
        index += 1
        let upper = scalar.value >= 0x61 ? scalar.value - 0x20 : scalar.value
        return Unicode.Scalar(UInt8(upper ^ 0x40))
    }

    /// `\p{Name}`, `\p{^Name}`, `\pL` and their `\P` complements; `index` is just past the `p`.
    private mutating func parsePropertyEscape(negated: Bool, at start: Int) throws(PatternError)
        -> CharacterClass.Expression
    {
        var name = ""
        if peek == "{" {
            index += 1
            while let scalar = peek, scalar != "}" {
                name.unicodeScalars.append(scalar)
                index += 1
            }
            guard peek == "}" else {
                throw syntaxError("unterminated property '\\p{'; close it with '}', as in \\p{Lu}", at: start)
            }
            index += 1
        } else if let scalar = peek, scalar.isASCII, scalar.properties.isAlphabetic {
            name.unicodeScalars.append(scalar)
            index += 1
        } else {
            throw syntaxError("\\p must name a property, as in \\p{Lu} or \\p{Alphabetic}", at: start)
        }
        var isNegated = negated
        if name.hasPrefix("^") {
            name.removeFirst()
            isNegated.toggle()
        }
        guard var expression = ScalarProperty.named(name) else {
            throw unsupported(
                "the property \\p{\(PatternError.escaped(name))} is not supported; use a general category such as "
                    + "\\p{L}, \\p{Lu} or \\p{Nd}, or Alphabetic, Uppercase, Lowercase, White_Space, ASCII, Any or "
                    + "Assigned", at: start)
        }
        // As in ICU, a case-insensitive property is closed over case before it is complemented.
        if flags.isCaseInsensitive { expression = expression.closedOverCase }
        return isNegated ? .complement(expression) : expression
    }
}
