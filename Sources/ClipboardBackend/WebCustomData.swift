public import FoundationEssentials

/// Chromium's `chromium/x-web-custom-data`: the clipboard types a web page set itself
/// (`event.clipboardData.setData('x-my-type', …)`), which Chromium packs into one target instead of offering them.
///
/// The format is a base::Pickle: a uint32 payload size, a uint32 count, then for each entry a string16 type and a
/// string16 value. A string16 is a uint32 length in UTF-16 code units, then the UTF-16LE units, padded with zeros
/// to a multiple of 4 bytes. All integers are little-endian. A page's types arrive lowercased.
public enum WebCustomData {
    /// The most entries believed; a page sets a handful.
    public static let maxEntries = 4096

    /// The entries, or nil when `data` is not such a pickle.
    public static func entries(in data: Data) -> [(type: String, value: String)]? {
        let bytes = [UInt8](data)
        var offset = 0
        var end = bytes.count
        func uint32() -> Int? {
            guard offset + 4 <= end else { return nil }
            let value =
                Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
                | Int(bytes[offset + 3]) << 24
            offset += 4
            return value
        }
        func string16() -> String? {
            guard let units = uint32(), units <= (end - offset) / 2 else { return nil }
            let byteCount = units * 2
            var scalars: [UInt16] = []
            scalars.reserveCapacity(units)
            for index in stride(from: offset, to: offset + byteCount, by: 2) {
                scalars.append(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
            }
            offset = min(end, offset + ((byteCount + 3) & ~3))
            return String(decoding: scalars, as: UTF16.self)
        }
        // The payload may be followed by unused capacity, never cut short.
        guard let payloadSize = uint32(), payloadSize <= bytes.count - 4 else { return nil }
        end = 4 + payloadSize
        guard let count = uint32(), count <= maxEntries else { return nil }
        var entries: [(type: String, value: String)] = []
        for _ in 0..<count {
            guard let type = string16(), let value = string16() else { return nil }
            entries.append((type, value))
        }
        return entries
    }

    /// Packs `entries` the way Chromium does (for tests and for serving such data back).
    public static func encode(_ entries: [(type: String, value: String)]) -> Data {
        var payload = Data()
        func append(_ value: Int) {
            payload.append(contentsOf: [
                UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF),
            ])
        }
        func append(_ string: String) {
            let units = Array(string.utf16)
            append(units.count)
            for unit in units { payload.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
            if units.count % 2 == 1 { payload.append(contentsOf: [0, 0]) }
        }
        append(entries.count)
        for entry in entries {
            append(entry.type)
            append(entry.value)
        }
        var data = Data()
        let size = payload.count
        data.append(contentsOf: [
            UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24 & 0xFF),
        ])
        data.append(payload)
        return data
    }
}
