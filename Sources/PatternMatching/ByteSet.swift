/// A set of bytes, as a 256-bit bitmap.
struct ByteSet: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// How many bytes the set holds.
    private(set) var count = 0

    init() {}

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        // Selects rather than a switch, so that the scanning loop has no unpredictable branch.
        let low = byte < 64 ? words.0 : words.1
        let high = byte < 192 ? words.2 : words.3
        let word = byte < 128 ? low : high
        return (word >> UInt64(byte & 63)) & 1 != 0
    }

    mutating func insert(_ byte: UInt8) {
        guard !contains(byte) else { return }
        count += 1
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }
}
