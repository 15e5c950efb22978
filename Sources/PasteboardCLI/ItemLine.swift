import Foundation
import PasteboardHistory
import PasteboardModel

/// The JSON Lines format of `pb export` / `pb import`: one item per line, oldest first.
///
/// ```
/// {"created":"2026-11-29T14:55:34.123Z","lastCopied":"…","copyCount":2,"pinned":false,"source":"firefox",
///  "representations":[{"type":"public.html","text":"<b>hi</b>"},{"type":"public.png","base64":"iVBORw0…"}]}
/// ```
/// Each representation carries `text` when its bytes are valid UTF-8, else `base64`. For migrating from
/// other managers, a line may also be just `{"text":"…"}`, and `type` may be a MIME type. Dates are ISO 8601 text
/// (`2024-01-01`, `2024-01-01T12:00:00Z`, with or without fractional seconds and an offset; see `DateText`) or
/// seconds since 1970; fields the format does not know are ignored.
enum ItemLine {
    // MARK: - Writing

    /// One representation to write: its type identifier and bytes.
    struct Payload {
        let type: String
        let bytes: Data
    }

    /// Appends one line (without its line feed) to `out`.
    static func append(
        created: Double, lastCopied: Double, copyCount: Int64, isPinned: Bool, source: String?, expiresAt: Double?,
        representations: [Payload], to out: inout [UInt8]
    ) {
        JSONBytes.append(literal: #"{"created":""#, to: &out)
        DateText.append(created, to: &out)
        JSONBytes.append(literal: #"","lastCopied":""#, to: &out)
        DateText.append(lastCopied, to: &out)
        JSONBytes.append(literal: #"","copyCount":"#, to: &out)
        JSONBytes.append(integer: copyCount, to: &out)
        JSONBytes.append(literal: isPinned ? #","pinned":true"# : #","pinned":false"#, to: &out)
        if let source {
            JSONBytes.append(literal: #","source":"#, to: &out)
            JSONBytes.append(string: source, to: &out)
        }
        if let expiresAt {
            JSONBytes.append(literal: #","expiresAt":""#, to: &out)
            DateText.append(expiresAt, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        JSONBytes.append(literal: #","representations":["#, to: &out)
        for (index, representation) in representations.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.append(literal: #"{"type":"#, to: &out)
            JSONBytes.append(string: representation.type, to: &out)
            representation.bytes.withUnsafeBytes { bytes in
                if UTF8Check.isValid(bytes) {
                    JSONBytes.append(literal: #","text":"#, to: &out)
                    JSONBytes.append(utf8: bytes, to: &out)
                } else {
                    JSONBytes.append(literal: #","base64":""#, to: &out)
                    Base64.append(bytes, to: &out)
                    out.append(UInt8(ascii: "\""))
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        JSONBytes.append(literal: "]}", to: &out)
    }

    /// The line for one item, as `pb export` writes it.
    static func encode(_ item: HistoryItem, payload: PasteboardItem) -> String {
        var out: [UInt8] = []
        append(
            created: item.created.timeIntervalSince1970, lastCopied: item.lastCopied.timeIntervalSince1970,
            copyCount: Int64(item.copyCount), isPinned: item.isPinned, source: item.source,
            expiresAt: item.expiresAt?.timeIntervalSince1970,
            representations: payload.representations.map { Payload(type: $0.type.identifier, bytes: $0.data) }, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Reading

    struct Decoded {
        var item: PasteboardItem
        var metadata: CaptureMetadata
    }

    /// What is wrong with a line, in words that name the field; the command adds the file and line number.
    struct LineError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Decodes one line; the item owns its bytes.
    static func decode(_ line: Data) throws -> Decoded {
        var decoder = Decoder()
        var bytes = [UInt8](line)
        return try bytes.withUnsafeMutableBytes { buffer throws(LineError) in
            try decoder.decode(buffer, now: Date(), copying: true)
        }
    }

    /// Reads lines, keeping what one line teaches (the content types met so far) for the next.
    struct Decoder {
        private var types: [(spelling: [UInt8], type: ContentType?, isText: Bool)] = []
        private var representations: [(type: ContentType, isText: Bool, bytes: Range<Int>, index: Int, wasBase64: Bool)] = []

        /// Decodes the line in `buffer`, overwriting it. With `copying` false the item's bytes stay in `buffer`
        /// (no copy): it must then be used before the buffer changes.
        mutating func decode(_ buffer: UnsafeMutableRawBufferPointer, now: Date, copying: Bool) throws(LineError) -> Decoded {
            var scanner = JSONScanner(buffer)
            do {
                return try decode(&scanner, now: now, copying: copying)
            } catch let error as JSONScanner.Failure {
                throw LineError(error.message)
            } catch let error as LineError {
                throw error
            } catch {
                throw LineError("\(error)")
            }
        }

        private mutating func decode(_ scanner: inout JSONScanner, now: Date, copying: Bool) throws -> Decoded {
            guard try scanner.peek() == .object else { throw LineError("expected a JSON object") }
            try scanner.openObject()
            var text: Range<Int>?
            var sawRepresentations = false
            var created: Double?
            var lastCopied: Double?
            var expiresAt: Double?
            var copyCount: Int?
            var isPinned: Bool?
            var source: String?
            representations.removeAll(keepingCapacity: true)
            var first = true
            while let key = try scanner.nextKey(first: &first) {
                if scanner.equals(key, "text") {
                    guard try scanner.peek() == .string else { throw LineError(#""text" must be a string"#) }
                    text = try scanner.string()
                } else if scanner.equals(key, "representations") {
                    sawRepresentations = true
                    try readRepresentations(&scanner)
                } else if scanner.equals(key, "created") {
                    created = try date(&scanner, "created")
                } else if scanner.equals(key, "lastCopied") {
                    lastCopied = try date(&scanner, "lastCopied")
                } else if scanner.equals(key, "expiresAt") {
                    expiresAt = try date(&scanner, "expiresAt")
                } else if scanner.equals(key, "copyCount") {
                    switch try scanner.peek() {
                    case .null: try scanner.null(); copyCount = nil
                    case .number:
                        guard let count = try scanner.number().integer, count >= 1, count <= Int64(Int32.max) else {
                            throw LineError(#""copyCount" must be a whole number from 1 to 2147483647"#)
                        }
                        copyCount = Int(count)
                    default: throw LineError(#""copyCount" must be a whole number from 1 to 2147483647"#)
                    }
                } else if scanner.equals(key, "pinned") {
                    switch try scanner.peek() {
                    case .null: try scanner.null(); isPinned = nil
                    case .bool: isPinned = try scanner.bool()
                    default: throw LineError(#""pinned" must be true or false"#)
                    }
                } else if scanner.equals(key, "source") {
                    switch try scanner.peek() {
                    case .null: try scanner.null(); source = nil
                    case .string: source = String(decoding: scanner.bytes(try scanner.string()), as: UTF8.self)
                    default: throw LineError(#""source" must be a string"#)
                    }
                } else {
                    try scanner.skipValue()
                }
            }
            try scanner.finish()

            func data(_ range: Range<Int>) -> Data {
                if range.isEmpty { return Data() }
                let start = scanner.base + range.lowerBound
                return copying
                    ? Data(bytes: start, count: range.count)
                    : Data(bytesNoCopy: start, count: range.count, deallocator: .none)
            }
            var item = PasteboardItem()
            if sawRepresentations {
                for representation in representations {
                    if representation.isText && !InputClassifier.isTextLike(scanner.bytes(representation.bytes)) {
                        throw LineError(
                            "representation \(representation.index) says it is text (\(representation.type.identifier)) "
                                + #"but holds binary data; give it a binary type such as "application/octet-stream""#)
                    }
                    item.setData(data(representation.bytes), forType: representation.type)
                }
            } else if let text {
                if text.isEmpty { throw LineError(#""text" is empty"#) }
                if !InputClassifier.isTextLike(scanner.bytes(text)) {
                    throw LineError(
                        #""text" holds binary data (control characters), not text; give it as a representation "#
                            + #"with a binary type and "base64""#)
                }
                item.setData(data(text), forType: .utf8PlainText)
            } else {
                throw LineError(#"needs "representations" or "text""#)
            }
            let lastCopiedDate = Date(timeIntervalSince1970: lastCopied ?? created ?? now.timeIntervalSince1970)
            var metadata = CaptureMetadata(
                source: source, date: lastCopiedDate, expiresAt: expiresAt.map { Date(timeIntervalSince1970: $0) },
                created: created.map { Date(timeIntervalSince1970: $0) } ?? lastCopiedDate)
            if let copyCount { metadata.copyCount = copyCount }
            if let isPinned { metadata.isPinned = isPinned }
            return Decoded(item: item, metadata: metadata)
        }

        private mutating func readRepresentations(_ scanner: inout JSONScanner) throws {
            let problem = #""representations" must be a non-empty array of objects"#
            guard try scanner.peek() == .array else { throw LineError(problem) }
            representations.removeAll(keepingCapacity: true)
            try scanner.openArray()
            var first = true
            var index = 0
            while try scanner.nextElement(first: &first) {
                index += 1
                guard try scanner.peek() == .object else { throw LineError("representation \(index) is not an object") }
                try scanner.openObject()
                var typeRange: Range<Int>?
                var text: Range<Int>?
                var base64: Range<Int>?
                var firstKey = true
                while let key = try scanner.nextKey(first: &firstKey) {
                    let field: RepresentationField
                    if scanner.equals(key, "type") {
                        field = .type
                    } else if scanner.equals(key, "text") {
                        field = .text
                    } else if scanner.equals(key, "base64") {
                        field = .base64
                    } else {
                        try scanner.skipValue()
                        continue
                    }
                    guard try scanner.peek() == .string else {
                        throw LineError("representation \(index): \"\(field.rawValue)\" must be a string")
                    }
                    let value = try scanner.string()
                    switch field {
                    case .type: typeRange = value
                    case .text: text = value
                    case .base64: base64 = value
                    }
                }
                guard let typeRange else { throw LineError("representation \(index) has no \"type\"") }
                guard let (type, isText) = resolve(scanner.bytes(typeRange)) else {
                    let spelling = String(decoding: scanner.bytes(typeRange), as: UTF8.self)
                    throw LineError(
                        "representation \(index): \(JSONText.quote(spelling)) is not a content type "
                            + "(give an identifier such as public.png, or a MIME type such as image/png)")
                }
                if let text {
                    representations.append((type, isText, text, index, false))
                } else if let base64 {
                    guard let length = Base64.decodeInPlace(scanner.mutableBytes(base64)) else {
                        throw LineError("representation \(index): \"base64\" is not valid base64")
                    }
                    representations.append((type, isText, base64.lowerBound..<base64.lowerBound + length, index, true))
                } else {
                    throw LineError("representation \(index) needs \"text\" or \"base64\"")
                }
            }
            if index == 0 { throw LineError(problem) }
        }

        private enum RepresentationField: String {
            case type, text, base64
        }

        /// The content type a line spells, resolved once per spelling.
        private mutating func resolve(_ spelling: UnsafeRawBufferPointer) -> (ContentType, Bool)? {
            for entry in types where entry.spelling.count == spelling.count {
                let same = entry.spelling.withUnsafeBytes { memcmp($0.baseAddress!, spelling.baseAddress!, spelling.count) == 0 }
                if same { return entry.type.map { ($0, entry.isText) } }
            }
            let type = ContentType.resolve(String(decoding: spelling, as: UTF8.self))
            let isText = type?.isText ?? false
            if types.count < 64 && !spelling.isEmpty { types.append((Array(spelling), type, isText)) }
            return type.map { ($0, isText) }
        }

        private func date(_ scanner: inout JSONScanner, _ name: String) throws -> Double? {
            let parsed: DateText.Parsed
            switch try scanner.peek() {
            case .null:
                try scanner.null()
                return nil
            case .string: parsed = DateText.parse(scanner.bytes(try scanner.string()))
            case .number: parsed = DateText.seconds(try scanner.number().value)
            default: parsed = .malformed
            }
            switch parsed {
            case .seconds(let seconds): return seconds
            case .outOfRange: throw LineError("\"\(name)\" is outside the years 1 to 9999")
            case .malformed:
                throw LineError(
                    "\"\(name)\" is not a date (give ISO 8601 text such as \"2024-01-01\" or "
                        + "\"2024-01-01T12:00:00Z\", or seconds since 1970)")
            }
        }
    }
}

/// JSON string writing straight into bytes, escaping exactly what `JSONText.quote` escapes.
enum JSONBytes {
    private static let hexDigits = Array("0123456789abcdef".utf8)


    /// Appends text known at compile time, as it is.
    static func append(literal text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    static func append(string: String, to out: inout [UInt8]) {
        var text = string
        text.withUTF8 { append(utf8: UnsafeRawBufferPointer($0), to: &out) }
    }

    /// Which bytes need a look before they are copied: `"`, `\\`, control characters, and 0xE2 (which starts
    /// U+2028 and U+2029).
    private static let special: [Bool] = (0..<256).map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }

    /// Appends `bytes` (valid UTF-8) as a quoted JSON string.
    static func append(utf8 bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count + 2)
        out.append(UInt8(ascii: "\""))
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            out.append(UInt8(ascii: "\""))
            return
        }
        let count = bytes.count
        special.withUnsafeBufferPointer { special in
            var index = 0
            var plainStart = 0
            while true {
                // Plain bytes run on until one needs a look; they are copied in one piece.
                while index < count && !special[Int(base[index])] { index += 1 }
                if plainStart < index { out.append(contentsOf: UnsafeBufferPointer(start: base + plainStart, count: index - plainStart)) }
                guard index < count else { break }
                let byte = base[index]
                switch byte {
                case 0x22, 0x5C:
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                    index += 1
                case 0x0A, 0x0D, 0x09:
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte == 0x0A ? UInt8(ascii: "n") : byte == 0x0D ? UInt8(ascii: "r") : UInt8(ascii: "t"))
                    index += 1
                case 0xE2 where index + 2 < count && base[index + 1] == 0x80 && (base[index + 2] == 0xA8 || base[index + 2] == 0xA9):
                    // U+2028 and U+2029, which some JavaScript parsers take for line ends.
                    append(literal: base[index + 2] == 0xA8 ? "\\u2028" : "\\u2029", to: &out)
                    index += 3
                case 0xE2:
                    out.append(byte)
                    index += 1
                default:
                    append(literal: "\\u00", to: &out)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                    index += 1
                }
                plainStart = index
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a whole number in decimal.
    static func append(integer value: Int64, to out: inout [UInt8]) {
        if value < 0 {
            out.append(contentsOf: String(value).utf8)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for the 20 digits of any Int64, on the stack
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = UInt64(value)
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}

/// Whether bytes are well-formed UTF-8 (Unicode table 3-7), as `String(validating:)` decides.
enum UTF8Check {
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var index = 0
        while index < count {
            // Eight ASCII bytes at a time.
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            guard index < count else { return true }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard count - index >= length, base[index + 1] >= low, base[index + 1] <= high else { return false }
            var offset = 2
            while offset < length {
                if base[index + offset] & 0xC0 != 0x80 { return false }
                offset += 1
            }
            index += length
        }
        return true
    }
}
