/// A regular expression that matches in time linear in the length of the text, whatever the pattern.
///
/// Every pattern a user writes in Pasteboard (`ignore-text` rules, `pb search --regex`, filters) goes through this
/// type, so that no pattern can hang the daemon: the cost of a search is at most the length of the text times the
/// size of the compiled program, and the program size is bounded (see ``sourceLengthLimit`` and
/// ``PatternError/Code/tooComplex``).
///
/// ```swift
/// let rule = try Pattern(#"^\d{4}-\d{2}-\d{2}$"#)
/// rule.matches(in: "2024-05-01")            // true
/// let word = try Pattern("colou?r", options: .caseInsensitive)
/// word.firstMatch(in: "The COLOR red")      // the range of "COLOR"
/// ```
///
/// The syntax is ICU's (NSRegularExpression's), minus the features that need backtracking: literals and escapes
/// (`\n`, `\t`, `\x41`, `\x{1F600}`, `\u00E9`, `\u{E9}`, `\Q…\E`), `.`, classes (`[a-z]`, `[^…]`, `[[:alpha:]]`,
/// nested classes, `&&`, `--`), `\d \w \s \h \v` and their complements, `\p{…}` for general categories, anchors
/// (`^ $ \A \z \Z \b \B`), groups (`( )`, `(?: )`, `(?<name> )`), alternation, greedy, lazy and possessive
/// quantifiers, and the flags `(?i)`, `(?m)`, `(?s)` and `(?x)`, alone or scoped (`(?i: … )`). Backreferences,
/// lookaround, atomic groups, conditionals and recursion are refused with ``PatternError/Code/unsupported``.
///
/// Matching works on Unicode scalars. A match is leftmost-first, as in NSRegularExpression: of the matches that
/// start earliest, the one the quantifiers prefer (greedy: longer, lazy: shorter), the earlier branch of an
/// alternation winning (`cat|category` finds `cat`). Possessive quantifiers are treated as greedy, so a pattern
/// such as `a++a`, which never matches with backtracking, matches here. Otherwise, whether there is a match and
/// where the first one starts are what a backtracking engine finds; the end can differ only when a repeated group
/// can match the empty string and an empty iteration follows a non-empty one (`(?:.??\w*|\W)+` on `aa  a`
/// ends after `aa` in ICU and at the end here).
public struct Pattern: Sendable, Hashable {
    /// Modes that apply to the whole pattern, as the inline flags do to part of it.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Letters match regardless of case, by simple case folding (`(?i)`): `É` matches `é`, `K` the Kelvin
        /// sign; `ß` does not match `ss`.
        public static let caseInsensitive = Options(rawValue: 1 << 0)
        /// `^` and `$` match at the start and end of every line, not only of the text (`(?m)`).
        public static let anchorsMatchLines = Options(rawValue: 1 << 1)
        /// `.` matches line terminators too, taking CR LF as one (`(?s)`).
        public static let dotMatchesLineSeparators = Options(rawValue: 1 << 2)
        /// White space and `#` comments in the pattern are ignored (`(?x)`).
        public static let allowsCommentsAndWhitespace = Options(rawValue: 1 << 3)
    }

    /// The longest source accepted, in UTF-8 bytes.
    public static let sourceLengthLimit = 4_096

    /// The pattern as written.
    public let source: String
    /// The options it was compiled with.
    public let options: Options
    /// Text every match contains, for a prefilter over an index of texts with their accents dropped, compared ignoring
    /// case (see `IndexLiteral`); empty when the pattern promises none.
    public let indexLiteral: String
    private let program: Program

    /// Compiles `source`.
    ///
    /// - Throws: ``PatternError`` with code `invalidSyntax` for a malformed pattern, `unsupported` for a feature
    ///   that cannot run in linear time, and `tooComplex` when the source is longer than ``sourceLengthLimit``,
    ///   nests groups or classes more than 32 deep, uses a count above 1,000, or would cost more than 10,000 steps
    ///   per scalar of text (about one per instruction after counted repetition is expanded).
    public init(_ source: String, options: Options = []) throws(PatternError) {
        if source.utf8.count > Self.sourceLengthLimit {
            throw PatternError(
                .tooComplex, column: nil,
                problem: "it is \(source.utf8.count) bytes long, above the limit of \(Self.sourceLengthLimit)",
                pattern: source)
        }
        var flags = Parser.Flags()
        flags.isCaseInsensitive = options.contains(.caseInsensitive)
        flags.anchorsMatchLines = options.contains(.anchorsMatchLines)
        flags.dotMatchesLineTerminators = options.contains(.dotMatchesLineSeparators)
        flags.allowsCommentsAndWhitespace = options.contains(.allowsCommentsAndWhitespace)
        var parser = Parser(source, flags: flags)
        let node = try parser.parse()
        self.source = source
        self.options = options
        self.program = try Compiler.compile(node, classes: parser.classes, source: source)
        indexLiteral = String(String.UnicodeScalarView(IndexLiteral.required(node)))
    }

    // MARK: - Matching

    /// Whether the pattern matches somewhere in `text`.
    ///
    /// Stops at the first match found, so it can be faster than ``firstMatch(in:)``.
    public func matches(in text: String) -> Bool {
        Self.withUTF8(of: text) { Matcher.firstMatch(of: program, in: $0, stoppingAtAnyMatch: true) } != nil
    }

    /// The range of the leftmost-first match in `text`, or nil when there is none.
    ///
    /// The bounds are on Unicode scalar boundaries, which need not be `Character` boundaries (a pattern may match
    /// a letter without the accent that follows it); use `text.unicodeScalars[range]` to see exactly what matched.
    public func firstMatch(in text: String) -> Range<String.Index>? {
        let offsets = Self.withUTF8(of: text) { Matcher.firstMatch(of: program, in: $0, stoppingAtAnyMatch: false) }
        guard let offsets else { return nil }
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: offsets.lowerBound)
        return lower..<utf8.index(lower, offsetBy: offsets.count)
    }

    /// Runs `body` over the UTF-8 bytes of `text`, copying them only when the string is not stored contiguously.
    private static func withUTF8<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    // MARK: - Equality

    /// Two patterns are equal when they have the same options and their sources the same Unicode scalars (not
    /// merely canonically equivalent ones, since `é` and `e` with a combining accent match different text).
    public static func == (lhs: Pattern, rhs: Pattern) -> Bool {
        lhs.options == rhs.options && lhs.source.utf8.elementsEqual(rhs.source.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(options)
        for byte in source.utf8 { hasher.combine(byte) }
    }
}
