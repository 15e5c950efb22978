import Foundation
import Testing
@testable import PasteboardSync

@Suite struct SegmentCodecTests {
    let device = DeviceID(rawValue: "0123456789abcdef")!

    func operations() -> [SyncOperation] {
        let identity = String(repeating: "ab", count: 16)
        let clock = { (ms: UInt64, c: UInt32) in HybridClock(milliseconds: ms, counter: c, device: self.device) }
        return [
            SyncOperation(
                kind: .copy, clock: clock(1_700_000_000_000, 0), identity: identity,
                representations: [
                    .init(type: "public.utf8-plain-text", payload: nil, size: 5, inline: Data("hello".utf8)),
                    .init(type: "public.html", payload: String(repeating: "cd", count: 32), size: 70_000),
                ], source: "firefox"),
            SyncOperation(kind: .pin, clock: clock(1_700_000_000_001, 3), identity: identity),
            SyncOperation(kind: .unpin, clock: clock(1_700_000_000_002, 0), identity: identity),
            SyncOperation(kind: .delete, clock: clock(1_700_000_000_003, 0), identity: identity),
            SyncOperation(kind: .clear, clock: clock(1_700_000_000_004, 0), keepsPinned: true),
        ]
    }

    @Test func operationsRoundTrip() throws {
        let (types, bytes) = SegmentCodec.encode(operations())
        #expect(types == ["public.utf8-plain-text", "public.html"])
        #expect(SegmentCodec.decode(bytes, count: 5, types: types, device: device) == operations())
        // A copy costs a few dozen bytes beyond its payload.
        let copy = SegmentCodec.encode([operations()[0]]).bytes
        #expect(copy.count - 5 - 32 < 48, "\(copy.count) bytes")
    }

    @Test func everyTruncationAndAnyTrailingByteIsRefused() {
        let (types, bytes) = SegmentCodec.encode(operations())
        for length in 0..<bytes.count {
            #expect(SegmentCodec.decode(bytes.prefix(length), count: 5, types: types, device: device) == nil)
        }
        #expect(SegmentCodec.decode(bytes + Data([0]), count: 5, types: types, device: device) == nil)
        #expect(SegmentCodec.decode(bytes, count: 5, types: [], device: device) == nil)
    }

    @Test func hexDigitsDecodeExactly() {
        let bytes = Data((0...255).map { UInt8($0) })
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        #expect(Hex.decode("00fF7a") == Data([0x00, 0xFF, 0x7A]))
        #expect(Hex.decode("") == Data())
        // Anything but pairs of hex digits is not an identity, signs and letters beyond f included.
        for text in ["0", "abc", "+f", "-0", "0x", "g0", " 0", "0 ", "é0", "ab\u{301}"] {
            #expect(Hex.decode(text) == nil, "\(text)")
        }
    }

    /// The bytes other devices read: the encoder's exact output for the five kinds, as the pb before wrote it.
    @Test func theEncodingIsTheOneDevicesAlreadyRead() {
        let expectedOperations = [
            "0080d095ffbc3100abababababababababababababababab0866697265666f780200050068656c6c6f01f0a20401cdcd",
            "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd0181d095ffbc3103abababababababababab",
            "abababababab0282d095ffbc3100abababababababababababababababab0383d095ffbc3100abababababababababab",
            "abababababab0484d095ffbc310001"
        ].joined()
        let expectedGroups = [
            "013031323334353637383961626364656602167075626c69632e757466382d706c61696e2d746578740b7075626c6963",
            "2e68746d6c059f010080d095ffbc3100abababababababababababababababab0866697265666f780200050068656c6c",
            "6f01f0a20401cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd0181d095ffbc3103abab",
            "abababababababababababababab0282d095ffbc3100abababababababababababababababab0383d095ffbc3100abab",
            "abababababababababababababab0484d095ffbc310001"
        ].joined()
        #expect(Hex.encode(SegmentCodec.encode(operations()).bytes) == expectedOperations)
        #expect(Hex.encode(SegmentCodec.encodeGroups(operations())) == expectedGroups)
    }
}
