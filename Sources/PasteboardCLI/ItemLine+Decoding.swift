import FoundationEssentials
import PasteboardHistory
import PasteboardModel
#if canImport(Glibc)
import Glibc
#endif

extension ItemLine {
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

        /// Whether bytes of `type` must be text (checked, so that binary data is not imported as text by mistake): a
        /// declared text type, except UTF-16 text. A type kept under the name an application offered
        /// (`dyn.mime.text/_moz_htmlcontext`) holds whatever that application put there, UTF-16 included.
        static func holdsUTF8Text(_ type: ContentType) -> Bool {
            let canonical = type.canonicalType
            return type.isText && !type.isDynamic && canonical != .utf16PlainText && canonical != .utf16ExternalPlainText
        }

        /// The content type a line spells, resolved once per spelling.
        private mutating func resolve(_ spelling: UnsafeRawBufferPointer) -> (ContentType, Bool)? {
            for entry in types where entry.spelling.count == spelling.count {
                let same = entry.spelling.withUnsafeBytes { memcmp($0.baseAddress!, spelling.baseAddress!, spelling.count) == 0 }
                if same { return entry.type.map { ($0, entry.isText) } }
            }
            let type = ContentType.resolve(String(decoding: spelling, as: UTF8.self))
            let isText = type.map(Self.holdsUTF8Text) ?? false
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
