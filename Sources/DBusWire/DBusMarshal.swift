/// Writes values in the D-Bus wire format, little-endian, aligned from the start of `bytes` (which is where a
/// message, or its 8-aligned body, starts).
struct DBusMarshal {
    private(set) var bytes: [UInt8] = []
    /// How many fds the message carries: a `.unixFD` index must be below it.
    let fdCount: Int

    /// The largest array the library writes, as it accepts: 64 MiB (the specification allows 64 MiB too).
    static let maximumArrayLength = 64 << 20

    init(fdCount: Int) {
        self.fdCount = fdCount
    }

    mutating func pad(to alignment: Int) {
        let remainder = bytes.count % alignment
        if remainder != 0 { bytes.append(contentsOf: repeatElement(0, count: alignment - remainder)) }
    }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        pad(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes `values` as the types of `signature`.
    mutating func append(_ values: [DBusValue], signature: String) throws(DBusError) {
        let types = try DBusType.parse(signature)
        guard types.count == values.count else {
            throw DBusError(
                .invalidArgument,
                "The D-Bus signature \"\(signature)\" has \(types.count) types but \(values.count) values were given."
            )
        }
        for (value, type) in zip(values, types) {
            try append(value, as: type, depth: 0)
        }
    }

    mutating func append(_ value: DBusValue, as type: DBusType, depth: Int) throws(DBusError) {
        guard depth <= DBusType.maximumDepth else {
            throw DBusError(.invalidArgument, "A D-Bus value is nested more than 64 deep.")
        }
        switch (type, value) {
        case (.byte, .byte(let value)): bytes.append(value)
        case (.bool, .bool(let value)): append(UInt32(value ? 1 : 0))
        case (.int16, .int16(let value)): append(value)
        case (.uint16, .uint16(let value)): append(value)
        case (.int32, .int32(let value)): append(value)
        case (.uint32, .uint32(let value)): append(value)
        case (.int64, .int64(let value)): append(value)
        case (.uint64, .uint64(let value)): append(value)
        case (.double, .double(let value)): append(value.bitPattern)
        case (.string, .string(let text)): try appendString(text)
        case (.objectPath, .objectPath(let path)):
            guard DBusValidation.isObjectPath(path) else {
                throw DBusError(
                    .invalidArgument, "\"\(path)\" is not a D-Bus object path (\"/org/example/Object\").")
            }
            try appendString(path)
        case (.signature, .signature(let text)):
            _ = try DBusType.parse(text)
            appendSignature(text)
        case (.unixFD, .unixFD(let index)):
            guard Int(index) < fdCount else {
                throw DBusError(
                    .invalidArgument, "The fd index \(index) is beyond the message's \(fdCount) fds.")
            }
            append(index)
        case (.array(let elementType), .array(let elementSignature, let elements)):
            guard elementSignature == elementType.signature else {
                throw mismatch(value, type)
            }
            pad(to: 4)
            let lengthOffset = bytes.count
            append(UInt32(0))
            pad(to: elementType.alignment)
            let start = bytes.count
            for element in elements {
                try append(element, as: elementType, depth: depth + 1)
            }
            let length = bytes.count - start
            guard length <= Self.maximumArrayLength else {
                throw DBusError(
                    .invalidArgument, "A D-Bus array of \(length) bytes is over the 64 MiB limit.")
            }
            withUnsafeBytes(of: UInt32(length).littleEndian) { lengthBytes in
                bytes.replaceSubrange(lengthOffset..<lengthOffset + 4, with: lengthBytes)
            }
        case (.dictEntry(let keyType, let valueType), .dictEntry(let key, let entryValue)):
            pad(to: 8)
            try append(key, as: keyType, depth: depth + 1)
            try append(entryValue, as: valueType, depth: depth + 1)
        case (.structure(let fieldTypes), .structure(let fields)):
            guard fieldTypes.count == fields.count else { throw mismatch(value, type) }
            pad(to: 8)
            for (field, fieldType) in zip(fields, fieldTypes) {
                try append(field, as: fieldType, depth: depth + 1)
            }
        case (.variant, .variant(let inner)):
            let innerSignature = inner.signature
            let innerType = try DBusType.parseSingle(innerSignature)
            appendSignature(innerSignature)
            try append(inner, as: innerType, depth: depth + 1)
        default:
            throw mismatch(value, type)
        }
    }

    private func mismatch(_ value: DBusValue, _ type: DBusType) -> DBusError {
        DBusError(
            .invalidArgument,
            "A D-Bus value of signature \"\(value.signature)\" was given"
                + " where the signature says \"\(type.signature)\"."
        )
    }

    private mutating func appendString(_ text: String) throws(DBusError) {
        let utf8 = Array(text.utf8)
        guard !utf8.contains(0) else {
            throw DBusError(.invalidArgument, "A D-Bus string may not contain a NUL character.")
        }
        append(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// A signature: its length in one byte, then the text and a NUL (already checked: at most 255 bytes).
    private mutating func appendSignature(_ text: String) {
        let utf8 = Array(text.utf8)
        bytes.append(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }
}
