#if canImport(Glibc)
    import Glibc
#endif

/// A reader of one JSON text (RFC 8259) held in mutable bytes, which decodes each string in place: the decoded
/// bytes of a string are never longer than its JSON spelling, so they overwrite it and the caller gets their range,
/// with no copy and no allocation. Built for `pb import`, which reads a million lines of mostly short strings.
///
/// Strict where JSON is: no trailing commas, no control characters or invalid UTF-8 inside strings, surrogate
/// escapes only in pairs (a lone one stands for no character), numbers as the grammar spells them, nesting at most
/// `maxDepth` deep.
///
/// ```swift
/// var scanner = JSONScanner(line)            // an UnsafeMutableRawBufferPointer
/// try scanner.openObject()
/// var first = true
/// while let key = try scanner.nextKey(first: &first) {
///     if scanner.equals(key, "text") { let text = try scanner.string() } else { try scanner.skipValue() }
/// }
/// try scanner.finish()
/// ```
struct JSONScanner {
    /// The text is not valid JSON; `message` says where and why.
    struct Failure: Error {
        let message: String
    }

    /// A JSON number: its value, and the value as a whole number when it is spelled as one and fits.
    struct Number {
        let value: Double
        let integer: Int64?
    }

    /// What the next value is, from its first byte.
    enum Kind {
        case object, array, string, number, bool, null
    }

    static let maxDepth = 256

    let base: UnsafeMutablePointer<UInt8>
    let count: Int
    private(set) var index = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        // An empty buffer may have no address; any valid pointer does, as nothing is read from it.
        base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONScanner.empty
        count = buffer.count
    }

    nonisolated(unsafe) private static let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    // nonisolated(unsafe): allocated once, never written or read (a stand-in address for empty input).

    /// The bytes of a range this scanner returned.
    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    func mutableBytes(_ range: Range<Int>) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    /// Whether the decoded string in `range` is exactly `text` (ASCII).
    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        return memcmp(base + range.lowerBound, text.utf8Start, range.count) == 0
    }

    // MARK: - Structure

    private func failure(_ problem: String) -> Failure {
        Failure(message: "not valid JSON: \(problem) at byte \(index + 1)")
    }

    private mutating func skipWhitespace() {
        while index < count {
            let byte = base[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// The kind of the next value (after whitespace).
    mutating func peek() throws(Failure) -> Kind {
        skipWhitespace()
        guard index < count else { throw failure("the text ends where a value should be") }
        switch base[index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw failure("unexpected character")
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        skipWhitespace()
        guard index < count, base[index] == byte else { throw failure("expected \(what)") }
        index += 1
    }

    mutating func openObject() throws(Failure) { try expect(UInt8(ascii: "{"), "'{'") }

    mutating func openArray() throws(Failure) { try expect(UInt8(ascii: "["), "'['") }

    /// The next member's key in an open object (the scanner then stands before its value), or nil once the object
    /// closes. `first` is true before the first member and is updated.
    mutating func nextKey(first: inout Bool) throws(Failure) -> Range<Int>? {
        guard try nextItem(first: &first, closing: UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard index < count, base[index] == UInt8(ascii: "\"") else { throw failure("expected a key in quotes") }
        let key = try string()
        try expect(UInt8(ascii: ":"), "':' after a key")
        return key
    }

    /// Whether an open array has another element (the scanner then stands before it).
    mutating func nextElement(first: inout Bool) throws(Failure) -> Bool {
        try nextItem(first: &first, closing: UInt8(ascii: "]"))
    }

    private mutating func nextItem(first: inout Bool, closing: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard index < count else { throw failure("the text ends inside an object or array") }
        if base[index] == closing && first {
            index += 1
            first = false
            return false
        }
        if !first {
            if base[index] == closing {
                index += 1
                return false
            }
            guard base[index] == UInt8(ascii: ",") else { throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))'") }
            index += 1
        }
        first = false
        return true
    }

    /// Checks that nothing but whitespace follows the value read.
    mutating func finish() throws(Failure) {
        skipWhitespace()
        if index < count { throw failure("more text after the end") }
    }

    // MARK: - Values

    /// Skips one value of any kind.
    mutating func skipValue(depth: Int = 0) throws(Failure) {
        guard depth < Self.maxDepth else { throw failure("nested more than \(Self.maxDepth) deep") }
        switch try peek() {
        case .object:
            try openObject()
            var first = true
            while try nextKey(first: &first) != nil { try skipValue(depth: depth + 1) }
        case .array:
            try openArray()
            var first = true
            while try nextElement(first: &first) { try skipValue(depth: depth + 1) }
        case .string: _ = try string()
        case .number: _ = try number()
        case .bool: _ = try bool()
        case .null: try null()
        }
    }

    mutating func bool() throws(Failure) -> Bool {
        skipWhitespace()
        if literal("true") { return true }
        if literal("false") { return false }
        throw failure("unexpected character")
    }

    mutating func null() throws(Failure) {
        skipWhitespace()
        if !literal("null") { throw failure("unexpected character") }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard count - index >= length, memcmp(base + index, word.utf8Start, length) == 0 else { return false }
        index += length
        return true
    }

    /// Reads a number as JSON spells it.
    mutating func number() throws(Failure) -> Number {
        skipWhitespace()
        let start = index
        var isWhole = true
        if index < count && base[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count, isDigit(base[index]) else { throw failure("a number needs digits") }
        if base[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < count && isDigit(base[index]) { index += 1 }
        }
        if index < count && base[index] == UInt8(ascii: ".") {
            isWhole = false
            index += 1
            guard index < count, isDigit(base[index]) else { throw failure("a number needs digits after '.'") }
            while index < count && isDigit(base[index]) { index += 1 }
        }
        if index < count && (base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E")) {
            isWhole = false
            index += 1
            if index < count && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) { index += 1 }
            guard index < count, isDigit(base[index]) else { throw failure("a number needs digits in its exponent") }
            while index < count && isDigit(base[index]) { index += 1 }
        }
        let length = index - start
        // strtod needs a terminated string; the number's bytes are copied out, as the line goes on after it.
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text -> Double in
            for offset in 0..<length { text[offset] = CChar(bitPattern: base[start + offset]) }
            text[length] = 0
            return strtod(text.baseAddress!, nil)
        }
        var integer: Int64?
        if isWhole && length <= 18 {
            var whole: Int64 = 0
            var cursor = start
            let negative = base[cursor] == UInt8(ascii: "-")
            if negative { cursor += 1 }
            while cursor < index {
                whole = whole * 10 + Int64(base[cursor] - 48)
                cursor += 1
            }
            integer = negative ? -whole : whole
        }
        return Number(value: value, integer: integer)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Reads a string and decodes it in place; returns where its UTF-8 bytes now are.
    mutating func string() throws(Failure) -> Range<Int> {
        try expect(UInt8(ascii: "\""), "a string")
        let start = index
        var write = index
        while true {
            // Plain ASCII, the common case: nothing to decode while nothing was unescaped before it.
            while index < count {
                let byte = base[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
                if write != index { base[write] = byte }
                write += 1
                index += 1
            }
            guard index < count else { throw failure("a string is not closed") }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<write
            }
            if byte < 0x20 { throw failure("a control character inside a string (write it as \\u00\(hex(byte)))") }
            if byte >= 0x80 {
                let length = try utf8SequenceLength()
                for offset in 0..<length { base[write + offset] = base[index + offset] }
                write += length
                index += length
                continue
            }
            // A backslash.
            guard index + 1 < count else { throw failure("a string is not closed") }
            let escaped = base[index + 1]
            index += 2
            let simple: UInt8?
            switch escaped {
            case UInt8(ascii: "\""): simple = 0x22
            case UInt8(ascii: "\\"): simple = 0x5C
            case UInt8(ascii: "/"): simple = 0x2F
            case UInt8(ascii: "b"): simple = 0x08
            case UInt8(ascii: "f"): simple = 0x0C
            case UInt8(ascii: "n"): simple = 0x0A
            case UInt8(ascii: "r"): simple = 0x0D
            case UInt8(ascii: "t"): simple = 0x09
            case UInt8(ascii: "u"): simple = nil
            default: throw failure("unknown escape '\\\(Character(Unicode.Scalar(escaped)))'")
            }
            if let simple {
                base[write] = simple
                write += 1
                continue
            }
            var scalar = try hexEscape()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < count, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate escape \\u\(String(scalar, radix: 16)) (it stands for no character)")
                }
                index += 2
                let low = try hexEscape()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw failure("a lone surrogate escape \\u\(String(scalar, radix: 16)) (it stands for no character)")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("a lone surrogate escape \\u\(String(scalar, radix: 16)) (it stands for no character)")
            }
            write += encodeUTF8(scalar, at: write)
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    private mutating func hexEscape() throws(Failure) -> UInt32 {
        guard count - index >= 4 else { throw failure("\\u needs four hexadecimal digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw failure("\\u needs four hexadecimal digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func encodeUTF8(_ scalar: UInt32, at offset: Int) -> Int {
        switch scalar {
        case ..<0x80:
            base[offset] = UInt8(scalar)
            return 1
        case ..<0x800:
            base[offset] = UInt8(0xC0 | scalar >> 6)
            base[offset + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            base[offset] = UInt8(0xE0 | scalar >> 12)
            base[offset + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            base[offset + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            base[offset] = UInt8(0xF0 | scalar >> 18)
            base[offset + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            base[offset + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            base[offset + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7), or a failure.
    private func utf8SequenceLength() throws(Failure) -> Int {
        guard let length = UTF8Sequence.length(at: base + index, available: count - index) else {
            throw failure("invalid UTF-8")
        }
        return length
    }
}
