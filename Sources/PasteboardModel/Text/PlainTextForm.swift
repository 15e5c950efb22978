public import FoundationEssentials
import TextSupport

/// The plain text a rich representation stands for, so that an item copied as HTML or RTF can also be pasted
/// into a plain-text field or an address bar. Bounded: at most `maxInputBytes` of the rich form are read.
public enum PlainTextForm {
    /// The longest rich input converted; anything past it is not looked at.
    public static let maxInputBytes = 16 << 20

    /// The plain text of `data` as `type`, or nil when `type` has no obvious plain form (or is text already).
    public static func text(of data: Data, as type: ContentType) -> String? {
        guard !data.isEmpty else { return nil }
        let bounded = data.prefix(maxInputBytes)
        if type.conforms(to: .html) { return html(String(decoding: bounded, as: UTF8.self)) }
        if type.conforms(to: .rtf) { return rtf(String(decoding: bounded, as: UTF8.self)) }
        return nil
    }

    // MARK: - HTML

    /// Elements whose content is never text.
    private static let invisibleElements: Set<String> = ["script", "style", "head", "title", "template", "noscript"]
    /// Elements that start a new line.
    private static let blockElements: Set<String> = [
        "p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote",
        "section", "article", "header", "footer", "hr", "dt", "dd",
    ]
    private static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "copy": "©", "reg": "®",
        "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
        "euro": "€", "trade": "™", "middot": "·", "bull": "•",
    ]

    /// HTML as a browser would copy it as text: tags dropped, block elements on lines of their own, entities
    /// decoded, runs of white space collapsed (except inside `<pre>`).
    public static func html(_ html: String) -> String {
        var lines: [String] = []
        var line = ""
        var preformatted = 0
        var scalars = Array(html.unicodeScalars)[...]
        /// Ends the line; a block boundary adds no empty line, a `<br>` (`keepingEmpty`) does.
        func endLine(keepingEmpty: Bool = false) {
            let finished = preformatted > 0 ? line : line.trimmingWhitespace()
            if !finished.isEmpty || keepingEmpty { lines.append(finished) }
            line = ""
        }
        func appendText(_ text: String) {
            for character in text {
                if preformatted > 0 {
                    if character == "\n" { endLine() } else { line.append(character) }
                } else if character.isWhitespace {
                    if !line.isEmpty && line.last != " " { line.append(" ") }
                } else {
                    line.append(character)
                }
            }
        }
        while let first = scalars.first {
            if first == "<" {
                guard let close = scalars.firstIndex(of: ">") else { break }
                let tag = String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<close]))
                scalars = scalars[scalars.index(after: close)...]
                if tag.hasPrefix("!--") {
                    // A comment may hold '>': skip to its real end.
                    if !tag.hasSuffix("--") {
                        scalars = scalars[(Self.end(of: Array("-->".unicodeScalars), in: scalars) ?? scalars.endIndex)...]
                    }
                    continue
                }
                let isClosing = tag.hasPrefix("/")
                let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
                if !isClosing && invisibleElements.contains(name) && !tag.hasSuffix("/") {
                    // Script and style content may hold '<': jump straight past the closing tag.
                    if let end = Self.end(of: Array(("</" + name).unicodeScalars), in: scalars),
                        let close = scalars[end...].firstIndex(of: ">")
                    {
                        scalars = scalars[scalars.index(after: close)...]
                    } else {
                        scalars = scalars[scalars.endIndex...]
                    }
                    continue
                }
                if name == "pre" {
                    endLine()  // the line before, or the last line of the block, as it stands
                    preformatted = max(0, preformatted + (isClosing ? -1 : 1))
                }
                if name == "br" {
                    endLine(keepingEmpty: true)
                } else if blockElements.contains(name) {
                    endLine()
                }
                if name == "td" || name == "th", !isClosing, !line.isEmpty { line.append("\t") }
                continue
            }
            let end = scalars.firstIndex(of: "<") ?? scalars.endIndex
            let text = String(String.UnicodeScalarView(scalars[..<end]))
            scalars = scalars[end...]
            appendText(decodingEntities(text))
        }
        endLine()
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// The index just past the first occurrence of `needle` (ASCII letters compared without case) in `text`.
    /// One pass, so skipping many scripts or comments stays linear in the input.
    private static func end(of needle: [Unicode.Scalar], in text: ArraySlice<Unicode.Scalar>) -> Int? {
        func folded(_ scalar: Unicode.Scalar) -> UInt32 {
            (0x41...0x5A).contains(scalar.value) ? scalar.value + 0x20 : scalar.value
        }
        guard let first = needle.first else { return text.startIndex }
        var index = text.startIndex
        while index + needle.count <= text.endIndex {
            if folded(text[index]) == folded(first) {
                var matched = true
                for offset in 1..<needle.count where folded(text[index + offset]) != folded(needle[offset]) {
                    matched = false
                    break
                }
                if matched { return index + needle.count }
            }
            index += 1
        }
        return nil
    }

    /// `&amp;`, `&#233;` and `&#xE9;` as the characters they stand for; an unknown entity stays as written.
    static func decodingEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = text[...]
        while let ampersand = rest.firstIndex(of: "&") {
            out += rest[..<ampersand]
            rest = rest[ampersand...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else {
                out.append("&")
                rest = rest.dropFirst()
                continue
            }
            let name = rest[rest.index(after: rest.startIndex)..<semicolon]
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
            } else {
                decoded = entities[String(name)]
            }
            if let decoded {
                out += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                out.append("&")
                rest = rest.dropFirst()
            }
        }
        return out + rest
    }

    // MARK: - RTF

    /// RTF's text: groups that hold no text (font and colour tables, pictures, `\*` destinations) dropped,
    /// `\par` and `\line` as line breaks, `\'hh` and `\uN` decoded, every other control word dropped.
    public static func rtf(_ rtf: String) -> String {
        var out = ""
        var depth = 0
        var skipBelow: Int?
        var index = rtf.startIndex
        let ignoredGroups: Set<String> = ["fonttbl", "colortbl", "stylesheet", "info", "pict", "header", "footer"]
        var groupStart = false
        var skipNext = 0
        while index < rtf.endIndex {
            let character = rtf[index]
            index = rtf.index(after: index)
            switch character {
            case "{":
                depth += 1
                groupStart = true
                continue
            case "}":
                if let below = skipBelow, depth <= below { skipBelow = nil }
                depth -= 1
                groupStart = false
                continue
            case "\\":
                guard index < rtf.endIndex else { break }
                let next = rtf[index]
                if next == "\\" || next == "{" || next == "}" {
                    if skipBelow == nil { out.append(next) }
                    index = rtf.index(after: index)
                } else if next == "*" {
                    if skipBelow == nil { skipBelow = depth }
                    index = rtf.index(after: index)
                } else if next == "'" {
                    let hexEnd = rtf.index(index, offsetBy: 3, limitedBy: rtf.endIndex) ?? rtf.endIndex
                    let hex = rtf[rtf.index(after: index)..<hexEnd]
                    index = hexEnd
                    if skipNext > 0 {
                        skipNext -= 1
                    } else if skipBelow == nil, let byte = UInt8(hex, radix: 16) {
                        // Windows-1252 and Latin-1 agree on letters, which is what text mostly holds.
                        out.append(Character(Unicode.Scalar(byte)))
                    }
                } else if next.isLetter {
                    var end = index
                    while end < rtf.endIndex, rtf[end].isLetter { end = rtf.index(after: end) }
                    let word = String(rtf[index..<end])
                    var numberEnd = end
                    if numberEnd < rtf.endIndex, rtf[numberEnd] == "-" { numberEnd = rtf.index(after: numberEnd) }
                    while numberEnd < rtf.endIndex, rtf[numberEnd].isNumber { numberEnd = rtf.index(after: numberEnd) }
                    let number = Int(rtf[end..<numberEnd])
                    index = numberEnd
                    if index < rtf.endIndex, rtf[index] == " " { index = rtf.index(after: index) }
                    if groupStart && ignoredGroups.contains(word) && skipBelow == nil { skipBelow = depth }
                    guard skipBelow == nil else { break }
                    switch word {
                    case "par", "line": out.append("\n")
                    case "tab": out.append("\t")
                    case "u":
                        if let number, let scalar = Unicode.Scalar(UInt32(number < 0 ? number + 65536 : number)) {
                            out.append(Character(scalar))
                            skipNext = 1  // the ANSI fallback that follows
                        }
                    default: break
                    }
                } else {
                    index = rtf.index(after: index)
                }
            case "\r", "\n":
                break
            default:
                if skipBelow == nil {
                    if skipNext > 0 { skipNext -= 1 } else { out.append(character) }
                }
            }
            groupStart = false
        }
        return out.trimmingWhitespaceAndNewlines()
    }
}
