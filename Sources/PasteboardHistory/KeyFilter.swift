/// A Bloom filter over keys that are themselves digests (item identities, payload hashes): it answers "certainly
/// not seen" or "perhaps seen", in fixed memory.
///
/// `HistoryImport` asks it before looking a key up in the store: a million new items then skip two index searches
/// each. The keys' bytes are uniformly distributed already, so three slices of them serve as the filter's hash
/// functions. With 2^24 bits (2 MiB) and a million keys, about 0.4% of new keys still get the lookup; a false
/// "perhaps" costs that lookup and nothing else.
struct KeyFilter {
    private var words: [UInt64]
    private static let bitCount = 1 << 24

    init() {
        words = Array(repeating: 0, count: Self.bitCount / 64)
    }

    /// The three bit positions of `key` (at least 12 bytes; shorter keys get no filter and always "perhaps").
    private static func positions(_ key: UnsafeRawBufferPointer) -> (Int, Int, Int)? {
        guard key.count >= 12 else { return nil }
        func slice(_ offset: Int) -> Int {
            Int(key.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) & (bitCount - 1)
        }
        return (slice(0), slice(4), slice(8))
    }

    private func isSet(_ bit: Int) -> Bool { words[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    func mightContain(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let (a, b, c) = Self.positions(key) else { return true }
        return isSet(a) && isSet(b) && isSet(c)
    }

    mutating func insert(_ key: UnsafeRawBufferPointer) {
        guard let (a, b, c) = Self.positions(key) else { return }
        words[a >> 6] |= 1 << UInt64(a & 63)
        words[b >> 6] |= 1 << UInt64(b & 63)
        words[c >> 6] |= 1 << UInt64(c & 63)
    }
}
