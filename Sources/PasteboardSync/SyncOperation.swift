import FoundationEssentials
import PasteboardModel

/// One entry of a device's log: what happened to the history on that device, when (by its hybrid clock).
struct SyncOperation: Sendable, Equatable, Codable {
    enum Kind: String, Sendable, Codable {
        case copy, pin, unpin, delete, clear
    }

    /// One representation of a copied item: its type, the payload file holding its bytes, and their count.
    struct Representation: Sendable, Equatable, Codable {
        /// The content type's identifier.
        var type: String
        /// The payload's keyed hash in hex: the name of its file in `payloads/` (nil for an inline payload).
        var payload: String?
        var size: Int
        /// A small payload travels inline, inside the (encrypted) segment, instead of in a file of its own.
        var inline: Data?

        enum CodingKeys: String, CodingKey {
            case type = "t", payload = "p", size = "n", inline = "d"
        }

        /// Payloads up to this size go inline.
        static let inlineLimit = 2048
    }

    var kind: Kind
    var clock: HybridClock
    /// The item's identity in hex (every kind but `clear`).
    var identity: String?
    /// For `copy`: every representation, in order.
    var representations: [Representation]?
    /// For `copy`: the application it was copied from, when known.
    var source: String?
    /// For `clear`: whether pinned items stayed.
    var keepsPinned: Bool?

    enum CodingKeys: String, CodingKey {
        case kind = "k", clock = "c", identity = "i", representations = "r", source = "s", keepsPinned = "p"
    }

    /// The identity as bytes; nil for a clear or a malformed one.
    var identityBytes: Data? { identity.flatMap(Hex.decode) }

    /// Checks what JSON decoding cannot: the fields each kind needs are there and well formed.
    var isWellFormed: Bool {
        switch kind {
        case .clear: return identity == nil && keepsPinned != nil
        case .pin, .unpin, .delete: return identityBytes?.count == 16
        case .copy:
            guard identityBytes?.count == 16, let representations, !representations.isEmpty, representations.count <= 64 else {
                return false
            }
            return representations.allSatisfy { representation in
                let stored =
                    if let inline = representation.inline {
                        representation.payload == nil && inline.count == representation.size
                            && inline.count <= Representation.inlineLimit
                    } else {
                        representation.payload.flatMap(Hex.decode)?.count == KeyedHash.byteCount
                    }
                return stored && representation.size >= 0 && !representation.type.isEmpty && representation.type.count < 256
            }
        }
    }
}

/// Lowercase hex.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ data: Data) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes `text` spells, two hex digits each (either case); nil for anything else. Read byte by byte: every
    /// operation a device takes in has its identity decoded here, several times (a joining device decodes millions).
    static func decode(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { utf8 -> Data? in
            guard utf8.count % 2 == 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: utf8.count / 2)
            for index in bytes.indices {
                guard let high = value(of: utf8[2 * index]), let low = value(of: utf8[2 * index + 1]) else {
                    return nil
                }
                bytes[index] = high << 4 | low
            }
            return Data(bytes)
        }
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
