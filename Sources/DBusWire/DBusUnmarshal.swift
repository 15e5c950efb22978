/// Reads values in the D-Bus wire format, either endianness, from a received message; every length, offset,
/// padding byte, string and signature is checked, and a violation is a `.malformed` error, never a crash.
struct DBusUnmarshal {
    let bytes: [UInt8]
    let isBigEndian: Bool
    /// How many fds came with the message: a `.unixFD` index must be below it.
    let fdCount: Int
    /// The next byte to read; alignment is counted from index 0, the start of the message.
    var position: Int
    /// One past the last byte this reader may read.
    var end: Int

    init(bytes: [UInt8], isBigEndian: Bool, fdCount: Int, position: Int, end: Int) {
        self.bytes = bytes
        self.isBigEndian = isBigEndian
        self.fdCount = fdCount
        self.position = position
        self.end = end
    }

    static func malformed(_ why: String) -> DBusError {
        DBusError(
            .malformed, "The D-Bus peer sent a malformed message (\(why)); the connection is closed.")
    }

    mutating func align(_ alignment: Int) throws(DBusError) {
        let remainder = position % alignment
        guard remainder != 0 else { return }
        let next = position + alignment - remainder
        guard next <= end else { throw Self.malformed("padding runs past the end") }
        for index in position..<next where bytes[index] != 0 {
            throw Self.malformed("a padding byte is not zero")
        }
        position = next
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(DBusError) -> T {
        let size = MemoryLayout<T>.size
        try align(size)
        guard end - position >= size else { throw Self.malformed("a value runs past the end") }
        var value: T = 0
        for index in 0..<size {
            let byte = T(truncatingIfNeeded: bytes[position + index])
            value |= isBigEndian ? byte << ((size - 1 - index) * 8) : byte << (index * 8)
        }
        position += size
        return value
    }

    mutating func readByte() throws(DBusError) -> UInt8 {
        guard position < end else { throw Self.malformed("a value runs past the end") }
        defer { position += 1 }
        return bytes[position]
    }

    /// The types of a whole body, one after the other, which must use exactly the bytes up to `end`.
    mutating func readBody(signature: String) throws(DBusError) -> [DBusValue] {
        let types: [DBusType]
        do {
            types = try DBusType.parse(signature)
        } catch {
            throw Self.malformed("bad body signature: \(error.message)")
        }
        var values: [DBusValue] = []
        for type in types {
            values.append(try read(type, depth: 0))
        }
        guard position == end else {
            throw Self.malformed("the body is longer than its signature says")
        }
        return values
    }

    mutating func read(_ type: DBusType, depth: Int) throws(DBusError) -> DBusValue {
        guard depth <= DBusType.maximumDepth else {
            throw Self.malformed("values are nested more than 64 deep")
        }
        switch type {
        case .byte: return .byte(try readByte())
        case .bool:
            let raw = try read(UInt32.self)
            guard raw <= 1 else { throw Self.malformed("a boolean is \(raw), not 0 or 1") }
            return .bool(raw == 1)
        case .int16: return .int16(try read(Int16.self))
        case .uint16: return .uint16(try read(UInt16.self))
        case .int32: return .int32(try read(Int32.self))
        case .uint32: return .uint32(try read(UInt32.self))
        case .int64: return .int64(try read(Int64.self))
        case .uint64: return .uint64(try read(UInt64.self))
        case .double: return .double(Double(bitPattern: try read(UInt64.self)))
        case .string: return .string(try readString())
        case .objectPath:
            let path = try readString()
            guard DBusValidation.isObjectPath(path) else {
                throw Self.malformed("an object path is not valid")
            }
            return .objectPath(path)
        case .signature:
            let text = try readSignature()
            do {
                _ = try DBusType.parse(text)
            } catch {
                throw Self.malformed("a signature value is not valid")
            }
            return .signature(text)
        case .unixFD:
            let index = try read(UInt32.self)
            guard Int(index) < fdCount else {
                throw Self.malformed("fd index \(index) but \(fdCount) fds came")
            }
            return .unixFD(index)
        case .array(let elementType):
            let length = Int(try read(UInt32.self))
            guard length <= DBusMarshal.maximumArrayLength else {
                throw Self.malformed("an array of \(length) bytes is over the 64 MiB limit")
            }
            try align(elementType.alignment)
            guard end - position >= length else { throw Self.malformed("an array runs past the end") }
            let arrayEnd = position + length
            let outerEnd = end
            end = arrayEnd
            var elements: [DBusValue] = []
            while position < arrayEnd {
                elements.append(try read(elementType, depth: depth + 1))
            }
            end = outerEnd
            return .array(elementType.signature, elements)
        case .dictEntry(let keyType, let valueType):
            try align(8)
            let key = try read(keyType, depth: depth + 1)
            let value = try read(valueType, depth: depth + 1)
            return .dictEntry(key, value)
        case .structure(let fieldTypes):
            try align(8)
            var fields: [DBusValue] = []
            for fieldType in fieldTypes {
                fields.append(try read(fieldType, depth: depth + 1))
            }
            return .structure(fields)
        case .variant:
            let text = try readSignature()
            let innerType: DBusType
            do {
                innerType = try DBusType.parseSingle(text)
            } catch {
                throw Self.malformed("a variant's signature \"\(text)\" is not one complete type")
            }
            return .variant(try read(innerType, depth: depth + 1))
        }
    }

    /// A string: a 32-bit length, UTF-8 without NUL, then a NUL.
    mutating func readString() throws(DBusError) -> String {
        let length = Int(try read(UInt32.self))
        guard length < end - position else { throw Self.malformed("a string runs past the end") }
        let text = try validatedText(position..<position + length)
        position += length + 1
        return text
    }

    /// A signature: an 8-bit length, ASCII, then a NUL (its grammar is checked by the caller).
    mutating func readSignature() throws(DBusError) -> String {
        let length = Int(try readByte())
        guard length < end - position else { throw Self.malformed("a signature runs past the end") }
        let text = try validatedText(position..<position + length)
        position += length + 1
        return text
    }

    private func validatedText(_ range: Range<Int>) throws(DBusError) -> String {
        guard bytes[range.upperBound] == 0 else {
            throw Self.malformed("a string is not NUL-terminated")
        }
        let slice = bytes[range]
        guard !slice.contains(0) else { throw Self.malformed("a string contains a NUL byte") }
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw Self.malformed("a string is not valid UTF-8")
        }
        return text
    }
}
