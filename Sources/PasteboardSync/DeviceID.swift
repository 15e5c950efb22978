import Foundation

/// A device of a sync folder: 16 lowercase hex digits, random, made when the device joins.
public struct DeviceID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard rawValue.count == 16, rawValue.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        self.rawValue = rawValue
    }

    static func random() throws(SyncError) -> DeviceID {
        let hex = try Sodium.randomBytes(8).map { String(format: "%02x", $0) }.joined()
        return DeviceID(rawValue: hex)!  // 8 random bytes are 16 lowercase hex digits
    }

    public var description: String { rawValue }
}
