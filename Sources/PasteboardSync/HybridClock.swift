public import FoundationEssentials

/// A hybrid logical clock reading: wall time in milliseconds, a counter for events within one millisecond (or
/// after a reading from a device whose clock runs ahead), and the device that made it, which breaks ties. Readings
/// are totally ordered and compare as their text, `wwwwwwwwwwww.cccc.device` in fixed-width hex.
public struct HybridClock: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let milliseconds: UInt64
    public let counter: UInt32
    public let device: DeviceID

    init(milliseconds: UInt64, counter: UInt32, device: DeviceID) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.device = device
    }

    /// The clock's text, which sorts as the clock does.
    public var text: String {
        let wall = String(milliseconds, radix: 16)
        let count = String(counter, radix: 16)
        return String(repeating: "0", count: max(0, 12 - wall.count)) + wall + "."
            + String(repeating: "0", count: max(0, 8 - count.count)) + count + "." + device.rawValue
    }

    public var description: String { text }

    init(text: String) throws(SyncError) {
        // Parsed byte by byte: the sync state holds several readings per item, read back in bulk.
        var text = text
        let parsed = text.withUTF8 { bytes -> (UInt64, UInt32, DeviceID)? in
            guard bytes.count == 12 + 1 + 8 + 1 + 16, bytes[12] == UInt8(ascii: "."), bytes[21] == UInt8(ascii: "."),
                let wall = DeviceID.hexValue(bytes[0..<12]), let count = DeviceID.hexValue(bytes[13..<21]),
                let device = DeviceID(utf8: UnsafeBufferPointer(rebasing: bytes[22...]))
            else { return nil }
            return (wall, UInt32(count), device)
        }
        guard let (wall, count, device) = parsed else { throw SyncError(.rejected, "a clock reading is malformed") }
        self.init(milliseconds: wall, counter: count, device: device)
    }

    public static func < (a: HybridClock, b: HybridClock) -> Bool {
        (a.milliseconds, a.counter, a.device.rawValue) < (b.milliseconds, b.counter, b.device.rawValue)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try HybridClock(text: text)
    }

    /// When the reading was taken, by the wall clock of the device that took it.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}

/// Issues clock readings for one device: never backwards, and after every reading it has seen.
struct ClockSource {
    let device: DeviceID
    private(set) var last: HybridClock?

    init(device: DeviceID, last: HybridClock?) {
        self.device = device
        self.last = last
    }

    mutating func tick(now: Date = Date()) -> HybridClock {
        let wall = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        let next: HybridClock
        if let last, last.milliseconds >= wall {
            next = HybridClock(milliseconds: last.milliseconds, counter: last.counter &+ 1, device: device)
        } else {
            next = HybridClock(milliseconds: wall, counter: 0, device: device)
        }
        last = next
        return next
    }

    /// Moves past a reading from another device, so what this device does next orders after what it has seen.
    mutating func observe(_ remote: HybridClock) {
        if last == nil || (remote.milliseconds, remote.counter) > (last!.milliseconds, last!.counter) {
            last = HybridClock(milliseconds: remote.milliseconds, counter: remote.counter, device: device)
        }
    }
}
