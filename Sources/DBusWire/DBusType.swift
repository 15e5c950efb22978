/// One complete D-Bus type, parsed from a signature; it knows its alignment and checks the nesting limits.
indirect enum DBusType: Equatable, Sendable {
    case byte, bool, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case array(DBusType)
    case dictEntry(DBusType, DBusType)
    case structure([DBusType])
    case variant

    /// The specification's limits: 255 bytes of signature, 32 nested arrays, 32 nested structures, 64 in all.
    static let maximumSignatureLength = 255
    static let maximumArrayDepth = 32
    static let maximumStructureDepth = 32
    static let maximumDepth = 64

    /// Where a value of this type starts: a multiple of this many bytes from the start of the message.
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .bool, .int32, .uint32, .unixFD, .string, .objectPath, .array: 4
        case .int64, .uint64, .double, .dictEntry, .structure: 8
        }
    }

    var isBasic: Bool {
        switch self {
        case .array, .dictEntry, .structure, .variant: false
        default: true
        }
    }

    var signature: String {
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
        case .array(let element): "a" + element.signature
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// The types of a whole signature (a message body's: zero or more complete types).
    static func parse(_ signature: String) throws(DBusError) -> [DBusType] {
        let bytes = Array(signature.utf8)
        guard bytes.count <= maximumSignatureLength else {
            throw DBusError(
                .invalidArgument,
                "The D-Bus signature is \(bytes.count) bytes long; at most 255 are allowed.")
        }
        var parser = Parser(bytes: bytes, text: signature)
        var types: [DBusType] = []
        while parser.position < bytes.count {
            types.append(try parser.completeType(arrays: 0, structures: 0))
        }
        return types
    }

    /// The one complete type of `signature` (a variant's or an array element's).
    static func parseSingle(_ signature: String) throws(DBusError) -> DBusType {
        let types = try parse(signature)
        guard types.count == 1 else {
            throw DBusError(
                .invalidArgument,
                "The D-Bus signature \"\(signature)\" must be exactly one complete type; it has \(types.count)."
            )
        }
        return types[0]
    }

    private struct Parser {
        let bytes: [UInt8]
        let text: String
        var position = 0

        func invalid(_ why: String) -> DBusError {
            DBusError(.invalidArgument, "The D-Bus signature \"\(text)\" is not valid: \(why).")
        }

        mutating func completeType(arrays: Int, structures: Int) throws(DBusError) -> DBusType {
            guard position < bytes.count else { throw invalid("it ends inside a type") }
            let code = bytes[position]
            position += 1
            switch code {
            case UInt8(ascii: "y"): return .byte
            case UInt8(ascii: "b"): return .bool
            case UInt8(ascii: "n"): return .int16
            case UInt8(ascii: "q"): return .uint16
            case UInt8(ascii: "i"): return .int32
            case UInt8(ascii: "u"): return .uint32
            case UInt8(ascii: "x"): return .int64
            case UInt8(ascii: "t"): return .uint64
            case UInt8(ascii: "d"): return .double
            case UInt8(ascii: "s"): return .string
            case UInt8(ascii: "o"): return .objectPath
            case UInt8(ascii: "g"): return .signature
            case UInt8(ascii: "h"): return .unixFD
            case UInt8(ascii: "v"): return .variant
            case UInt8(ascii: "a"):
                guard arrays < DBusType.maximumArrayDepth, arrays + structures < DBusType.maximumDepth
                else {
                    throw invalid("arrays are nested more than 32 deep")
                }
                if position < bytes.count, bytes[position] == UInt8(ascii: "{") {
                    position += 1
                    guard structures < DBusType.maximumStructureDepth else {
                        throw invalid("structures are nested more than 32 deep")
                    }
                    let key = try completeType(arrays: arrays + 1, structures: structures + 1)
                    guard key.isBasic else { throw invalid("a dictionary key must be a basic type") }
                    let value = try completeType(arrays: arrays + 1, structures: structures + 1)
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                        throw invalid("a dictionary entry holds exactly a key and a value")
                    }
                    position += 1
                    return .array(.dictEntry(key, value))
                }
                return .array(try completeType(arrays: arrays + 1, structures: structures))
            case UInt8(ascii: "("):
                guard structures < DBusType.maximumStructureDepth,
                    arrays + structures < DBusType.maximumDepth
                else {
                    throw invalid("structures are nested more than 32 deep")
                }
                var fields: [DBusType] = []
                while true {
                    guard position < bytes.count else { throw invalid("a structure is not closed") }
                    if bytes[position] == UInt8(ascii: ")") {
                        position += 1
                        break
                    }
                    fields.append(try completeType(arrays: arrays, structures: structures + 1))
                }
                guard !fields.isEmpty else { throw invalid("a structure must have at least one field") }
                return .structure(fields)
            case UInt8(ascii: "{"): throw invalid("a dictionary entry may only be an array's element")
            default: throw invalid("'\(Unicode.Scalar(code))' is not a type code")
            }
        }
    }
}
