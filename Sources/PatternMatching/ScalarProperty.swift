/// A Unicode property a class escape or a POSIX class tests, with ICU's definitions.
enum ScalarProperty: Sendable, Hashable {
    /// `\d`, `[:digit:]`: general category Nd.
    case decimalDigit
    /// `\w`, `[:word:]`: Alphabetic, marks, Nd, Pc, and the joiners ZWJ and ZWNJ.
    case word
    /// `\s`, `[:space:]`: the White_Space property.
    case whitespace
    /// `\h`, `[:blank:]`: space separators and tab.
    case horizontalWhitespace
    /// `\v`: the line terminators LF, VT, FF, CR, NEL, LS and PS.
    case verticalWhitespace
    /// `[:alpha:]`, `\p{Alphabetic}`.
    case alphabetic
    /// `[:upper:]`, `\p{Uppercase}`.
    case uppercase
    /// `[:lower:]`, `\p{Lowercase}`.
    case lowercase
    /// `[:alnum:]`: Alphabetic or Nd.
    case alphanumeric
    /// `[:xdigit:]`: Nd or Hex_Digit.
    case hexDigit
    /// `[:graph:]`: not whitespace, control, surrogate or unassigned.
    case graphic
    /// `[:print:]`: graphic or blank, and not a control.
    case printable
    /// `\p{Any}`.
    case any
    /// `\p{ASCII}`.
    case ascii
    /// A union of general categories, as a bit mask from ``categoryBit(_:)``.
    case generalCategories(UInt32)

    /// Whether the scalar with value `value` has the property.
    func contains(_ value: UInt32) -> Bool {
        if value < 0x80 { return containsASCII(value) }
        guard let scalar = Unicode.Scalar(value) else { return false }
        let properties = scalar.properties
        switch self {
        case .decimalDigit: return properties.generalCategory == .decimalNumber
        case .word: return Self.isWord(scalar)
        case .whitespace: return properties.isWhitespace
        case .horizontalWhitespace: return properties.generalCategory == .spaceSeparator
        case .verticalWhitespace: return Node.isLineTerminator(value)
        case .alphabetic: return properties.isAlphabetic
        case .uppercase: return properties.isUppercase
        case .lowercase: return properties.isLowercase
        case .alphanumeric: return properties.isAlphabetic || properties.generalCategory == .decimalNumber
        case .hexDigit: return properties.isHexDigit || properties.generalCategory == .decimalNumber
        case .graphic: return Self.isGraphic(properties)
        case .printable: return Self.isGraphic(properties) || properties.generalCategory == .spaceSeparator
        case .any: return true
        case .ascii: return false
        case .generalCategories(let mask): return mask & Self.categoryBit(properties.generalCategory) != 0
        }
    }

    /// The ASCII answers, written out so that the common case needs no Unicode data.
    private func containsASCII(_ value: UInt32) -> Bool {
        let isLetter = ((value | 0x20) &- 0x61) < 26
        let isDigit = (value &- 0x30) < 10
        switch self {
        case .decimalDigit: return isDigit
        case .word: return isLetter || isDigit || value == 0x5F
        case .whitespace: return value == 0x20 || (value >= 0x09 && value <= 0x0D)
        case .horizontalWhitespace: return value == 0x20 || value == 0x09
        case .verticalWhitespace: return value >= 0x0A && value <= 0x0D
        case .alphabetic: return isLetter
        case .uppercase: return (value &- 0x41) < 26
        case .lowercase: return (value &- 0x61) < 26
        case .alphanumeric: return isLetter || isDigit
        case .hexDigit: return isDigit || ((value | 0x20) &- 0x61) < 6
        case .graphic: return value > 0x20 && value < 0x7F
        case .printable: return value >= 0x20 && value < 0x7F
        case .any, .ascii: return true
        case .generalCategories(let mask):
            guard let scalar = Unicode.Scalar(value) else { return false }
            return mask & Self.categoryBit(scalar.properties.generalCategory) != 0
        }
    }

    /// Whether `scalar` is a word scalar for `\w` and `\b`.
    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 { return ((value | 0x20) &- 0x61) < 26 || (value &- 0x30) < 10 || value == 0x5F }
        let properties = scalar.properties
        if properties.isAlphabetic || properties.isJoinControl { return true }
        switch properties.generalCategory {
        case .decimalNumber, .connectorPunctuation, .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Whether `\b` looks through `scalar` to the scalar before it: grapheme extenders and format characters.
    static func isTransparentToWordBoundary(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return false }
        return scalar.properties.isGraphemeExtend || scalar.properties.generalCategory == .format
    }

    private static func isGraphic(_ properties: Unicode.Scalar.Properties) -> Bool {
        if properties.isWhitespace { return false }
        switch properties.generalCategory {
        case .control, .surrogate, .unassigned: return false
        default: return true
        }
    }
}
