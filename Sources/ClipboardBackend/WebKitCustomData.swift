public import FoundationEssentials

/// WebKitGTK's `org.webkitgtk.WebKit.custom-pasteboard-data`: the clipboard types a web page set itself
/// (`event.clipboardData.setData('x-my-type', …)`), which WebKitGTK (Epiphany) packs into one target instead of
/// offering them.
///
/// The format is WebKit's persistence encoding, little-endian throughout, with no padding: a uint32 version (1), a
/// string (the page's origin), a uint64 count and that many (type, value) string pairs, then a uint64 count and that
/// many strings (the types in the order the page set them). A string is a uint32 length in characters, 0xFFFFFFFF for
/// a null string (nothing follows); otherwise a byte saying whether the characters are 8-bit (Latin-1, one byte each)
/// or UTF-16LE (two bytes each), then the characters. A page's types arrive lowercased. (Read off Epiphany 43.1 with
/// WebKitGTK 2.50 on X11: TargetPlanTests.recordedWebKitCustomData.)
public enum WebKitCustomData {
    /// The most entries believed; a page sets a handful.
    public static let maxEntries = 4096

    /// The (type, value) entries, a null value as nil, or nil when `data` is not such a buffer.
    public static func entries(in data: Data) -> [(type: String, value: String?)]? {
        let bytes = [UInt8](data)
        var offset = 0
        func integer(_ size: Int) -> UInt64? {
            guard offset + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
            offset += size
            return value
        }
        /// .some(nil) for a null string, nil for damage.
        func string() -> String?? {
            guard let length = integer(4) else { return nil }
            if length == 0xFFFF_FFFF { return .some(nil) }
            guard let is8Bit = integer(1), is8Bit <= 1 else { return nil }
            let width = is8Bit == 1 ? 1 : 2
            guard length <= UInt64((bytes.count - offset) / width) else { return nil }
            let count = Int(length) * width
            defer { offset += count }
            if width == 1 { return String(decoding: bytes[offset..<offset + count].map { UInt16($0) }, as: UTF16.self) }
            let units = stride(from: offset, to: offset + count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
            return String(decoding: units, as: UTF16.self)
        }
        guard integer(4) == 1, string() != nil, let count = integer(8), count <= UInt64(maxEntries) else { return nil }
        var entries: [(type: String, value: String?)] = []
        for _ in 0..<count {
            guard let type = string(), let type, let value = string() else { return nil }
            entries.append((type, value))
        }
        // The order the page set them in; then nothing more (a buffer cut short or extended is not this format).
        guard let ordered = integer(8), ordered <= UInt64(maxEntries) else { return nil }
        for _ in 0..<ordered {
            guard string() != nil else { return nil }
        }
        return offset == bytes.count ? entries : nil
    }

    /// Packs `entries` the way WebKitGTK does, with `origin` (for tests).
    public static func encode(_ entries: [(type: String, value: String?)], origin: String = "null") -> Data {
        var data = Data()
        func append(_ value: UInt64, size: Int) {
            for index in 0..<size { data.append(UInt8(value >> (8 * UInt64(index)) & 0xFF)) }
        }
        func append(_ string: String?) {
            guard let string else { return append(0xFFFF_FFFF, size: 4) }
            let units = Array(string.utf16)
            append(UInt64(units.count), size: 4)
            if units.allSatisfy({ $0 < 0x100 }) {
                data.append(1)
                data.append(contentsOf: units.map { UInt8($0) })
            } else {
                data.append(0)
                for unit in units { data.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
            }
        }
        append(1, size: 4)
        append(origin)
        append(UInt64(entries.count), size: 8)
        for entry in entries {
            append(entry.type)
            append(entry.value)
        }
        append(UInt64(entries.count), size: 8)
        for entry in entries { append(entry.type) }
        return data
    }
}
