import FoundationEssentials
import PasteboardModel
import TextSupport

/// CopyQ's histories: a tab file (`copyq_tab_*.dat` in its configuration directory) and its exports (`.cpq`).
///
/// A tab file is a `QDataStream` (Qt 4.7 layout): the number of items, then each item, newest first, as CopyQ's
/// `serializeData` writes it: -2 (the format's version), the number of formats, and each format's MIME type (its
/// prefix shortened to a hexadecimal digit: 4 `text/plain`, 5 `text/html`, 7 `image/`, 8 `text/`, 0 none, …), a
/// compression flag and the bytes. An export (`CopyQ v4`) holds a map of the tabs' names and settings, then a map per
/// tab whose `data` is a tab file's bytes; `CopyQ v3` holds the tabs in the first map, `CopyQ v2` is one tab.
///
/// CopyQ keeps no times. A pin is a format of its own (`application/x-copyq-item-pinned`), and the window copied
/// from another (`application/x-copyq-owner-window-title`): both become the item's pin and source, every other
/// format a representation, byte for byte.
public enum CopyQReader {
    static let pinnedFormat = "application/x-copyq-item-pinned"
    static let windowTitleFormat = "application/x-copyq-owner-window-title"

    /// The shortened MIME prefixes of CopyQ's `compressMime`, by digit.
    static let prefixes: [Int: String] = [
        1: windowTitleFormat, 2: "application/x-copyq-item-notes", 3: "application/x-copyq-", 4: "text/plain",
        5: "text/html", 6: "text/uri-list", 7: "image/", 8: "text/", 9: "application/", 10: "audio/", 11: "video/",
    ]

    /// The items of a tab file or an export, told apart by their first bytes.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedHistory {
        var stream = QtDataStream(bytes, file: file)
        if let header = exportHeader(bytes) {
            _ = try stream.byteArray("the header")
            return try readExport(&stream, version: header)
        }
        if let plugin = pluginHeader(bytes) {
            return ImportedHistory(skipped: ["tabs CopyQ keeps with its \(plugin) plugin": 1], files: [file])
        }
        var history = try readTab(&stream)
        history.files = [file]
        return history
    }

    /// "CopyQ v2", "v3" or "v4" at the start of an export: the version digit.
    static func exportHeader(_ bytes: [UInt8]) -> Character? {
        let magic = Array("CopyQ v".utf8)
        guard bytes.count >= 12, bytes[0..<4] == [0, 0, 0, 8] || bytes[0..<4] == [0, 0, 0, 9],
            Array(bytes[4..<11]) == magic
        else { return nil }
        let digit = Character(UnicodeScalar(bytes[11]))
        return "1234".contains(digit) ? digit : nil
    }

    /// A tab kept by a plugin (synchronized with a folder, encrypted), which starts with the plugin's name.
    static func pluginHeader(_ bytes: [UInt8]) -> String? {
        var stream = QtDataStream(bytes, file: "")
        guard let name = try? stream.string() else { return nil }
        if name.hasPrefix("CopyQ_itemsync_tab") { return "synchronize" }
        if name.hasPrefix("CopyQ_encrypted_tab") { return "encryption" }
        return nil
    }

    static func readExport(_ stream: inout QtDataStream, version: Character) throws(ImportError) -> ImportedHistory {
        var history = ImportedHistory(files: [stream.file])
        switch version {
        case "1", "2":
            _ = try stream.string("the tab's name")
            history.append(contentsOf: try readTab(&stream))
        case "3":
            let data = try stream.variantMap()
            guard case .list(let tabs)? = data["tabs"] else { return history }
            for case .map(let tab) in tabs { history.append(contentsOf: try readExportedTab(tab, in: stream)) }
        default:
            _ = try stream.variantMap()
            while !stream.isAtEnd {
                history.append(contentsOf: try readExportedTab(try stream.variantMap(), in: stream))
            }
        }
        return history
    }

    static func readExportedTab(_ tab: [String: QtVariant], in export: QtDataStream) throws(ImportError) -> ImportedHistory {
        guard case .bytes(let data)? = tab["data"] else { return ImportedHistory() }
        let name = tab["name"]?.string ?? "?"
        var stream = QtDataStream(data, file: "\(export.file) (tab \(quoted(name)))")
        return try readTab(&stream)
    }

    /// The items of one tab's stream, newest first.
    static func readTab(_ stream: inout QtDataStream) throws(ImportError) -> ImportedHistory {
        var history = ImportedHistory()
        let count = try stream.count("the number of items", least: 4)
        var unnamed = 0
        for index in 0..<count {
            stream.item = index + 1
            var formats: [(name: String, data: Data)] = []
            var pinned = false
            var source: String?
            let start = stream.offset
            let version = try stream.int32("the item's format version")
            if version == -2 {
                let formatCount = try stream.count("the number of formats", least: 9)
                for _ in 0..<formatCount {
                    let name = try mimeType(&stream)
                    let at = stream.offset
                    let compressed = try stream.bool("the compression flag")
                    let bytes = try stream.byteArray("the data of \(name)")
                    if compressed {
                        throw stream.damaged("compressed data (written by CopyQ before 3.0, not read by pb)", at: at)
                    }
                    switch name {
                    case pinnedFormat: pinned = true
                    case windowTitleFormat: source = String(decoding: bytes, as: UTF8.self)
                    default: formats.append((name, Data(bytes)))
                    }
                }
            } else {
                throw stream.damaged(
                    version >= 0
                        ? "an item of CopyQ's first format (before 3.0, compressed), which pb does not read,"
                        : "an item's format version is \(version), not -2,", at: start)
            }
            let item = PasteboardItem.fromNamedFormats(formats, unnamed: &unnamed)
            if item.isEmpty {
                history.skip("empty items")
                continue
            }
            history.items.append(ImportedItem(item: item, isPinned: pinned, source: source))
        }
        if unnamed > 0 { history.skip("formats without a MIME type pb can keep", count: unnamed) }
        stream.item = nil
        return history
    }

    /// A format's MIME type, its prefix given back.
    static func mimeType(_ stream: inout QtDataStream) throws(ImportError) -> String {
        let start = stream.offset
        let short = try stream.string("a MIME type")
        guard let first = short.first, let digit = first.hexDigitValue else {
            throw stream.damaged("a MIME type without its prefix digit (\(quoted(short)))", at: start)
        }
        if digit == 0 { return String(short.dropFirst()) }
        guard let prefix = prefixes[digit] else {
            throw stream.damaged("a MIME type with the unknown prefix digit \(first)", at: start)
        }
        return prefix + short.dropFirst()
    }
}
