import FoundationEssentials

/// Reads values as Qt's `QDataStream` writes them (big-endian; the layouts of Qt 4.7 to Qt 5.15, which agree for the
/// types read here), from bytes in memory. Every length is checked against the bytes left before anything is
/// allocated, so a damaged length cannot make it allocate more than the file holds.
struct QtDataStream {
    let bytes: [UInt8]
    private(set) var offset: Int
    /// For errors: the file, and the item being read (counted from 1).
    let file: String
    var item: Int?

    init(_ bytes: [UInt8], file: String, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
        self.file = file
    }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    func damaged(_ what: String, at position: Int? = nil) -> ImportError {
        ImportError.damaged(file, offset: position ?? offset, item: item, what)
    }

    mutating func raw(_ count: Int, _ what: String) throws(ImportError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw damaged("\(what) needs \(count) bytes, \(remaining) left,")
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func uint32(_ what: String = "a number") throws(ImportError) -> UInt32 {
        try raw(4, what).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int32(_ what: String = "a number") throws(ImportError) -> Int32 {
        Int32(bitPattern: try uint32(what))
    }

    mutating func uint64(_ what: String = "a number") throws(ImportError) -> UInt64 {
        try raw(8, what).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint16(_ what: String = "a number") throws(ImportError) -> UInt16 {
        try raw(2, what).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint8(_ what: String = "a byte") throws(ImportError) -> UInt8 {
        try raw(1, what).first!
    }

    mutating func bool(_ what: String = "a flag") throws(ImportError) -> Bool {
        let start = offset
        let value = try uint8(what)
        guard value <= 1 else { throw damaged("\(what) is \(value), neither 0 nor 1,", at: start) }
        return value == 1
    }

    /// A `QByteArray`: its length (0xFFFFFFFF for a null one, read as empty), then its bytes.
    mutating func byteArray(_ what: String = "a byte array") throws(ImportError) -> ArraySlice<UInt8> {
        let length = try uint32("the length of \(what)")
        if length == 0xFFFF_FFFF { return [] }
        return try raw(Int(length), what)
    }

    /// A `QString`: its length in bytes (0xFFFFFFFF for a null one), then UTF-16 big-endian code units.
    mutating func string(_ what: String = "a string") throws(ImportError) -> String {
        let start = offset
        let length = try uint32("the length of \(what)")
        if length == 0xFFFF_FFFF { return "" }
        guard length % 2 == 0 else { throw damaged("\(what) has an odd length (\(length)),", at: start) }
        let units = try raw(Int(length), what)
        var codeUnits: [UInt16] = []
        codeUnits.reserveCapacity(units.count / 2)
        var index = units.startIndex
        while index < units.endIndex {
            codeUnits.append(UInt16(units[index]) << 8 | UInt16(units[index + 1]))
            index += 2
        }
        return String(decoding: codeUnits, as: UTF16.self)
    }

    /// A `const char *` as `QDataStream` writes it: a length that counts a final NUL, then the bytes and the NUL.
    mutating func cString(_ what: String) throws(ImportError) -> String {
        let bytes = try byteArray(what)
        return String(decoding: bytes.last == 0 ? bytes.dropLast() : bytes, as: UTF8.self)
    }

    /// A `QVariant` of a type CopyQ's exports hold (the settings of an export with its configuration can hold any
    /// type: those without a plain value here are refused, naming the type).
    mutating func variant() throws(ImportError) -> QtVariant {
        let start = offset
        let type = try uint32("a value's type")
        _ = try uint8("a value's null flag")
        switch type {
        case 0:  // invalid: Qt 4's streams write an empty string after it
            _ = try string()
            return .invalid
        case 1: return .bool(try bool())
        case 2: return .int(Int64(try int32()))
        case 3: return .int(Int64(try uint32()))
        case 4: return .int(Int64(bitPattern: try uint64()))
        case 5: return .int(Int64(bitPattern: try uint64()))
        case 6: return .double(Double(bitPattern: try uint64()))
        case 7: return .string(String(decoding: [try uint16()], as: UTF16.self))
        case 8: return .map(try variantMap())
        case 9:
            let count = try count("a list's length", least: 9)
            var list: [QtVariant] = []
            for _ in 0..<count { list.append(try variant()) }
            return .list(list)
        case 10: return .string(try string())
        case 11:
            let count = try count("a string list's length", least: 4)
            var list: [QtVariant] = []
            for _ in 0..<count { list.append(.string(try string())) }
            return .list(list)
        case 12: return .bytes(Array(try byteArray()))
        default:
            throw damaged("a value of Qt type \(type), which pb does not read (export without the configuration),", at: start)
        }
    }

    /// A `QVariantMap`: a count, then key and value pairs.
    mutating func variantMap() throws(ImportError) -> [String: QtVariant] {
        let count = try count("a map's length", least: 9)
        var map: [String: QtVariant] = [:]
        for _ in 0..<count {
            let key = try string("a key")
            map[key] = try variant()
        }
        return map
    }

    /// A count of elements that each take at least `least` bytes: more than the bytes left can hold is damage.
    mutating func count(_ what: String, least: Int) throws(ImportError) -> Int {
        let start = offset
        let value = Int(try uint32(what))
        guard value <= remaining / least else { throw damaged("\(what) (\(value)) is more than the file holds", at: start) }
        return value
    }
}

/// The values of a `QVariant` that CopyQ's exports use.
enum QtVariant {
    case invalid
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case bytes([UInt8])
    case list([QtVariant])
    case map([String: QtVariant])

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
