/// Base64 (RFC 4648, standard alphabet) for `pb export` and `pb import`, without building a `Data` or `String`
/// per payload.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0–63 for an alphabet byte, 0xFF for any other.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Appends the padded encoding of `bytes` (what `Data.base64EncodedString()` writes).
    static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            while index + 3 <= bytes.count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out.append(table[Int(value >> 18)])
                out.append(table[Int(value >> 12 & 0x3F)])
                out.append(table[Int(value >> 6 & 0x3F)])
                out.append(table[Int(value & 0x3F)])
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                out.append(table[Int(value >> 18)])
                out.append(table[Int(value >> 12 & 0x3F)])
                out.append(rest == 2 ? table[Int(value >> 6 & 0x3F)] : UInt8(ascii: "="))
                out.append(UInt8(ascii: "="))
            }
        }
    }

    /// Decodes `text` in place (the bytes it decodes to are fewer than its characters) and returns how many bytes
    /// it decoded to, or nil when it is not base64. Padding is optional; nothing else may stand between the digits.
    static func decodeInPlace(_ text: UnsafeMutableRawBufferPointer) -> Int? {
        var length = text.count
        if length > 0 && text[length - 1] == UInt8(ascii: "=") {
            length -= 1
            if length > 0 && text[length - 1] == UInt8(ascii: "=") { length -= 1 }
            guard text.count % 4 == 0 else { return nil }
        }
        if length % 4 == 1 { return nil }
        return values.withUnsafeBufferPointer { table -> Int? in
            var read = 0
            var write = 0
            var accumulator: UInt32 = 0
            var bits = 0
            while read < length {
                let value = table[Int(text[read])]
                if value == 0xFF { return nil }
                accumulator = accumulator << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    text[write] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    write += 1
                }
                read += 1
            }
            return write  // bits left over (at most 4) are padding
        }
    }
}
