/// The UTF-8 bytes of the text being searched, with the decoding and searching the matcher needs.
///
/// The bytes come from a `String`, so they are valid UTF-8 and every offset the matcher reaches is on a scalar
/// boundary; decoding needs no validation.
struct TextBuffer {
    let bytes: UnsafeBufferPointer<UInt8>

    var count: Int { bytes.count }

    /// The scalar value starting at `offset`, and its length in bytes.
    @inline(__always)
    func scalar(at offset: Int) -> (value: UInt32, length: Int) {
        let lead = UInt32(bytes[offset])
        if lead < 0x80 { return (lead, 1) }
        if lead < 0xE0 { return ((lead & 0x1F) << 6 | continuation(offset + 1), 2) }
        if lead < 0xF0 {
            return ((lead & 0x0F) << 12 | continuation(offset + 1) << 6 | continuation(offset + 2), 3)
        }
        let value =
            (lead & 0x07) << 18 | continuation(offset + 1) << 12 | continuation(offset + 2) << 6
            | continuation(offset + 3)
        return (value, 4)
    }

    @inline(__always)
    private func continuation(_ offset: Int) -> UInt32 { UInt32(bytes[offset]) & 0x3F }

    /// The scalar value ending at `offset`, which is above 0.
    func scalar(before offset: Int) -> UInt32 {
        var start = offset - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return scalar(at: start).value
    }

    /// Where the line terminator that ends the text starts (CR LF counting as one), or nil when the text does not
    /// end with one.
    var finalTerminatorStart: Int? {
        guard count > 0 else { return nil }
        if count >= 2 && bytes[count - 2] == 0x0D && bytes[count - 1] == 0x0A { return count - 2 }
        let last = scalar(before: count)
        guard Node.isLineTerminator(last) else { return nil }
        return count - UTF8.width(Unicode.Scalar(last) ?? "\n")
    }

    // MARK: - Searching

    /// The first offset at or after `start` where `needle` (not empty) occurs.
    ///
    /// A scan for the first byte with a comparison at each hit, which is fastest on real text; when the
    /// comparisons start to cost more than a few per byte (`aaaa…` searched for `aaa…ab`), the search switches to
    /// Knuth–Morris–Pratt, so that it stays linear in the length of the text whatever the needle.
    func firstOffset(of needle: [UInt8], from start: Int) -> Int? {
        let last = count - needle.count
        guard last >= start else { return nil }
        return needle.withUnsafeBufferPointer { needle in
            let first = needle[0]
            var offset = start
            var comparisons = 0
            while offset <= last {
                guard bytes[offset] == first else {
                    offset += 1
                    continue
                }
                var matched = 1
                while matched < needle.count && bytes[offset + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return offset }
                comparisons += matched
                if comparisons > 4 * (offset - start) + 256 {
                    return firstOffsetByFailureTable(of: needle, from: offset)
                }
                offset += 1
            }
            return nil
        }
    }

    /// Knuth–Morris–Pratt: never looks at a byte of the text twice.
    private func firstOffsetByFailureTable(of needle: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        // failure[i]: the length of the longest proper prefix of needle[0...i] that is also its suffix.
        var failure = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in 1..<max(needle.count, 1) {
            while length > 0 && needle[index] != needle[length] { length = failure[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            failure[index] = length
        }
        var matched = 0
        var offset = start
        while offset < count {
            while matched > 0 && bytes[offset] != needle[matched] { matched = failure[matched - 1] }
            if bytes[offset] == needle[matched] { matched += 1 }
            if matched == needle.count { return offset - needle.count + 1 }
            offset += 1
        }
        return nil
    }

    /// The first offset at or after `start` holding a byte in `set`.
    func firstOffset(of set: ByteSet, from start: Int) -> Int? {
        var offset = start
        while offset < count {
            if set.contains(bytes[offset]) { return offset }
            offset += 1
        }
        return nil
    }
}

extension UTF8 {
    /// The first byte of the UTF-8 encoding of the scalar with value `value`.
    static func leadByte(of value: UInt32) -> UInt8 {
        switch value {
        case ..<0x80: return UInt8(value)
        case ..<0x800: return UInt8(0xC0 | (value >> 6))
        case ..<0x10000: return UInt8(0xE0 | (value >> 12))
        default: return UInt8(0xF0 | (value >> 18))
        }
    }
}
