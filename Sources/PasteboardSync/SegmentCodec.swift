import FoundationEssentials

/// The binary form of a segment's operations (see docs/sync.md): compact, so that an operation costs a few dozen
/// bytes beyond its payload. The segment's device is implied (every operation in a segment is its device's own), and
/// content types are numbered in a table in the segment header.
///
/// ```
/// operation  = kind(u8) wall(varint, ms) counter(varint) body
/// clear      = keepsPinned(u8)
/// pin, unpin, delete = identity(16 bytes)
/// copy       = identity(16) source(varint length+1, 0 = none; UTF-8) count(varint) representation*
/// representation = type(varint index into the table) size(varint) storage(u8: 0 inline, 1 file) bytes(size) | name(32)
/// ```
enum SegmentCodec {
    static let kinds: [SyncOperation.Kind] = [.copy, .pin, .unpin, .delete, .clear]

    /// Encodes `operations` (all made by `device`); returns the type table and the bytes. Built in an array of
    /// bytes, not in `Data`, whose every append checks its representation: a joining device encodes each of
    /// millions of records again for its sync state, and a snapshot holds every item.
    static func encode(_ operations: [SyncOperation]) -> (types: [String], bytes: Data) {
        var types: [String] = []
        var typeIndex: [String: Int] = [:]
        var out: [UInt8] = []
        out.reserveCapacity(operations.count * 64)
        for operation in operations {
            out.append(UInt8(kinds.firstIndex(of: operation.kind)!))  // every kind is in the table
            appendVarint(&out, operation.clock.milliseconds)
            appendVarint(&out, UInt64(operation.clock.counter))
            if operation.kind == .clear {
                out.append(operation.keepsPinned == true ? 1 : 0)
                continue
            }
            out.append(contentsOf: operation.identityBytes ?? Data(count: 16))
            guard operation.kind == .copy else { continue }
            if let source = operation.source {
                appendVarint(&out, UInt64(source.utf8.count + 1))
                out.append(contentsOf: source.utf8)
            } else {
                appendVarint(&out, 0)
            }
            let representations = operation.representations ?? []
            appendVarint(&out, UInt64(representations.count))
            for representation in representations {
                let index: Int
                if let known = typeIndex[representation.type] {
                    index = known
                } else {
                    index = types.count
                    typeIndex[representation.type] = index
                    types.append(representation.type)
                }
                appendVarint(&out, UInt64(index))
                appendVarint(&out, UInt64(representation.size))
                if let inline = representation.inline {
                    out.append(0)
                    out.append(contentsOf: inline)
                } else {
                    out.append(1)
                    out.append(contentsOf: Hex.decode(representation.payload ?? "") ?? Data(count: KeyedHash.byteCount))
                }
            }
        }
        return (types, Data(out))
    }

    /// Decodes `count` operations made by `device`; nil when the bytes are malformed in any way.
    static func decode(_ data: Data, count: Int, types: [String], device: DeviceID) -> [SyncOperation]? {
        var reader = Reader(bytes: [UInt8](data))
        var operations: [SyncOperation] = []
        for _ in 0..<count {
            guard let operation = decodeOperation(&reader, types: types, device: device) else { return nil }
            operations.append(operation)
        }
        return reader.isAtEnd ? operations : nil
    }

    /// Decodes the next operation from `reader`; nil when it is malformed or the bytes end first (`reader.ranOut`).
    static func decodeOperation(_ reader: inout Reader, types: [String], device: DeviceID) -> SyncOperation? {
        guard let kindByte = reader.byte(), Int(kindByte) < kinds.count, let wall = reader.varint(),
            let counter = reader.varint(), counter <= UInt64(UInt32.max), wall < 1 << 48
        else { return nil }
        let clock = HybridClock(milliseconds: wall, counter: UInt32(counter), device: device)
        let kind = kinds[Int(kindByte)]
        if kind == .clear {
            guard let flag = reader.byte(), flag <= 1 else { return nil }
            return SyncOperation(kind: .clear, clock: clock, keepsPinned: flag == 1)
        }
        guard let identity = reader.bytes(16) else { return nil }
        var operation = SyncOperation(kind: kind, clock: clock, identity: Hex.encode(identity))
        guard kind == .copy else { return operation }
        guard let sourceLength = reader.varint(), sourceLength <= 4096 else { return nil }
        if sourceLength > 0 {
            guard let bytes = reader.bytes(Int(sourceLength) - 1), let source = String(bytes: bytes, encoding: .utf8) else {
                return nil
            }
            operation.source = source
        }
        guard let representationCount = reader.varint(), representationCount <= 64 else { return nil }
        var representations: [SyncOperation.Representation] = []
        for _ in 0..<representationCount {
            guard let index = reader.varint(), index < UInt64(types.count), let size = reader.varint(),
                size <= UInt64(SyncFolder.maxPayloadBytes), let storage = reader.byte()
            else { return nil }
            switch storage {
            case 0:
                guard size <= UInt64(SyncOperation.Representation.inlineLimit), let bytes = reader.bytes(Int(size)) else {
                    return nil
                }
                representations.append(.init(type: types[Int(index)], payload: nil, size: Int(size), inline: bytes))
            case 1:
                guard let name = reader.bytes(KeyedHash.byteCount) else { return nil }
                representations.append(.init(type: types[Int(index)], payload: Hex.encode(name), size: Int(size)))
            default:
                return nil
            }
        }
        operation.representations = representations
        return operation
    }

    static func appendVarint(_ out: inout some RangeReplaceableCollection<UInt8>, _ value: UInt64) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0
        /// Where the bytes end for this reader (`bytes.count` unless a reader is limited to a part).
        var end: Int
        /// Set when a read failed because the bytes ended (rather than because they were wrong).
        var ranOut = false

        init(bytes: [UInt8], offset: Int = 0, end: Int? = nil) {
            self.bytes = bytes
            self.offset = offset
            self.end = min(end ?? bytes.count, bytes.count)
        }

        var isAtEnd: Bool { offset == end }

        mutating func byte() -> UInt8? {
            guard offset < end else {
                ranOut = true
                return nil
            }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int) -> Data? {
            guard count >= 0 else { return nil }
            guard end - offset >= count else {
                ranOut = true
                return nil
            }
            defer { offset += count }
            return Data(bytes[offset..<offset + count])
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while shift < 64 {
                guard let byte = byte() else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
    }
}

/// Operations of several devices in one self-describing run of bytes: a snapshot's body, and the record of a copy
/// kept in the sync state. Each group is one device's operations in the segment form above, with its own type table:
///
/// ```
/// groups = count(varint) group*
/// group  = device(16 ASCII hex digits) types(varint) { length(varint) UTF-8 }* operations(varint) length(varint) bytes
/// ```
extension SegmentCodec {
    /// Encodes `operations`, grouped by the device of their clocks (each group keeps their order).
    static func encodeGroups(_ operations: [SyncOperation]) -> Data {
        var out = Data()
        appendVarint(&out, UInt64(groupCount(operations)))
        appendGroups(operations, to: &out)
        return out
    }

    /// Appends the groups of `operations` (one per device of their clocks, each keeping their order) without the
    /// count before them; returns how many it appended. A body written a window at a time (a snapshot) is its
    /// groups' count, then each window's groups: one device may have a group in several windows.
    @discardableResult
    static func appendGroups(_ operations: [SyncOperation], to out: inout Data) -> Int {
        var order: [DeviceID] = []
        var groups: [DeviceID: [SyncOperation]] = [:]
        for operation in operations {
            let device = operation.clock.device
            if groups[device] == nil { order.append(device) }
            groups[device, default: []].append(operation)
        }
        for device in order {
            let group = groups[device]!  // every device in `order` has a group
            let (types, bytes) = encode(group)
            out.append(contentsOf: Array(device.rawValue.utf8))
            appendVarint(&out, UInt64(types.count))
            for type in types {
                let utf8 = Array(type.utf8)
                appendVarint(&out, UInt64(utf8.count))
                out.append(contentsOf: utf8)
            }
            appendVarint(&out, UInt64(group.count))
            appendVarint(&out, UInt64(bytes.count))
            out.append(bytes)
        }
        return order.count
    }

    /// How many groups `appendGroups` makes of `operations`.
    static func groupCount(_ operations: [SyncOperation]) -> Int { Set(operations.map(\.clock.device)).count }

    /// One group's header: its device, its types, how many operations follow and in how many bytes (at most
    /// `bodyLimit`); nil when malformed or cut short.
    static func groupHeader(_ reader: inout Reader, bodyLimit: Int)
        -> (device: DeviceID, types: [String], operations: UInt64, bytes: Int)?
    {
        guard let deviceBytes = reader.bytes(16), let device = DeviceID(rawValue: String(decoding: deviceBytes, as: UTF8.self)),
            let typeCount = reader.varint(), typeCount <= 4096
        else { return nil }
        var types: [String] = []
        for _ in 0..<typeCount {
            guard let length = reader.varint(), length > 0, length < 256, let bytes = reader.bytes(Int(length)),
                let type = String(bytes: bytes, encoding: .utf8)
            else { return nil }
            types.append(type)
        }
        guard let count = reader.varint(), let length = reader.varint(), length <= UInt64(bodyLimit), count <= length
        else { return nil }
        return (device, types, count, Int(length))
    }

    /// Decodes what `encodeGroups` made; nil when anything is malformed.
    static func decodeGroups(_ data: Data) -> [SyncOperation]? {
        var reader = Reader(bytes: [UInt8](data))
        guard let groupCount = reader.varint(), groupCount <= 1 << 20 else { return nil }
        var operations: [SyncOperation] = []
        for _ in 0..<groupCount {
            guard let header = groupHeader(&reader, bodyLimit: data.count), let body = reader.bytes(header.bytes),
                let decoded = decode(body, count: Int(header.operations), types: header.types, device: header.device)
            else { return nil }
            operations += decoded
        }
        return reader.isAtEnd ? operations : nil
    }
}

/// Decodes groups (`SegmentCodec.encodeGroups`) as their bytes come, a message at a time: what is held is the
/// part of a message not decoded yet, never the whole body. A snapshot's body is read this way.
struct GroupStreamDecoder {
    private var buffer: [UInt8] = []
    private var offset = 0
    private var groupsLeft: UInt64?
    private var group: (device: DeviceID, types: [String], operationsLeft: UInt64, bytesLeft: Int)?

    /// Takes the next bytes; returns the operations now complete, or nil when the bytes are malformed.
    mutating func feed(_ data: Data) -> [SyncOperation]? {
        buffer.append(contentsOf: data)
        return drain(final: false)
    }

    /// At the end of the bytes: the last operations, or nil when anything is missing or left over.
    mutating func finish() -> [SyncOperation]? { drain(final: true) }

    private mutating func drain(final: Bool) -> [SyncOperation]? {
        var out: [SyncOperation] = []
        while true {
            guard let left = groupsLeft else {
                var reader = SegmentCodec.Reader(bytes: buffer, offset: offset)
                guard let count = reader.varint(), count <= 1 << 20 else {
                    if reader.ranOut && !final { break }
                    return nil
                }
                groupsLeft = count
                offset = reader.offset
                continue
            }
            if let current = group {
                if current.operationsLeft == 0 {
                    guard current.bytesLeft == 0 else { return nil }
                    group = nil
                    continue
                }
                let available = min(current.bytesLeft, buffer.count - offset)
                var reader = SegmentCodec.Reader(bytes: buffer, offset: offset, end: offset + available)
                guard let operation = SegmentCodec.decodeOperation(&reader, types: current.types, device: current.device) else {
                    if reader.ranOut && available < current.bytesLeft && !final { break }
                    return nil
                }
                group = (current.device, current.types, current.operationsLeft - 1, current.bytesLeft - (reader.offset - offset))
                offset = reader.offset
                out.append(operation)
                continue
            }
            if left == 0 { break }
            var reader = SegmentCodec.Reader(bytes: buffer, offset: offset)
            guard let header = SegmentCodec.groupHeader(&reader, bodyLimit: SyncFolder.maxSnapshotBytes) else {
                if reader.ranOut && !final { break }
                return nil
            }
            group = (header.device, header.types, header.operations, header.bytes)
            groupsLeft = left - 1
            offset = reader.offset
        }
        if offset >= 1 << 20 {
            buffer.removeFirst(offset)
            offset = 0
        }
        if final { guard groupsLeft == 0, group == nil, offset == buffer.count else { return nil } }
        return out
    }
}
