public import FoundationEssentials

/// Firefox's `application/x-moz-custom-clipdata`: the clipboard types a web page set itself
/// (`event.clipboardData.setData('x-my-type', …)`), which Firefox packs into one type instead of offering them.
///
/// The format is a stream of records, each a big-endian uint32 kind: 1 is a string record, followed by a
/// big-endian uint32 byte length and that many bytes of the type name in UTF-16LE, then a big-endian uint32 byte
/// length and the value in UTF-16LE; 0 ends the stream. A page's types arrive lowercased. (Checked against the
/// bytes Firefox ESR offers on X11: TargetPlanTests.recordedMozCustomClipData.)
public enum MozCustomClipData {
    /// The most entries believed; a page sets a handful.
    public static let maxEntries = 4096

    static let stringRecord: UInt32 = 1
    static let endRecord: UInt32 = 0

    /// The entries, or nil when `data` is not such a stream.
    public static func entries(in data: Data) -> [(type: String, value: String)]? {
        let bytes = [UInt8](data)
        var offset = 0
        func uint32() -> UInt32? {
            guard offset + 4 <= bytes.count else { return nil }
            let value =
                UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                | UInt32(bytes[offset + 3])
            offset += 4
            return value
        }
        func string() -> String? {
            guard let length = uint32().map(Int.init), length % 2 == 0, length <= bytes.count - offset else { return nil }
            var units: [UInt16] = []
            units.reserveCapacity(length / 2)
            for index in stride(from: offset, to: offset + length, by: 2) {
                units.append(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
            }
            offset += length
            return String(decoding: units, as: UTF16.self)
        }
        var entries: [(type: String, value: String)] = []
        while entries.count <= maxEntries {
            guard let kind = uint32() else { return nil }
            if kind == endRecord { return entries }
            guard kind == stringRecord, let type = string(), let value = string() else { return nil }
            entries.append((type, value))
        }
        return nil
    }

    /// Packs `entries` the way Firefox does (for tests and for serving such data back).
    public static func encode(_ entries: [(type: String, value: String)]) -> Data {
        var data = Data()
        func append(_ value: UInt32) {
            data.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
        }
        func append(_ string: String) {
            let units = Array(string.utf16)
            append(UInt32(units.count * 2))
            for unit in units { data.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        }
        for entry in entries {
            append(stringRecord)
            append(entry.type)
            append(entry.value)
        }
        append(endRecord)
        return data
    }
}
