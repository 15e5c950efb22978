import Foundation
@testable import PasteboardHistory
import Testing

/// The import's filter of keys already seen: never "not seen" for a key it holds, and few false "perhaps" however
/// many keys it holds (a filter of fixed size said "perhaps" to most new keys at ten million).
@Suite struct KeyFilterTests {
    /// Sixteen pseudo-random bytes per number (SplitMix64), like the digests the filter is given.
    static func key(_ n: UInt64) -> [UInt8] {
        func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return withUnsafeBytes(of: (mix(n &* 2), mix(n &* 2 &+ 1))) { Array($0) }
    }

    @Test func holdsEveryKeyAndFewStrangersAtThreeMillionKeys() {
        var filter = KeyFilter()
        let count: UInt64 = 3_000_000
        for n in 0..<count { Self.key(n).withUnsafeBytes { filter.insert($0) } }
        #expect(filter.count == Int(count))
        var missed = 0
        for n in stride(from: 0, to: count, by: 7) where !Self.key(n).withUnsafeBytes({ filter.mightContain($0) }) {
            missed += 1
        }
        #expect(missed == 0)
        var strangers = 0
        let asked = 200_000
        for n in count..<(count + UInt64(asked)) where Self.key(n).withUnsafeBytes({ filter.mightContain($0) }) {
            strangers += 1
        }
        // Under 1.5% (the fixed 2 MiB filter it replaces said "perhaps" to 7% of new keys at three million).
        #expect(Double(strangers) / Double(asked) < 0.015, "\(strangers) of \(asked) new keys were \"perhaps\"")
        // About 2 bytes a key, not a fixed size.
        #expect(filter.byteCount < Int(count) * 4)
    }

    @Test func anEmptyFilterHasSeenNothingAndShortKeysArePerhaps() {
        var filter = KeyFilter()
        #expect(!Self.key(1).withUnsafeBytes { filter.mightContain($0) })
        let short: [UInt8] = [1, 2, 3]
        #expect(short.withUnsafeBytes { filter.mightContain($0) })
        short.withUnsafeBytes { filter.insert($0) }
        #expect(filter.count == 0)
    }
}
