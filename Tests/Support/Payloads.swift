public import Foundation

/// Byte payloads the tests copy and paste.
///
/// ```swift
/// try await sandbox.copy(Payloads.png)
/// let big = Payloads.largeText(count: 5 << 20)
/// ```
public enum Payloads {
    /// A valid 2×2 RGBA PNG built by hand: signature, IHDR, one IDAT holding a stored (uncompressed)
    /// zlib stream, IEND, each chunk with its CRC-32.
    public static let png: Data = {
        var ihdr = Data()
        ihdr.append(bigEndian: 2)  // width
        ihdr.append(bigEndian: 2)  // height
        ihdr.append(contentsOf: [8, 6, 0, 0, 0])  // 8 bits per channel, RGBA, deflate, adaptive filter, no interlace
        // Two scanlines, each: filter type 0, then two RGBA pixels.
        let pixels: [UInt8] = [
            0, 0xFF, 0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF,
            0, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80,
        ]
        var zlib = Data([0x78, 0x01])  // deflate, 32K window, no dictionary; (0x7801 % 31 == 0)
        let length = UInt16(pixels.count)
        zlib.append(0x01)  // final block, stored
        zlib.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)])
        zlib.append(contentsOf: pixels)
        zlib.append(bigEndian: adler32(pixels))
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.appendChunk("IHDR", ihdr)
        png.appendChunk("IDAT", zlib)
        png.appendChunk("IEND", Data())
        return png
    }()

    /// `count` bytes of text-like data that differ from line to line (so no compression or dedup shortcuts).
    public static func largeText(count: Int) -> Data {
        var data = Data(capacity: count)
        var line = 0
        while data.count < count {
            data.append(
                contentsOf: "line \(line): the quick brown fox jumps over the lazy dog \(line &* 2_654_435_761)\n".utf8)
            line += 1
        }
        return data.prefix(count)
    }

    /// The CRC-32 (ISO-HDLC, as PNG and zip use it) of `bytes`.
    public static func crc32<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The Adler-32 checksum a zlib stream ends with.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

extension Data {
    fileprivate mutating func append(bigEndian value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }

    fileprivate mutating func appendChunk(_ type: String, _ body: Data) {
        append(bigEndian: UInt32(body.count))
        let typeAndBody = Data(type.utf8) + body
        append(typeAndBody)
        append(bigEndian: Payloads.crc32(typeAndBody))
    }
}
