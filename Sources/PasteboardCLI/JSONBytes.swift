/// JSON string writing straight into bytes, escaping exactly what `JSONText.quote` escapes.
enum JSONBytes {
    private static let hexDigits = Array("0123456789abcdef".utf8)


    /// Appends text known at compile time, as it is.
    static func append(literal text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    static func append(string: String, to out: inout [UInt8]) {
        var text = string
        text.withUTF8 { append(utf8: UnsafeRawBufferPointer($0), to: &out) }
    }

    /// Which bytes need a look before they are copied: `"`, `\\`, control characters, and 0xE2 (which starts
    /// U+2028 and U+2029).
    private static let special: [Bool] = (0..<256).map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }

    /// Appends `bytes` (valid UTF-8) as a quoted JSON string.
    static func append(utf8 bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count + 2)
        out.append(UInt8(ascii: "\""))
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            out.append(UInt8(ascii: "\""))
            return
        }
        let count = bytes.count
        special.withUnsafeBufferPointer { special in
            var index = 0
            var plainStart = 0
            while true {
                // Plain bytes run on until one needs a look; they are copied in one piece.
                while index < count && !special[Int(base[index])] { index += 1 }
                if plainStart < index { out.append(contentsOf: UnsafeBufferPointer(start: base + plainStart, count: index - plainStart)) }
                guard index < count else { break }
                let byte = base[index]
                switch byte {
                case 0x22, 0x5C:
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                    index += 1
                case 0x0A, 0x0D, 0x09:
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte == 0x0A ? UInt8(ascii: "n") : byte == 0x0D ? UInt8(ascii: "r") : UInt8(ascii: "t"))
                    index += 1
                case 0xE2 where index + 2 < count && base[index + 1] == 0x80 && (base[index + 2] == 0xA8 || base[index + 2] == 0xA9):
                    // U+2028 and U+2029, which some JavaScript parsers take for line ends.
                    append(literal: base[index + 2] == 0xA8 ? "\\u2028" : "\\u2029", to: &out)
                    index += 3
                case 0xE2:
                    out.append(byte)
                    index += 1
                default:
                    append(literal: "\\u00", to: &out)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                    index += 1
                }
                plainStart = index
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a whole number in decimal.
    static func append(integer value: Int64, to out: inout [UInt8]) {
        if value < 0 {
            out.append(contentsOf: String(value).utf8)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for the 20 digits of any Int64, on the stack
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = UInt64(value)
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}

/// Whether bytes are well-formed UTF-8 (Unicode table 3-7), as `String(validating:)` decides.
enum UTF8Check {
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var index = 0
        while index < count {
            // Eight ASCII bytes at a time.
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            guard index < count else { return true }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            guard let length = UTF8Sequence.length(at: base + index, available: count - index) else { return false }
            index += length
        }
        return true
    }
}

/// Well-formed UTF-8 (Unicode table 3-7), one sequence at a time: shared by the validator above and `JSONScanner`.
enum UTF8Sequence {
    /// The length of the well-formed sequence starting at `start`, whose lead byte is not ASCII, within the
    /// `available` bytes; nil when it is ill-formed or cut short.
    static func length(at start: UnsafePointer<UInt8>, available: Int) -> Int? {
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch start[0] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard available >= length, start[1] >= low, start[1] <= high else { return nil }
        for offset in 2..<length where start[offset] & 0xC0 != 0x80 { return nil }
        return length
    }
}
