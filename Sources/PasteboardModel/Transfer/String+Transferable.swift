import FoundationEssentials

extension String: Transferable {
    /// Text exports as `.utf8PlainText`; it imports from that, from `.utf16PlainText`, and from any
    /// `.plainText` or `.text` representation read as UTF-8 with invalid bytes replaced.
    ///
    /// ```swift
    /// try await Pasteboard.general.write("hello")
    /// try await Pasteboard.general.read(String.self)  // "hello"
    /// ```
    public static var transferRepresentation: some TransferRepresentation<String> {
        DataRepresentation(contentType: .utf8PlainText) { string in
            Data(string.utf8)
        } importing: { data in
            String(decoding: data, as: UTF8.self)
        }
        DataRepresentation(importedContentType: .utf16PlainText) { data in
            String.decodingUTF16(data)
        }
        DataRepresentation(importedContentType: .plainText) { data in
            String(decoding: data, as: UTF8.self)
        }
        DataRepresentation(importedContentType: .text) { data in
            String(decoding: data, as: UTF8.self)
        }
    }

    /// UTF-16 text in the byte order its byte order mark gives, little-endian without one (as X11 and
    /// Wayland programs write it); invalid code units are replaced.
    static func decodingUTF16(_ data: Data) -> String {
        var bytes = data[...]
        var isBigEndian = false
        if bytes.starts(with: [0xFE, 0xFF]) {
            isBigEndian = true
            bytes = bytes.dropFirst(2)
        } else if bytes.starts(with: [0xFF, 0xFE]) {
            bytes = bytes.dropFirst(2)
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let (first, second) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
            units.append(isBigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        if index < bytes.endIndex { units.append(0xFFFD) }  // A dangling odd byte is not a code unit.
        return String(decoding: units, as: UTF16.self)
    }
}
