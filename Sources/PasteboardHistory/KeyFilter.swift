/// A Bloom filter over keys that are themselves digests (item identities, payload hashes): it answers "certainly
/// not seen" or "perhaps seen", in memory that grows with the keys (2 to 4 bytes each).
///
/// `HistoryImport` asks it before looking a key up in the store: a million new items then skip two index searches
/// each. Sync asks it while a joining device takes in a history: an identity it never saw this round is new. The keys' bytes are uniformly distributed already, so slices of them serve as the filter's hash functions.
///
/// It grows as a chain of filters, each twice the size of the one before and filled to at most one key per 16 bits
/// (about 0.2% false "perhaps" each when full, with five bits set per key in one block of 512): the answer is "perhaps" when any of them
/// says so, which at ten million keys (seven filters, 33 MB) is about 1% of new keys. The filter of fixed size it
/// replaces (2 MiB, three bits a key) said "perhaps" to 7% of new keys at three million and 58% at ten million, and
/// each of those cost a random read of an index far larger than the page cache.
package struct KeyFilter {
    /// One filter of the chain: blocks of 512 bits (a cache line), a key's bits all in one block, so that asking
    /// costs one miss of the processor's cache per stage rather than one per bit.
    private struct Stage {
        var words: [UInt64]
        /// Blocks minus one (their number is a power of two).
        let blockMask: UInt64
        let capacity: Int
        var count = 0

        init(bits: Int) {
            words = Array(repeating: 0, count: bits / 64)
            blockMask = UInt64(bits / 512 - 1)
            capacity = bits / KeyFilter.bitsPerKey
        }

        var bits: Int { words.count * 64 }

        func contains(_ p: Positions) -> Bool {
            let block = Int(p.a & blockMask) * 8
            for index in 0..<KeyFilter.hashes {
                let bit = p.bit(index)
                if words[block + (bit >> 6)] & (1 << UInt64(bit & 63)) == 0 { return false }
            }
            return true
        }

        mutating func insert(_ p: Positions) {
            let block = Int(p.a & blockMask) * 8
            for index in 0..<KeyFilter.hashes {
                let bit = p.bit(index)
                words[block + (bit >> 6)] |= 1 << UInt64(bit & 63)
            }
            count += 1
        }
    }

    /// Bits per key a stage holds before the next one starts, and bits set per key.
    static let bitsPerKey = 16
    static let hashes = 5
    /// The first stage's bits (256 KiB), enough for 131,072 keys.
    static let firstStageBits = 1 << 21
    /// The largest stage (512 MiB, for 268 million keys: far beyond any history; it is reused, filling up).
    static let largestStageBits = 1 << 32

    private var stages: [Stage] = []

    package init() {}

    /// Keys inserted so far.
    var count: Int { stages.reduce(0) { $0 + $1.count } }

    /// Bytes the filter holds.
    var byteCount: Int { stages.reduce(0) { $0 + $1.words.count * 8 } }

    /// Where a key's bits are: its first half picks the block, nine bits of its second half each bit in it.
    private struct Positions {
        let a: UInt64
        let b: UInt64

        func bit(_ index: Int) -> Int { Int(truncatingIfNeeded: (b >> UInt64(index * 9)) & 511) }
    }

    /// The positions of `key` (at least 16 bytes; shorter keys get no filter and always "perhaps").
    private static func positions(_ key: UnsafeRawBufferPointer) -> Positions? {
        guard key.count >= 16 else { return nil }
        return Positions(
            a: key.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
            b: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    package func mightContain(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let positions = Self.positions(key) else { return true }
        return stages.contains { $0.contains(positions) }
    }

    package mutating func insert(_ key: UnsafeRawBufferPointer) {
        guard let positions = Self.positions(key) else { return }
        if stages.isEmpty || (stages[stages.count - 1].count >= stages[stages.count - 1].capacity
            && stages[stages.count - 1].bits < Self.largestStageBits)
        {
            let bits = stages.last.map { $0.bits * 2 } ?? Self.firstStageBits
            stages.append(Stage(bits: bits))
        }
        stages[stages.count - 1].insert(positions)
    }
}
