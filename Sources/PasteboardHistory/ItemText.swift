import FoundationEssentials
import PasteboardModel
import TextSupport

/// Derives what the history shows and searches for an item: its kind, the blob holding its text,
/// and the exact string given to the search index.
enum ItemText {
    /// Bytes of text given to the search index at most; longer texts are searchable in their first part.
    static let indexedPrefix = 256 * 1024

    static func kind(of item: PasteboardItem) -> HistoryItem.Kind {
        // Plain text alone, most of what is copied and imported: the answer the general rules below give, directly.
        if item.representations.count == 1, let only = item.representations.first,
            only.type == .utf8PlainText || only.type == .plainText
        {
            return only.byteCount < 8192 && looksLikeURL(only.data) ? .url : .text
        }
        let types = item.types
        if types.contains(where: { $0.conforms(to: .fileURL) || $0 == .gnomeCopiedFiles }) { return .file }
        if let uriList = item.representation(forType: .uriList),
            String(decoding: uriList.prefix(8), as: UTF8.self).hasPrefix("file://")
        {
            return .file
        }
        // The richest representation decides: an offer with a picture is a picture, whatever else comes with it
        // (Chromium's "Copy image" adds HTML and a link, a screenshot tool its file name as text, LibreOffice Calc
        // a rendering of the cells next to their HTML and text). It is shown with its thumbnail and found by the
        // Images filter; its text is still searched.
        if types.contains(where: { $0.conforms(to: .image) }) { return .image }
        let textType = textType(of: item)
        if types.contains(.html) { return .html }
        if types.contains(where: { $0.conforms(to: .url) || $0 == .mozillaURL }) { return .url }
        if let textType, let text = item.representation(forType: textType), text.byteCount < 8192,
            looksLikeURL(text.data)
        {
            return .url
        }
        return textType != nil ? .text : .data
    }

    /// The representation whose bytes are the item's text, preferring plain text.
    ///
    /// Only bytes that are UTF-8 text qualify: a type nobody declared counts as text by its name (`text/…`), and
    /// such a name can hold anything (gdk-pixbuf offers an icon as `text/ico`), so its first bytes must be UTF-8
    /// without NULs. UTF-16 text is never the item's text as it is: it is decoded into a derived text instead.
    static func textType(of item: PasteboardItem) -> ContentType? {
        let order: [ContentType] = [.utf8PlainText, .plainText, .url, .uriList, .text]
        for wanted in order {
            if let match = item.types.first(where: { $0 == wanted }) { return match }
        }
        for wanted in order {
            if let match = item.types.first(where: {
                $0.conforms(to: wanted) && $0 != .html && $0 != .rtf && holdsUTF8Text(item, $0)
            }) {
                return match
            }
        }
        return nil
    }

    /// Whether the representation of `type` can serve as text as it is.
    static func holdsUTF8Text(_ item: PasteboardItem, _ type: ContentType) -> Bool {
        if isUTF16(type) { return false }
        guard type.isDynamic || !type.isDeclared else { return true }
        guard let representation = item.representation(forType: type) else { return false }
        return isUTF8Text(representation.prefix(4096))
    }

    /// Whether `type` is text encoded as UTF-16 (a name kept verbatim counts by what it means:
    /// `text/plain;charset=UTF-16` is).
    static func isUTF16(_ type: ContentType) -> Bool {
        let type = type.canonicalType
        return type == .utf16PlainText || type == .utf16ExternalPlainText || type == .mozillaURL
    }

    /// Whether `bytes` (perhaps the cut-off start of a longer text) are UTF-8 without NUL bytes.
    static func isUTF8Text(_ bytes: Data) -> Bool {
        if bytes.contains(0) { return false }
        // A cut may fall inside a character: up to 3 trailing bytes may be an incomplete sequence.
        for cut in 0...min(3, bytes.count) where String(data: bytes.dropLast(cut), encoding: .utf8) != nil {
            return true
        }
        return false
    }

    /// UTF-16 text decoded: little-endian unless a byte order mark says otherwise; nil when it is not UTF-16.
    static func decodeUTF16(_ bytes: Data) -> String? {
        guard bytes.count >= 2 else { return nil }
        var body = bytes.prefix(bytes.count & ~1)
        var bigEndian = false
        if body.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
            body = body.dropFirst(2)
        } else if body.starts(with: [0xFF, 0xFE]) {
            body = body.dropFirst(2)
        }
        let units = stride(from: body.startIndex, to: body.endIndex, by: 2).map { index -> UInt16 in
            let first = UInt16(body[index])
            let second = UInt16(body[index + 1])
            return bigEndian ? first << 8 | second : second << 8 | first
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Text derived when no representation is plain text (HTML without a plain version, images, data).
    ///
    /// A picture is described by its format and size, with the link it came with (`text/x-moz-url`) if any; UTF-16
    /// text is decoded; other types are named by their MIME type, never by a made-up `dyn.` identifier.
    static func derivedText(of item: PasteboardItem) -> String {
        let link = item.representation(forType: .mozillaURL).flatMap { decodeUTF16($0.prefix(indexedPrefix)) }
            .map { $0.split(whereSeparator: \.isNewline).map(String.init) }
        if let image = item.representations.first(where: { $0.type.conforms(to: .image) }) {
            var parts = [image.type.localizedDescription]
            if let picture = PasteboardImage(data: image.prefix(64 * 1024)), let width = picture.width,
                let height = picture.height
            {
                parts[0] += " \(width)×\(height)"
            }
            if let link, let url = link.first { parts.append(url) }
            return parts.joined(separator: ", ")
        }
        if let html = item.representation(forType: .html) {
            let text = strippingTags(String(decoding: html.prefix(indexedPrefix), as: UTF8.self))
            if !text.isEmpty { return text }
        }
        if let link { return link.joined(separator: " ") }
        for representation in item.representations where isUTF16(representation.type) {
            if let text = decodeUTF16(representation.prefix(indexedPrefix)), !text.isEmpty { return text }
        }
        return item.types.map(describe).joined(separator: ", ")
    }

    /// A type's name for people: its description when declared, else its MIME type or identifier.
    static func describe(_ type: ContentType) -> String {
        if type.isDeclared { return type.localizedDescription }
        return type.preferredMIMEType ?? type.identifier
    }

    /// The string indexed for the bytes of a text blob: a pure function of the bytes, so the same
    /// string can be rebuilt to remove the entry from the contentless index. Accents are dropped
    /// (`SearchFolding.stripAccents`), so that the index finds "Ünïcödé" for "Unic"; its terms (`SearchTerms`) fold
    /// case. Text that is all ASCII is indexed as it is.
    static func indexString(_ bytes: Data) -> String {
        let head = bytes.prefix(indexedPrefix)
        let text = String(decoding: head, as: UTF8.self)
        if head.withUnsafeBytes(isASCII) { return text }
        return SearchFolding.stripAccents(text)
    }

    /// The text of the bytes of a text blob as search matches it: its first `indexedPrefix` bytes, decoded.
    static func decoded(_ bytes: Data) -> String {
        String(decoding: bytes.prefix(indexedPrefix), as: UTF8.self)
    }

    /// Whether the first `indexedPrefix` bytes hold `pattern` (ASCII, lowercased), ignoring ASCII case: fast, no
    /// string is built.
    static func containsASCII(_ bytes: Data, needle pattern: [UInt8]) -> Bool {
        if pattern.isEmpty { return true }
        let limit = min(bytes.count, indexedPrefix)
        if limit < pattern.count { return false }
        return bytes.withUnsafeBytes { raw -> Bool in
            let haystack = raw.bindMemory(to: UInt8.self)
            let first = pattern[0]
            let firstUpper = first >= 0x61 && first <= 0x7A ? first - 0x20 : first
            var index = 0
            let last = limit - pattern.count
            while index <= last {
                let byte = haystack[index]
                if byte == first || byte == firstUpper {
                    var matched = 1
                    while matched < pattern.count {
                        var candidate = haystack[index + matched]
                        if candidate >= 0x41 && candidate <= 0x5A { candidate += 0x20 }
                        if candidate != pattern[matched] { break }
                        matched += 1
                    }
                    if matched == pattern.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// A one-line preview of text: whitespace runs collapsed, at most `limit` characters.
    static func preview(_ bytes: Data, limit: Int = 200) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { appendPreview(of: $0, limit: limit, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether every byte is ASCII, eight at a time.
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// Appends the preview of `bytes` (see `preview(_:limit:)`) as UTF-8, without building a string for ASCII text.
    static func appendPreview(of bytes: UnsafeRawBufferPointer, limit: Int = 200, to out: inout [UInt8]) {
        let head = UnsafeRawBufferPointer(rebasing: bytes.prefix(limit * 4))
        let start = out.count
        if isASCII(head), let base = head.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            // One byte, one character: written into a buffer on the stack, then appended at once.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: limit + 3) { text in
                var count = 0
                var lastWasSpace = false
                var index = 0
                while index < head.count {
                    if count >= limit {
                        text[count] = 0xE2  // …
                        text[count + 1] = 0x80
                        text[count + 2] = 0xA6
                        count += 3
                        break
                    }
                    let byte = base[index]
                    index += 1
                    // ASCII whitespace (tab to carriage return, space), control characters and DEL become one space.
                    if byte <= 0x20 || byte == 0x7F {
                        if !lastWasSpace && count > 0 {
                            text[count] = 0x20
                            count += 1
                        }
                        lastWasSpace = true
                    } else {
                        text[count] = byte
                        count += 1
                        lastWasSpace = false
                    }
                }
                while count > 0 && text[count - 1] == 0x20 { count -= 1 }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<count]))
            }
            return
        } else {
            var count = 0
            var lastWasSpace = false
            for scalar in String(decoding: head, as: UTF8.self).unicodeScalars {
                if count >= limit {
                    out.append(contentsOf: "…".utf8)
                    break
                }
                if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                    if !lastWasSpace && out.count > start {
                        out.append(0x20)
                        count += 1
                    }
                    lastWasSpace = true
                } else {
                    out.append(contentsOf: scalar.utf8)
                    count += 1
                    lastWasSpace = false
                }
            }
        }
        while out.count > start && out[out.count - 1] == 0x20 { out.removeLast() }
    }

    static let urlSchemes = ["http://", "https://", "ftp://", "mailto:", "file://", "ssh://", "git://"]

    static func looksLikeURL(_ data: Data) -> Bool {
        guard data.count < 8192 else { return false }
        if let answer = data.withUnsafeBytes(asciiLooksLikeURL) { return answer }
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines()
        guard !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\t" }) else { return false }
        for scheme in urlSchemes where text.lowercased().hasPrefix(scheme) {
            return text.count > scheme.count
        }
        return false
    }

    /// `looksLikeURL` for ASCII bytes, without building strings (the same answer, character for character: a
    /// CR LF pair is one character and no line break of its own); nil for any other bytes.
    private static func asciiLooksLikeURL(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var low = 0
        var high = bytes.count
        while low < high && isSpace(bytes[low]) { low += 1 }
        while high > low && isSpace(bytes[high - 1]) { high -= 1 }
        var characters = 0
        for index in low..<high {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 { return false }
            if byte == 0x0A {
                guard index > low && bytes[index - 1] == 0x0D else { return false }
                continue  // the second half of one CR LF character
            }
            characters += 1
        }
        for scheme in urlSchemes {
            let prefix = Array(scheme.utf8)
            guard high - low >= prefix.count else { continue }
            var matches = true
            for (offset, expected) in prefix.enumerated() {
                var byte = bytes[low + offset]
                if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
                if byte != expected {
                    matches = false
                    break
                }
            }
            if matches { return characters > prefix.count }
        }
        return false
    }

    static func strippingTags(_ html: String) -> String {
        var out = ""
        var inTag = false
        for character in html {
            if character == "<" { inTag = true; continue }
            if character == ">" { inTag = false; out.append(" "); continue }
            if !inTag { out.append(character) }
        }
        return out.replacingEvery("&nbsp;", with: " ").replacingEvery("&amp;", with: "&")
            .replacingEvery("&lt;", with: "<").replacingEvery("&gt;", with: ">")
            .trimmingWhitespaceAndNewlines()
    }
}
