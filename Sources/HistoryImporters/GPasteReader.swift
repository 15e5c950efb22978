public import FoundationEssentials
import PasteboardModel
import TextSupport

/// GPaste's history (`gpaste/history.xml` in the user's data directory; GPaste 43 writes version 2.0): an XML
/// document of `<item kind="…">` elements, newest first, each holding its value in `<value><![CDATA[…]]></value>`
/// (version 1.0: the CDATA right in the item). GPaste escapes `&` and `>` even inside CDATA, and unescapes them
/// when it reads the file back, so this does too.
///
/// `Text` items are texts, `Uris` a list of URIs or paths one a line, `Image` the path of a PNG file GPaste keeps
/// beside the history. GPaste writes no passwords to the
/// file and keeps no pins.
public enum GPasteReader {
    /// The items of `bytes`; `loadImage` reads an image file (nil when it is gone).
    public static func read(
        _ bytes: [UInt8], file: String, loadImage: (String) throws(ImportError) -> Data?
    ) throws(ImportError) -> ImportedHistory {
        var history = ImportedHistory(files: [file])
        let text = bytes
        guard let rootStart = find(Array("<history".utf8), in: text, from: 0) else {
            throw ImportError.damaged(file, offset: 0, item: nil, "no <history> element")
        }
        var position = rootStart
        var index = 0
        let itemOpen = Array("<item".utf8)
        let itemClose = Array("</item>".utf8)
        let historyClose = Array("</history>".utf8)
        while true {
            let nextItem = find(itemOpen, in: text, from: position)
            let end = find(historyClose, in: text, from: position)
            guard let itemStart = nextItem, end.map({ itemStart < $0 }) ?? true else {
                guard end != nil else {
                    throw ImportError.damaged(
                        file, offset: text.count, item: index == 0 ? nil : index, "the file ends before </history>")
                }
                break
            }
            index += 1
            guard let tagEnd = text[itemStart...].firstIndex(of: UInt8(ascii: ">")) else {
                throw ImportError.damaged(file, offset: itemStart, item: index, "an <item> tag that does not end")
            }
            let tag = String(decoding: text[itemStart..<tagEnd], as: UTF8.self)
            let isEmptyElement = text[tagEnd - 1] == UInt8(ascii: "/")
            var body = ""
            if isEmptyElement {
                position = tagEnd + 1
            } else {
                guard let close = find(itemClose, in: text, from: tagEnd) else {
                    throw ImportError.damaged(file, offset: itemStart, item: index, "an <item> without its </item>")
                }
                body = try value(of: Array(text[(tagEnd + 1)..<close]), file: file, offset: tagEnd + 1, item: index)
                position = close + itemClose.count
            }
            let kind = attribute("kind", in: tag) ?? ""
            // Only images carry a `date`: the order of the file, which every item has, is what is kept.
            let date: Date? = nil
            switch kind {
            case "Text":
                guard !body.isEmpty else {
                    history.skip("empty items")
                    continue
                }
                history.items.append(ImportedItem(item: PasteboardItem(string: body), date: date))
            case "Uris":
                let uris = body.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { line in
                    line.hasPrefix("/") ? "file://" + percentEncoded(String(line)) : String(line)
                }
                guard !uris.isEmpty else {
                    history.skip("empty items")
                    continue
                }
                let item = PasteboardItem([
                    .init(type: .uriList, data: Data(uris.map { $0 + "\r\n" }.joined().utf8)),
                    .init(type: .utf8PlainText, data: Data(body.utf8)),
                ])
                history.items.append(ImportedItem(item: item, date: date))
            case "Image":
                guard let image = try loadImage(body) else {
                    history.skip("images whose file GPaste no longer has")
                    continue
                }
                let type = ContentType.sniff(image)
                history.items.append(ImportedItem(item: PasteboardItem([.init(type: type, data: image)]), date: date))
            case "Password":
                history.skip("passwords")
            default:
                history.skip("items of a kind pb does not know (\(quoted(kind)))")
            }
        }
        return history
    }

    /// The text of an item's body: its CDATA sections (inside `<value>` or not) and text, unescaped.
    static func value(of body: [UInt8], file: String, offset: Int, item: Int) throws(ImportError) -> String {
        var bytes = body
        if let open = find(Array("<value>".utf8), in: bytes, from: 0) {
            guard let close = find(Array("</value>".utf8), in: bytes, from: open) else {
                throw ImportError.damaged(file, offset: offset + open, item: item, "a <value> without its </value>")
            }
            bytes = Array(bytes[(open + 7)..<close])
        }
        var result: [UInt8] = []
        var position = 0
        let cdataOpen = Array("<![CDATA[".utf8)
        let cdataClose = Array("]]>".utf8)
        while position < bytes.count {
            if let open = find(cdataOpen, in: bytes, from: position), open == position {
                guard let close = find(cdataClose, in: bytes, from: open + cdataOpen.count) else {
                    throw ImportError.damaged(file, offset: offset + open, item: item, "a CDATA section that does not end")
                }
                result.append(contentsOf: bytes[(open + cdataOpen.count)..<close])
                position = close + cdataClose.count
            } else {
                let next = find(cdataOpen, in: bytes, from: position) ?? bytes.count
                let text = bytes[position..<next]
                if !text.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) {
                    result.append(contentsOf: text)
                }
                position = next
            }
        }
        return unescaped(String(decoding: result, as: UTF8.self))
    }

    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        let entities = ["&amp;": "&", "&gt;": ">", "&lt;": "<", "&quot;": "\"", "&apos;": "'"]
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            rest = rest[ampersand...]
            if let (entity, character) = entities.first(where: { rest.hasPrefix($0.key) }) {
                result += character
                rest = rest.dropFirst(entity.count)
            } else {
                result += "&"
                rest = rest.dropFirst()
            }
        }
        return result + rest
    }

    /// The value of attribute `name` in a start tag.
    static func attribute(_ name: String, in tag: String) -> String? {
        for quote in ["\"", "'"] {
            let marker = " \(name)=\(quote)"
            guard let start = tag.firstRange(of: marker)?.upperBound,
                let end = tag[start...].firstIndex(of: Character(quote))
            else { continue }
            return unescaped(String(tag[start..<end]))
        }
        return nil
    }

    static func percentEncoded(_ path: String) -> String {
        var result = ""
        for byte in path.utf8 {
            let character = Character(UnicodeScalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "/-._~".contains(character) {
                result.append(character)
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

/// The first place `needle` starts in `haystack` at or after `start`.
func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, needle.count <= haystack.count else { return nil }
    var index = start
    let last = haystack.count - needle.count
    while index <= last {
        guard let hit = haystack[index...last].firstIndex(of: first) else { return nil }
        if haystack[hit..<(hit + needle.count)].elementsEqual(needle) { return hit }
        index = hit + 1
    }
    return nil
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
