import Foundation
import PasteboardTestSupport
import Testing

@testable import PasteboardHistory

@Suite struct SHA256Tests {
    /// Every compression this CPU can run: both where it has the SHA extensions.
    static let compressions = SHA256.Compression.allCases.filter {
        $0 == .portable || SHA256.Compression.isHardwareAvailable
    }

    /// FIPS 180-4 / NIST CAVP vectors.
    static let vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test(arguments: compressions, vectors)
    func knownVectors(compression: SHA256.Compression, _ vector: (message: String, digest: String)) {
        #expect(SHA256.hash(Data(vector.message.utf8), compression: compression).hexString == vector.digest)
    }

    @Test(arguments: compressions)
    func oneMillionLetterA(compression: SHA256.Compression) {
        let digest = SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: 1_000_000), compression: compression)
        #expect(digest.hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: compressions, [55, 56, 57, 63, 64, 65, 119, 120, 128])
    func paddingBoundaries(compression: SHA256.Compression, length: Int) {
        // Lengths around the 56-byte padding boundary and block multiples, checked against
        // `head -c N /dev/zero | tr '\0' a | sha256sum`.
        let expected: [Int: String] = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            57: "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
            65: "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0",
            119: "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb",
            120: "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c",
            128: "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e",
        ]
        let digest = SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: length), compression: compression)
        #expect(digest.hexString == expected[length])
    }

    @Test(arguments: compressions, [1, 3, 7, 13, 63, 64, 65, 100, 1_000])
    func chunkedInputEqualsOneShot(compression: SHA256.Compression, chunkSize: Int) {
        let data = pseudoRandomBytes(count: 10_007, seed: 17)
        var hasher = SHA256(compression: compression)
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            hasher.update(data.subdata(in: offset..<end))
            offset = end
        }
        #expect(hasher.finalize() == SHA256.hash(data))
    }

    @Test func irregularChunksIncludingEmptyOnesEqualOneShot() {
        let data = pseudoRandomBytes(count: 5_000, seed: 23)
        let sizes = [0, 1, 0, 62, 2, 129, 0, 64, 5, 300, 7, 1]
        var hasher = SHA256()
        var offset = 0
        var turn = 0
        while offset < data.count {
            let end = min(offset + sizes[turn % sizes.count], data.count)
            hasher.update(data.subdata(in: offset..<end))
            offset = end
            turn += 1
        }
        #expect(hasher.finalize() == SHA256.hash(data))
    }

    @Test func digestIsThirtyTwoBytesAndHexIsLowercase() {
        let digest = SHA256.hash(Data("abc".utf8))
        #expect(digest.count == 32)
        #expect(Data([0x00, 0x0F, 0xA0, 0xFF]).hexString == "000fa0ff")
    }

    @Test func dataSlicesHashLikeCopies() {
        let data = pseudoRandomBytes(count: 300, seed: 5)
        let slice = data[37..<237]
        #expect(SHA256.hash(slice) == SHA256.hash(Data(slice)))
    }

    /// `isAddress` says what `address(_:) ==` says, byte for byte, without building the address.
    @Test(arguments: compressions, [0, 1, 55, 64, 65, 1_000])
    func isAddressMatchesTheAddressAndNothingElse(compression: SHA256.Compression, length: Int) {
        let data = pseudoRandomBytes(count: length, seed: UInt64(length) + 3)
        var address = SHA256.address(data, compression: compression)
        data.withUnsafeBytes { bytes in
            #expect(address.withUnsafeBytes { SHA256.isAddress($0, of: bytes, compression: compression) })
            let full = SHA256.hash(data, compression: compression)
            #expect(!full.withUnsafeBytes { SHA256.isAddress($0, of: bytes, compression: compression) }, "32 bytes")
        }
        for index in [0, 7, 15] {
            address[index] ^= 0x01
            #expect(!address.withUnsafeBytes { expected in
                data.withUnsafeBytes { SHA256.isAddress(expected, of: $0, compression: compression) }
            }, "byte \(index) changed")
            address[index] ^= 0x01
        }
    }

    // MARK: - The hardware path against the portable one

    /// The CPU's SHA extensions are used exactly where the kernel reports them (the `sha_ni` flag), so that a
    /// machine with them runs, and tests, the hardware path.
    @Test func hardwareIsChosenWhereTheCPUHasIt() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") } ?? ""
        let hasSHA = flags.split(separator: " ").contains("sha_ni") && flags.split(separator: " ").contains("sse4_1")
        #if arch(x86_64)
            #expect(SHA256.Compression.isHardwareAvailable == hasSHA)
            #expect(SHA256.Compression.preferred == (hasSHA ? .hardware : .portable))
        #else
            #expect(!SHA256.Compression.isHardwareAvailable)
        #endif
    }

    /// 500 random messages of 0 to 10,000 bytes hash alike on both paths, whole and in random pieces.
    @Test func hardwareAndPortableAgreeOnRandomLengths() {
        guard SHA256.Compression.isHardwareAvailable else { return }  // the test above says whether it should be
        var generator = SeededGenerator(seed: 42)
        let pool = pseudoRandomBytes(count: 20_000, seed: 99)
        for _ in 0..<500 {
            let length = Int(generator.next() % 10_001)
            let start = Int(generator.next() % UInt64(pool.count - length + 1))
            let message = pool.subdata(in: start..<start + length)
            let portable = SHA256.hash(message, compression: .portable)
            #expect(SHA256.hash(message, compression: .hardware) == portable, "length \(length)")
            var hasher = SHA256(compression: .hardware)
            var offset = 0
            while offset < length {
                let end = min(length, offset + Int(generator.next() % 200))
                hasher.update(message.subdata(in: offset..<end))
                offset = end
            }
            #expect(hasher.finalize() == portable, "length \(length), in pieces")
        }
    }
}
