/// Patterns and texts on which the engine must agree with NSRegularExpression, grouped by feature.
///
/// Each row is (pattern, text); the texts are chosen so that both a match and its absence are covered, with
/// Unicode, empty matches, trailing line terminators and case folding.
enum DifferentialCases {
    static let literals: [(String, String)] = [
        ("abc", "xxabcx"), ("abc", "ab"), ("a\\.c", "a.c"), ("a\\.c", "abc"), ("\\\\", "a\\b"), ("\\n", "a\nb"),
        ("\\t", "x\ty"), ("\\r\\n", "x\r\n"), ("\\f", "\u{0C}"), ("\\x41", "zA"), ("\\x{1F600}", "a😀"),
        ("\\u00e9", "café"), ("\\U0001F600", "😀"), ("\\01", "\u{01}"), ("\\0101", "A"), ("\\e", "\u{1B}"),
        ("\\a", "\u{07}"), ("\\cA", "\u{01}"), ("\\Qa.b\\E", "a.b"), ("\\Qa.b\\E", "axb"), ("\\*", "a*b"),
        ("\\$5", "costs $5"), ("ü", "Müller"), ("日本", "こんにちは日本語"), ("e\u{301}", "cafe\u{301}"),
        ("é", "cafe\u{301}"), ("]", "a]"), ("a b", "a b"), ("\\-", "-"), ("\\#", "#"),
    ]

    static let dot: [(String, String)] = [
        ("a.c", "abc"), ("a.c", "a\nc"), ("a.c", "a\rc"), ("a.c", "a\u{2028}c"), ("a.c", "a\u{85}c"),
        ("a.c", "a\u{0B}c"), ("a.b", "a😀b"), (".", "😀"), (".{3}", "日本語"), ("(?s)a.c", "a\nc"),
        ("(?s)a.c", "a\r\nc"), ("(?s)a..c", "a\r\nc"), ("(?s)a.\\nc", "a\r\nc"), ("(?s)^.$", "\r\n"),
        (".*", "abc\ndef"),
        (".*$", "ab\n"), ("(?s).*", "ab\ncd"), ("a.*b", "axxbyyb"), ("a.*?b", "axxbyyb"), (".", ""),
    ]

    static let classes: [(String, String)] = [
        ("[abc]", "xxb"), ("[^abc]", "abcd"), ("[^abc]", "abc"), ("[a-z]+", "123abc"), ("[^a-z]", "abc"),
        ("[\\d]", "a1"), ("[\\w.]+", "foo.bar baz"), ("[-a]", "x-"), ("[a-]", "x-"), ("[]a]", "x]"),
        ("[^]a]", "]b"), ("[a\\]]", "x]"), ("[\\^a]", "^"), ("[a^]", "x^"), ("[[:alpha:]]+", "123abc"),
        ("[[:digit:]]", "a5"), ("[[:space:]]", "a b"), ("[[:upper:]]", "aB"), ("[[:lower:]]", "AbC"),
        ("[[:punct:]]", "a!"), ("[[:punct:]]", "a$"), ("[[:xdigit:]]+", "xyzBEEF"), ("[[:alnum:]]+", "--a1--"),
        ("[[:^alpha:]]", "ab1"), ("[[:word:]]+", "--a_1--"), ("[[:blank:]]", "a\tb"), ("[[:cntrl:]]", "a\u{01}"),
        ("[a[bc]]", "xc"), ("[a-z&&[^aeiou]]+", "aeixyz"), ("[a-z--[aeiou]]", "aeb"),
        ("[\\x{100}-\\x{200}]", "a\u{150}"),
        ("[é]", "e\u{301}é"), ("[\\p{Lu}]", "aB"), ("[\\s\\d]", "a 1"), ("[\\-]", "-"), ("[a\\-z]", "b-"),
        ("[\\w-z]", "!-"), ("[😀-😂]", "a😁"), ("[^\\x00-\\x7F]+", "abcñ日"), ("[\\n]", "a\nb"), ("[.]", "a.b"),
        ("[$^]", "a$"), ("[\\D]", "12a"), ("[^\\d\\s]", "1 2x"),
    ]

    static let classEscapes: [(String, String)] = [
        ("\\d+", "ab123"), ("\\d", "x٣"), ("\\d", "x１"), ("\\d", "Ⅰ"), ("\\D", "123a"), ("\\w+", "  héllo_1 "),
        ("\\w", "\u{200D}"), ("\\w+", "日本語"), ("\\W", "abc!"), ("\\s+", "a \t\n b"), ("\\S", "  x"),
        ("\\s", "\u{A0}"), ("\\s", "\u{0B}"), ("\\s", "\u{85}"), ("\\s", "\u{200B}"), ("\\h", "a\tb"),
        ("\\h", "a\nb"), ("\\H", "\t\tx"), ("\\v", "a\u{0B}"), ("\\v", "a\n"), ("\\V", "\n\nb"), ("\\R", "a\r\nb"),
        ("\\R\\n", "\r\n"), ("\\R", "a\u{2029}"), ("\\p{L}+", "123äbc"), ("\\p{Lu}", "abcD"), ("\\P{L}", "ab1"),
        ("\\p{Nd}", "x٣"), ("\\p{Alphabetic}", "1a"), ("\\p{gc=Lu}", "aA"), ("\\p{Uppercase_Letter}", "aA"),
        ("\\p{ASCII}+", "éab"), ("\\p{Sc}", "costs €5"), ("\\p{Zs}", "a\u{3000}"), ("\\p{IsAlphabetic}", "1a"),
    ]

    static let anchors: [(String, String)] = [
        ("^abc", "abc"), ("^abc", "xabc"), ("abc$", "abc\n"), ("abc$", "abc\n\n"), ("abc$", "abc\r\n"),
        ("abc$", "abc\u{2028}"), ("^$", ""), ("^$", "\n"), ("$", "a\r\n"), ("$", "abc"), ("^", "abc"),
        ("\\Aabc", "abc"), ("\\Aabc", "\nabc"), ("abc\\z", "abc\n"), ("abc\\Z", "abc\n"), ("\\Z", "\r\n"),
        ("a\\Z", "a\n\n"), ("\\Gab", "ab"), ("\\Gab", "cab"), ("(?m)^b", "a\nb"), ("(?m)a$", "a\nb"),
        ("(?m)^$", "a\n\nb"), ("(?m)^$", "a\n"), ("(?m)^", "\n"), ("(?m)$", "a\r\nb"), ("(?m)^b", "a\r\nb"),
        ("(?m)^\\n", "a\r\n"), ("(?m)$\\n", "a\r\n"), ("(?m)^b", "a\u{2028}b"), ("(?m)a$", "a\u{85}"),
        ("(?m)\\n^", "a\n"), ("(?m)^a", "ba"), ("a^", "a"), ("$a", "a"), ("x$|y", "xy"),
    ]

    static let wordBoundaries: [(String, String)] = [
        ("\\bfoo\\b", "a foo b"), ("\\bfoo\\b", "afoo b"), ("\\Bfoo", "afoo"), ("\\b", ""), ("\\B", ""),
        ("\\bé", " é"), ("a\\b", "a\u{301}"), ("x\\b", "x\u{200B}"), ("\\b\\w+\\b", "  héllo "), ("\\b", "!!"),
        ("\\B", "ab"), ("\\b_", " _a"), ("\\b\u{301}", "a\u{301}"), ("\\bé\\b", "é"), ("\\b1", "a 1"),
        ("\\b日", "x 日本"), ("e\\b", "cafe\u{301} x"), ("\\B!", "a!"),
    ]

    static let groupsAndAlternation: [(String, String)] = [
        ("(a|b)c", "bc"), ("(?:ab)+", "ababx"), ("(?<y>\\d{4})-(?<m>\\d\\d)", "on 2024-05"), ("a|b|c", "xxc"),
        ("cat|category", "category"), ("category|cat", "category"), ("(a|ab)(c|bcd)(d*)", "abcd"), ("a|", "b"),
        ("|a", "a"), ("()", ""), ("(|)", "a"), ("((a))", "xa"), ("(a)(b)(c)", "abc"), ("(?#note)a", "ba"),
        ("x(?:y|z)+", "xzyzq"), ("(?:a|b|)+c", "abc"), ("(foo|foobar)baz", "foobarbaz"), ("(a|b)*?c", "abc"),
    ]

    static let quantifiers: [(String, String)] = [
        ("a*", "aaa"), ("a*", "baaa"), ("a+", "baaa"), ("a?", "a"), ("ab?c", "ac"), ("a{3}", "aaaa"),
        ("a{2,}", "a"), ("a{2,}", "aaaaa"), ("a{2,3}", "aaaaa"), ("a{0}", "a"), ("a{0,0}b", "ab"), ("a*?", "aaa"),
        ("a+?", "aaa"), ("a??b", "ab"), ("a{2,3}?", "aaaa"), ("a{2,}?", "aaaa"), ("<.+>", "<a><b>"),
        ("<.+?>", "<a><b>"), ("a*+", "aaa"), ("a++b", "aaab"), ("(ab){2}", "ababab"), ("(a|b)*c", "abababc"),
        ("(a*)*b", "aab"), ("(a*)+b", "aab"), ("(|a)+b", "aab"), ("(a|)+?b", "aab"), ("x*", ""), ("(a+)+$", "aaab"),
        ("(?:a|b)+?c", "abc"), ("(a+|b)*", "ab"), ("a{1,3}b{2}", "aaaabb"), ("(?:ab){0,2}c", "abababc"),
        ("\\d{2,4}", "1 12345"), ("(a?){3}a{3}", "aaa"), ("😀{2}", "😀😀😀"), ("a{1000}", "aaa"),
    ]

    static let caseInsensitive: [(String, String)] = [
        ("(?i)abc", "xABC"), ("(?i)é", "É"), ("(?i)É", "é"), ("(?i)[a-z]+", "ABC"), ("(?i)[^a]", "A"),
        ("(?i)k", "\u{212A}"), ("(?i)\u{212A}", "k"), ("(?i)[k]", "\u{212A}"), ("(?i)ſ", "S"), ("(?i)σ", "ς"),
        ("(?i)Σ", "ς"), ("(?i)ǅ", "ǆ"), ("(?i)ı", "I"), ("(?i)i", "\u{130}"), ("(?i:a)b", "Ab"), ("(?i:a)b", "AB"),
        ("a(?i)b", "aB"), ("a(?i)b", "AB"), ("(?i)a(?-i)b", "AB"), ("(?i)a(?-i)b", "Ab"), ("(?i)\\p{Lu}", "a"),
        ("(?i)\\P{Lu}", "A"), ("(?i)ÀÉÎ", "àéî"), ("(?i)δ", "Δ"), ("(?i)я", "Я"), ("(?i)1", "1"), ("(?i)[é]", "É"),
        ("(?i)[^k]", "\u{212A}"), ("(?i)ß", "ẞ"), ("(?i)(a|b)+", "xABab"), ("(?i)\\bFoo\\b", "a FOO b"),
        ("(?i)[[:lower:]]", "A"),
    ]

    static let flags: [(String, String)] = [
        ("(?x) a b # comment", "ab"), ("(?x)a\\ b", "a b"), ("(?x)[ a]", " "), ("(?x)a +", "aa"),
        ("(?ms)^a.b$", "x\na\nb\n"), ("(?s:a.)b", "a\nb"), ("(?s:a.).", "a\n\n"), ("(?m:^b)|c", "a\nb"),
        ("(?i-i)a", "A"), ("(?-)a", "a"), ("(?im)^B$", "a\nb\nc"),
    ]

    /// Every table, in one list.
    static let all: [(String, String)] =
        literals + dot + classes + classEscapes + anchors + wordBoundaries + groupsAndAlternation + quantifiers
        + caseInsensitive + flags
}
