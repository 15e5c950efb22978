internal import CSHA256
import FoundationEssentials

/// SHA-256 (FIPS 180-4), used to address blobs by content and to identify items.
///
/// Written here because the toolchain on Linux ships no digest API. Blocks are compressed by the CPU's SHA
/// extensions where it has them (x86 SHA-NI, in the CSHA256 target; about four times faster), else by the portable
/// Swift code below; both give the same digests, which `SHA256Tests` checks on each.
struct SHA256 {
    /// Who compresses the blocks.
    enum Compression: CaseIterable {
        /// The CPU's SHA extensions: only when `isHardwareAvailable`.
        case hardware
        /// The Swift rounds, on any CPU.
        case portable

        /// Whether this CPU has the SHA extensions (asked once, through CPUID).
        static let isHardwareAvailable = pb_sha256_hardware_available() != 0

        /// The fastest this CPU has.
        static let preferred: Compression = isHardwareAvailable ? .hardware : .portable
    }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// The bytes of an unfinished block (fewer than 64); empty, and so never allocated, for one-shot digests.
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0
    private let compression: Compression

    init(compression: Compression = .preferred) {
        precondition(compression == .portable || Compression.isHardwareAvailable)  // a programmer error
        self.compression = compression
    }

    /// The digest of `data` in one call.
    static func hash(_ data: Data, compression: Compression = .preferred) -> Data {
        data.withUnsafeBytes { bytes in finished(bytes, compression: compression).digest(byteCount: 32) }
    }

    /// The first 128 bits of the digest: the store's content address. Accidental collisions among even
    /// billions of payloads are beyond reach (about 2^-64 at 2^32 items), and it halves index space.
    static func address(_ data: Data, compression: Compression = .preferred) -> Data {
        data.withUnsafeBytes { bytes in finished(bytes, compression: compression).digest(byteCount: 16) }
    }

    /// A hasher that has taken all of `bytes` and its padding (`state` is the digest), without the block buffer:
    /// nothing is allocated.
    private static func finished(_ bytes: UnsafeRawBufferPointer, compression: Compression) -> SHA256 {
        var hasher = SHA256(compression: compression)
        hasher.length = UInt64(bytes.count)
        let whole = bytes.count / 64
        if whole > 0 { hasher.compress(UnsafeRawBufferPointer(rebasing: bytes[0..<whole * 64]), blocks: whole) }
        hasher.finishBlocks(pending: UnsafeRawBufferPointer(rebasing: bytes[(whole * 64)...]))
        return hasher
    }

    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(UnsafeRawBufferPointer($0)) }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: bytes[0..<take])
            offset = take
            if buffer.count == 64 {
                let block = buffer
                block.withUnsafeBytes { compress($0, blocks: 1) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        let whole = (bytes.count - offset) / 64
        if whole > 0 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + whole * 64]), blocks: whole)
            offset += whole * 64
        }
        if offset < bytes.count { buffer.append(contentsOf: bytes[offset...]) }
    }

    /// Whether `expected` is the content address of `bytes` (as `address(_:) == expected`, without building the
    /// address as `Data`): the check of a payload against its stored address.
    static func isAddress(
        _ expected: UnsafeRawBufferPointer, of bytes: UnsafeRawBufferPointer, compression: Compression = .preferred
    ) -> Bool {
        guard expected.count == 16 else { return false }
        let words = finished(bytes, compression: compression).state
        return withUnsafeBytes(of: words) { raw in  // eight UInt32s, one after the other
            for index in 0..<expected.count {
                let word = raw.load(fromByteOffset: index / 4 * 4, as: UInt32.self)
                if expected[index] != UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * (index % 4))) { return false }
            }
            return true
        }
    }

    /// The digest (32 bytes), or its first `byteCount` bytes.
    mutating func finalize(byteCount: Int = 32) -> Data {
        precondition(byteCount > 0 && byteCount <= 32)  // a programmer error: a digest has 32 bytes
        let pending = buffer
        pending.withUnsafeBytes { finishBlocks(pending: $0) }
        buffer.removeAll()
        return digest(byteCount: byteCount)
    }

    /// The first `byteCount` bytes of `state`, big-endian words.
    private func digest(byteCount: Int) -> Data {
        let words = state
        var out = Data(count: byteCount)
        out.withUnsafeMutableBytes { (digest: UnsafeMutableRawBufferPointer) in
            withUnsafeBytes(of: words) { (raw: UnsafeRawBufferPointer) in  // eight UInt32s, one after the other
                for index in 0..<byteCount {
                    let word = raw.load(fromByteOffset: index / 4 * 4, as: UInt32.self)
                    digest[index] = UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * (index % 4)))
                }
            }
        }
        return out
    }

    /// Compresses the padded tail (`pendingBytes`, the message's last fewer than 64 bytes, then the 1 bit, zeros and
    /// the bit length): `state` is then the digest.
    private mutating func finishBlocks(pending pendingBytes: UnsafeRawBufferPointer) {
        precondition(pendingBytes.count < 64)  // a programmer error: whole blocks are compressed by then
        let bitLength = length &* 8
        // The padded tail is one or two blocks, built on the stack.
        let pending = pendingBytes.count
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { (tail: UnsafeMutableRawBufferPointer) in
            for index in 0..<pending { tail[index] = pendingBytes[index] }
            tail[pending] = 0x80
            let blocks = pending < 56 ? 1 : 2
            for index in (pending + 1)..<(blocks * 64 - 8) { tail[index] = 0 }
            for offset in 0..<8 {
                tail[blocks * 64 - 8 + offset] = UInt8(truncatingIfNeeded: bitLength >> UInt64(56 - 8 * offset))
            }
            compress(UnsafeRawBufferPointer(tail), blocks: blocks)
        }
    }

    /// Compresses `blocks` consecutive 64-byte blocks of `input`.
    ///
    /// Written to stay fast in unoptimized (debug) builds as well, where it was 20 times slower: no calls inside
    /// the rounds (rotations spelled out), wrapping (`&`) arithmetic and masking shifts so that no overflow checks
    /// run, plain pointers instead of buffer subscripts, and one closure per call rather than per block.
    private mutating func compress(_ input: UnsafeRawBufferPointer, blocks: Int) {
        precondition(input.count >= blocks * 64)  // a programmer error: callers pass whole blocks only
        guard blocks > 0, let base = input.baseAddress else { return }
        if compression == .hardware {
            // A homogeneous tuple of eight UInt32s is laid out as eight consecutive words, H0 first.
            withUnsafeMutableBytes(of: &state) { words in
                pb_sha256_compress_hardware(
                    words.baseAddress!.assumingMemoryBound(to: UInt32.self), base.assumingMemoryBound(to: UInt8.self),
                    blocks)
            }
            return
        }
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        Self.k.withUnsafeBufferPointer { kBuffer in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { wBuffer in
                let k = kBuffer.baseAddress!  // 64 constants
                let w = wBuffer.baseAddress!  // 64 words on the stack
                var p = base.assumingMemoryBound(to: UInt8.self)
                for _ in 0..<blocks {
                    var i = 0
                    while i < 16 {
                        w[i] = UInt32(p[0]) &<< 24 | UInt32(p[1]) &<< 16 | UInt32(p[2]) &<< 8 | UInt32(p[3])
                        p = p + 4
                        i &+= 1
                    }
                    while i < 64 {
                        let x = w[i &- 15]
                        let y = w[i &- 2]
                        let s0 = (x &>> 7 | x &<< 25) ^ (x &>> 18 | x &<< 14) ^ (x &>> 3)
                        let s1 = (y &>> 17 | y &<< 15) ^ (y &>> 19 | y &<< 13) ^ (y &>> 10)
                        w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
                        i &+= 1
                    }
                    var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    i = 0
                    while i < 64 {
                        let s1 = (e &>> 6 | e &<< 26) ^ (e &>> 11 | e &<< 21) ^ (e &>> 25 | e &<< 7)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                        let s0 = (a &>> 2 | a &<< 30) ^ (a &>> 13 | a &<< 19) ^ (a &>> 22 | a &<< 10)
                        let maj = (a & b) ^ (a & c) ^ (b & c)
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ s0 &+ maj
                        i &+= 1
                    }
                    h0 = h0 &+ a; h1 = h1 &+ b; h2 = h2 &+ c; h3 = h3 &+ d
                    h4 = h4 &+ e; h5 = h5 &+ f; h6 = h6 &+ g; h7 = h7 &+ h
                }
            }
        }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
    }
}

extension Data {
    /// Lowercase hexadecimal.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
