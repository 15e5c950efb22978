/// Why a regular expression was refused, with a message a user can act on.
///
/// The message names the column of the problem (a 1-based count of Unicode scalars) and quotes the pattern,
/// shortened to about 200 bytes with control characters escaped, so that it fits on one line of a log:
///
/// ```swift
/// do {
///     _ = try Pattern("ab)")
/// } catch {
///     print(error)  // Invalid regular expression at column 3: unmatched ')'. Pattern: "ab)"
/// }
/// ```
public struct PatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }

        /// The pattern is not a well-formed regular expression (an unmatched parenthesis, a bad escape, …).
        public static let invalidSyntax = Code(name: "invalidSyntax")
        /// The pattern uses a feature that cannot run in linear time (backreferences, lookaround, …).
        public static let unsupported = Code(name: "unsupported")
        /// The pattern is too long, nested too deeply, or expands to too large a program.
        public static let tooComplex = Code(name: "tooComplex")
    }

    /// What kind of problem this is.
    public let code: Code
    /// The 1-based column (in Unicode scalars) where the problem is, or nil when the pattern as a whole is at fault.
    public let column: Int?
    /// What is wrong and how to fix it, without the place or the pattern.
    public let problem: String
    /// The pattern as quoted in ``message``: at most about 200 bytes, control characters escaped.
    public let quotedPattern: String

    init(_ code: Code, column: Int?, problem: String, pattern: String) {
        self.code = code
        self.column = column
        self.problem = problem
        self.quotedPattern = Self.quote(pattern)
    }

    /// The full message: headline, column, problem and the quoted pattern.
    public var message: String {
        let headline: String
        switch code {
        case .unsupported: headline = "Unsupported regular expression"
        case .tooComplex: headline = "Regular expression too complex"
        default: headline = "Invalid regular expression"
        }
        let place = column.map { " at column \($0)" } ?? ""
        return "\(headline)\(place): \(problem). Pattern: \(quotedPattern)"
    }

    public var description: String { message }

    // MARK: - Quoting

    /// The longest prefix of a pattern that a message quotes, in UTF-8 bytes.
    static let quotedByteLimit = 200

    /// `pattern` in double quotes, cut on a scalar boundary after ``quotedByteLimit`` bytes (marked with `…`),
    /// with control characters written as escapes so that a message never spans lines or moves the cursor.
    static func quote(_ pattern: String) -> String {
        var quoted = "\""
        var bytes = 0
        for scalar in pattern.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > quotedByteLimit {
                quoted += "…"
                break
            }
            append(scalar, to: &quoted)
        }
        return quoted + "\""
    }

    /// `text` with control and format characters, and line and paragraph separators, written as escapes: safe to
    /// put in a one-line message.
    static func escaped(_ text: some StringProtocol) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars { append(scalar, to: &escaped) }
        return escaped
    }

    private static func append(_ scalar: Unicode.Scalar, to text: inout String) {
        switch scalar {
        case "\n": text += "\\n"
        case "\t": text += "\\t"
        case "\r": text += "\\r"
        default:
            let category = scalar.properties.generalCategory
            if category == .control || category == .format || category == .lineSeparator
                || category == .paragraphSeparator
            {
                text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
    }
}
