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
