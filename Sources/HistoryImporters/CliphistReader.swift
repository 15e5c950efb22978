public import FoundationEssentials
import PasteboardModel

/// cliphist's history, through the program itself (its database is bbolt, which only Go reads): `cliphist list`
/// prints one line per item, newest first, its id, a tab and a preview; `cliphist decode ID` prints the item's
/// bytes. cliphist keeps one format per item and no type, times or pins: the type is told from the bytes (an image
/// by its signature, else text).
public enum CliphistReader {
    /// The items `list` names, each read with `decode` (which returns nil for an item that vanished meanwhile).
    public static func read(
        listing: Data, decode: (String) throws(ImportError) -> Data?
    ) throws(ImportError) -> ImportedHistory {
        var history = ImportedHistory(files: ["cliphist list"])
        var number = 0
        for line in listing.split(separator: 0x0A) {
            number += 1
            guard let tab = line.firstIndex(of: 0x09) else {
                throw ImportError("'cliphist list' printed line \(number) without an id and a tab; nothing was read.")
            }
            let id = String(decoding: line[line.startIndex..<tab], as: UTF8.self)
            guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
                throw ImportError("'cliphist list' printed line \(number) with the id \(id.debugDescription).")
            }
            guard let bytes = try decode(id), !bytes.isEmpty else {
                history.skip("items cliphist no longer had")
                continue
            }
            let sniffed = ContentType.sniff(bytes)
            let isText = sniffed.conforms(to: .text) || String(validating: bytes, as: UTF8.self) != nil
            let type: ContentType = isText && !sniffed.conforms(to: .image) ? .utf8PlainText : sniffed
            history.items.append(ImportedItem(item: PasteboardItem([.init(type: type, data: bytes)])))
        }
        return history
    }
}
