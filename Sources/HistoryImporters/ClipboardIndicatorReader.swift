public import FoundationEssentials
import PasteboardModel

/// The history of GNOME Shell's clipboard-indicator extension (`clipboard-indicator@tudmotu.com/registry.txt` in
/// the user's cache directory): a JSON array, oldest first, of entries `{"contents": …, "favorite": …,
/// "mimetype": …}`. A text entry's contents are the text; an image's are the path of a file beside the registry
/// holding its bytes. Older versions wrote entries without a type (`{"contents", "favorite"}`) or as plain strings.
/// A favorite becomes a pin; the extension keeps no times.
public enum ClipboardIndicatorReader {
    struct Entry: Decodable {
        var contents: String
        var favorite: Bool
        var mimetype: String?

        enum Keys: String, CodingKey { case contents, favorite, mimetype }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                contents = text
                favorite = false
                return
            }
            let container = try decoder.container(keyedBy: Keys.self)
            contents = try container.decode(String.self, forKey: .contents)
            favorite = try container.decodeIfPresent(Bool.self, forKey: .favorite) ?? false
            mimetype = try container.decodeIfPresent(String.self, forKey: .mimetype)
        }
    }

    /// The items of `bytes`, newest first; `loadFile` reads an image's file (nil when it is gone).
    public static func read(
        _ bytes: [UInt8], file: String, loadFile: (String) throws(ImportError) -> Data?
    ) throws(ImportError) -> ImportedHistory {
        let entries: [Entry]
        do {
            entries = try JSONDecoder().decode([Entry].self, from: Data(bytes))
        } catch let error as DecodingError {
            if case .dataCorrupted = error, let place = JSONDamage.find(in: bytes) {
                throw ImportError.damaged(file, offset: place.offset, item: place.entry, place.what)
            }
            throw ImportError("\(file) is damaged or truncated: \(describe(error)).")
        } catch {
            throw ImportError("\(file) is damaged or truncated: \(error).")
        }
        var history = ImportedHistory(files: [file])
        for entry in entries.reversed() {
            let type = entry.mimetype ?? "text/plain;charset=utf-8"
            let isText = type.hasPrefix("text/") || type == "STRING" || type == "UTF8_STRING"
            if isText {
                guard !entry.contents.isEmpty else {
                    history.skip("empty items")
                    continue
                }
                history.items.append(ImportedItem(item: PasteboardItem(string: entry.contents), isPinned: entry.favorite))
                continue
            }
            guard let data = try loadFile(entry.contents) else {
                history.skip("images whose file the extension no longer has")
                continue
            }
            var unnamed = 0
            let item = PasteboardItem.fromNamedFormats([(type, data)], unnamed: &unnamed)
            guard !item.isEmpty else {
                history.skip("formats without a MIME type pb can keep")
                continue
            }
            history.items.append(ImportedItem(item: item, isPinned: entry.favorite))
        }
        return history
    }

    /// Where a decoding error stopped: the entry (counted from 1) and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        switch error {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c): context = c
        @unknown default: return "\(error)"
        }
        let entry = context.codingPath.first?.intValue.map { " in entry \($0 + 1)" } ?? ""
        var text = context.debugDescription.hasSuffix(".") ? String(context.debugDescription.dropLast()) : context.debugDescription
        if let underlying = context.underlyingError { text += " (\(underlying))" }
        return text + entry
    }
}

/// Where a JSON array of objects stops being JSON, found by following its strings and brackets (the decoder says only
/// that it is not valid): a file cut short, a bracket closing what was not open, or a character between values that
/// has no place there; nil when the structure holds and the fault is in a value.
enum JSONDamage {
    static func find(in bytes: [UInt8]) -> (offset: Int, entry: Int?, what: String)? {
        var depth: [UInt8] = []
        var inString = false
        var escaped = false
        var entries = 0
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    return (offset, entries > 0 ? entries : nil, "a control character inside a string")
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth.count == 1 && byte == UInt8(ascii: "{") { entries += 1 }
                depth.append(byte)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                let opener = byte == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
                guard depth.last == opener else {
                    return (offset, entries > 0 ? entries : nil, "a '\(Character(Unicode.Scalar(byte)))' closing nothing open")
                }
                depth.removeLast()
                if depth.isEmpty,
                    let rest = bytes[(offset + 1)...].firstIndex(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) })
                {
                    return (rest, nil, "more after the end of the list")
                }
            default: continue
            }
        }
        if inString || !depth.isEmpty {
            return (bytes.count, entries > 0 ? entries : nil, "the file ends inside " + (inString ? "a string" : "the list"))
        }
        return nil
    }
}
