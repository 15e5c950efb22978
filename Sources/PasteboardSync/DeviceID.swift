import FoundationEssentials
import TextSupport

/// A device of a sync folder: 16 lowercase hex digits, random, made when the device joins.
public struct DeviceID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        var text = rawValue
        guard text.withUTF8({ Self.isLowercaseHex($0) && $0.count == 16 }) else { return nil }
        self.rawValue = rawValue
    }

    /// From the 16 ASCII bytes of its text.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 16, Self.isLowercaseHex(bytes) else { return nil }
        self.rawValue = String(decoding: bytes, as: UTF8.self)
    }

    private static func isLowercaseHex(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The value of lowercase hex digits (at most 16), or nil.
    static func hexValue(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
        guard bytes.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            switch byte {
            case 0x30...0x39: value = value << 4 | UInt64(byte - 0x30)
            case 0x61...0x66: value = value << 4 | UInt64(byte - 0x61 + 10)
            default: return nil
            }
        }
        return value
    }

    static func random() throws(SyncError) -> DeviceID {
        let hex = try Sodium.randomBytes(8).map { CFormat.string("%02x", $0) }.joined()
        return DeviceID(rawValue: hex)!  // 8 random bytes are 16 lowercase hex digits
    }

    public var description: String { rawValue }
}
