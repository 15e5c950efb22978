/// One D-Bus value, as it goes into or comes out of a message body.
///
/// ```swift
/// let body: [DBusValue] = [.string("CLIPBOARD"), .array("s", [.string("text/plain")]), .uint32(7)]
/// // signature "sasu"; a dictionary a{sv} is .array("{sv}", [.dictEntry(.string("key"), .variant(.uint32(1)))])
/// ```
public indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An index into the message's `fds`.
    case unixFD(UInt32)
    /// The element signature and the elements; a dictionary is an array of `.dictEntry`, element signature "{sv}".
    case array(String, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    /// A value with its type; the signature written is the value's own (`signature`).
    case variant(DBusValue)

    /// The value's D-Bus signature, as a variant carries it ("as", "(su)", "a{sv}").
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    // MARK: - Accessors

    public var byte: UInt8? { if case .byte(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var int16: Int16? { if case .int16(let value) = self { value } else { nil } }
    public var uint16: UInt16? { if case .uint16(let value) = self { value } else { nil } }
    public var int32: Int32? { if case .int32(let value) = self { value } else { nil } }
    public var uint32: UInt32? { if case .uint32(let value) = self { value } else { nil } }
    public var int64: Int64? { if case .int64(let value) = self { value } else { nil } }
    public var uint64: UInt64? { if case .uint64(let value) = self { value } else { nil } }
    public var double: Double? { if case .double(let value) = self { value } else { nil } }
    /// The text of a `.string` (not of an object path or a signature).
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var objectPath: String? { if case .objectPath(let value) = self { value } else { nil } }
    /// The text of a `.signature` value.
    public var signatureText: String? { if case .signature(let value) = self { value } else { nil } }
    /// The fd index of a `.unixFD`: look it up in the message's `fds`.
    public var unixFD: UInt32? { if case .unixFD(let value) = self { value } else { nil } }
    /// The elements of an array of any type.
    public var arrayElements: [DBusValue]? {
        if case .array(_, let elements) = self { elements } else { nil }
    }
    public var structureFields: [DBusValue]? {
        if case .structure(let fields) = self { fields } else { nil }
    }
    /// The value inside a variant.
    public var variantValue: DBusValue? { if case .variant(let value) = self { value } else { nil } }

    /// The strings of an `as`.
    public var stringArray: [String]? {
        guard case .array("s", let elements) = self else { return nil }
        return elements.compactMap(\.string)
    }

    /// The bytes of an `ay`.
    public var byteArray: [UInt8]? {
        guard case .array("y", let elements) = self else { return nil }
        return elements.compactMap(\.byte)
    }

    /// The entries of a dictionary with string keys (`a{sv}`, `a{ss}`, …), in the order they came; a later
    /// duplicate key wins.
    public var stringDictionary: [String: DBusValue]? {
        guard case .array(let element, let entries) = self, element.hasPrefix("{s") else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .dictEntry(.string(let key), let value) = entry else { return nil }
            result[key] = value
        }
        return result
    }

    // MARK: - Builders

    /// An `as`.
    public static func strings(_ strings: [String]) -> DBusValue {
        .array("s", strings.map { .string($0) })
    }

    /// An `ay`.
    public static func bytes(_ bytes: [UInt8]) -> DBusValue { .array("y", bytes.map { .byte($0) }) }

    /// An `a{sv}` in the order of `entries`.
    public static func vardict(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }
}
