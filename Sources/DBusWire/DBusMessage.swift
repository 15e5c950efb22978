#if canImport(Glibc)
    import Glibc
#endif

/// One D-Bus message: a method call, a method return, an error or a signal.
///
/// File descriptors: a received message's `fds` are open descriptors that the connection no longer owns; whoever
/// takes the message (a reply handler, `onMethodCall`, `onSignal`, the caller of `callAndWait`) must close them or
/// hand them on. The connection closes them only for messages nobody receives (a reply after its call timed out, a
/// method call it answers itself). For a message to send, `fds` are the caller's: the connection duplicates them,
/// so the caller may close its own at once.
public struct DBusMessage: Sendable {
    public enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn, error, signal
    }

    /// Header flag: the caller wants no reply.
    public static let noReplyExpected: UInt8 = 0x1
    /// Header flag: the bus must not start a service for the destination.
    public static let noAutoStart: UInt8 = 0x2

    public var kind: Kind
    public var flags: UInt8
    /// Set by the connection when it sends the message; the bus or the peer's for a received one.
    public var serial: UInt32
    public var replySerial: UInt32?
    public var path: String?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    public var destination: String?
    /// The sender's unique name, stamped by the bus (no client can forge it).
    public var sender: String?
    public var signature: String
    public var body: [DBusValue]
    /// See the type's documentation for who closes these.
    public var fds: [Int32]

    public init(
        kind: Kind, flags: UInt8 = 0, serial: UInt32 = 0, replySerial: UInt32? = nil,
        path: String? = nil,
        interface: String? = nil, member: String? = nil, errorName: String? = nil,
        destination: String? = nil,
        sender: String? = nil, signature: String = "", body: [DBusValue] = [], fds: [Int32] = []
    ) {
        self.kind = kind
        self.flags = flags
        self.serial = serial
        self.replySerial = replySerial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.destination = destination
        self.sender = sender
        self.signature = signature
        self.body = body
        self.fds = fds
    }

    /// The text of an error reply: its first argument when that is a string.
    public var errorMessage: String? { body.first?.string }

    /// True when the caller of this method call wants no reply.
    public var expectsReply: Bool { kind == .methodCall && flags & Self.noReplyExpected == 0 }
}

// MARK: - Wire format

extension DBusMessage {
    /// The largest message this library accepts or sends: 64 MiB (the specification allows 128 MiB).
    static let maximumLength = 64 << 20

    private enum Field: UInt8 {
        case path = 1
        case interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The message's bytes, little-endian, with `serial`.
    func encoded() throws(DBusError) -> [UInt8] {
        guard serial != 0 else {
            throw DBusError(.invalidArgument, "A D-Bus message needs a serial other than 0.")
        }
        var fields: [DBusValue] = []
        func field(_ code: Field, _ value: DBusValue) {
            fields.append(.structure([.byte(code.rawValue), .variant(value)]))
        }
        if let path { field(.path, .objectPath(path)) }
        if let interface {
            guard DBusValidation.isInterfaceName(interface) else {
                throw Self.invalid("interface name", interface)
            }
            field(.interface, .string(interface))
        }
        if let member {
            guard DBusValidation.isMemberName(member) else { throw Self.invalid("member name", member) }
            field(.member, .string(member))
        }
        if let errorName {
            guard DBusValidation.isInterfaceName(errorName) else {
                throw Self.invalid("error name", errorName)
            }
            field(.errorName, .string(errorName))
        }
        if let replySerial { field(.replySerial, .uint32(replySerial)) }
        if let destination {
            guard DBusValidation.isBusName(destination) else {
                throw Self.invalid("bus name", destination)
            }
            field(.destination, .string(destination))
        }
        if let sender { field(.sender, .string(sender)) }
        if !signature.isEmpty { field(.signature, .signature(signature)) }
        if !fds.isEmpty { field(.unixFDs, .uint32(UInt32(fds.count))) }
        try checkRequiredFields()

        var body = DBusMarshal(fdCount: fds.count)
        try body.append(self.body, signature: signature)

        var message = DBusMarshal(fdCount: 0)
        message.append(UInt8(ascii: "l"))
        message.append(kind.rawValue)
        message.append(flags)
        message.append(UInt8(1))
        message.append(UInt32(body.bytes.count))
        message.append(serial)
        try message.append([.array("(yv)", fields)], signature: "a(yv)")
        message.pad(to: 8)
        var bytes = message.bytes
        bytes.append(contentsOf: body.bytes)
        guard bytes.count <= Self.maximumLength else {
            throw DBusError(
                .invalidArgument,
                "A D-Bus message of \(bytes.count) bytes is over the 64 MiB limit; send large data through an fd."
            )
        }
        return bytes
    }

    private static func invalid(_ what: String, _ text: String) -> DBusError {
        DBusError(.invalidArgument, "\"\(text)\" is not a valid D-Bus \(what).")
    }

    private func checkRequiredFields() throws(DBusError) {
        let missing: String? =
            switch kind {
            case .methodCall: path == nil ? "a path" : member == nil ? "a member" : nil
            case .signal:
                path == nil
                    ? "a path" : interface == nil ? "an interface" : member == nil ? "a member" : nil
            case .methodReturn: replySerial == nil ? "a reply serial" : nil
            case .error: replySerial == nil ? "a reply serial" : errorName == nil ? "an error name" : nil
            }
        if let missing {
            throw DBusError(.invalidArgument, "A D-Bus \(kind) message needs \(missing).")
        }
    }

    /// The whole length of the message that starts with these 16 bytes, checked against the limits.
    static func length(ofMessageStartingWith bytes: ArraySlice<UInt8>) throws(DBusError) -> Int {
        precondition(bytes.count >= 16, "the caller waits for the fixed part of the header")
        let start = bytes.startIndex
        let isBigEndian: Bool
        switch bytes[start] {
        case UInt8(ascii: "l"): isBigEndian = false
        case UInt8(ascii: "B"): isBigEndian = true
        default: throw DBusUnmarshal.malformed("the endianness byte is \(bytes[start])")
        }
        guard bytes[start + 3] == 1 else {
            throw DBusUnmarshal.malformed("protocol version \(bytes[start + 3])")
        }
        func uint32(at offset: Int) -> Int {
            var value = 0
            for index in 0..<4 {
                let byte = Int(bytes[start + offset + index])
                value |= isBigEndian ? byte << ((3 - index) * 8) : byte << (index * 8)
            }
            return value
        }
        let bodyLength = uint32(at: 4)
        let fieldsLength = uint32(at: 12)
        let headerLength = (16 + fieldsLength + 7) & ~7
        let total = headerLength + bodyLength
        guard total <= maximumLength else {
            throw DBusUnmarshal.malformed("a message of \(total) bytes is over the 64 MiB limit")
        }
        return total
    }

    /// The message in `bytes` (exactly one whole message), with the fds that came for it; nil for a message type
    /// this version of D-Bus does not know (the specification says to ignore it).
    static func decode(_ bytes: [UInt8], takingFDs available: inout [Int32]) throws(DBusError)
        -> DBusMessage?
    {
        let total = try length(ofMessageStartingWith: bytes[...])
        guard total == bytes.count else {
            throw DBusUnmarshal.malformed("the message length is inconsistent")
        }
        let isBigEndian = bytes[0] == UInt8(ascii: "B")
        var reader = DBusUnmarshal(
            bytes: bytes, isBigEndian: isBigEndian, fdCount: 0, position: 4, end: bytes.count)
        let bodyLength = Int(try reader.read(UInt32.self))
        let serial = try reader.read(UInt32.self)
        guard serial != 0 else { throw DBusUnmarshal.malformed("serial 0") }
        let headerFields = try reader.read(.array(.structure([.byte, .variant])), depth: 0)
        try reader.align(8)
        guard reader.position + bodyLength == bytes.count else {
            throw DBusUnmarshal.malformed("the body length is inconsistent")
        }

        var message = DBusMessage(kind: .methodCall, flags: bytes[2], serial: serial)
        var fdCount = 0
        for entry in headerFields.arrayElements ?? [] {
            guard case .structure(let parts) = entry, case .byte(let code) = parts[0],
                case .variant(let value) = parts[1]
            else { throw DBusUnmarshal.malformed("a header field is not (yv)") }
            guard let field = Field(rawValue: code) else { continue }  // unknown fields are ignored
            switch (field, value) {
            case (.path, .objectPath(let text)): message.path = text
            case (.interface, .string(let text)) where DBusValidation.isInterfaceName(text):
                message.interface = text
            case (.member, .string(let text)) where DBusValidation.isMemberName(text):
                message.member = text
            case (.errorName, .string(let text)) where DBusValidation.isInterfaceName(text):
                message.errorName = text
            case (.replySerial, .uint32(let number)) where number != 0: message.replySerial = number
            case (.destination, .string(let text)): message.destination = text
            case (.sender, .string(let text)): message.sender = text
            case (.signature, .signature(let text)): message.signature = text
            case (.unixFDs, .uint32(let count)): fdCount = Int(count)
            default: throw DBusUnmarshal.malformed("header field \(code) has a wrong type or value")
            }
        }
        guard fdCount <= available.count else {
            throw DBusUnmarshal.malformed("the message names \(fdCount) fds but \(available.count) came")
        }
        var body = DBusUnmarshal(
            bytes: bytes, isBigEndian: isBigEndian, fdCount: fdCount, position: reader.position,
            end: bytes.count)
        do {
            message.body = try body.readBody(signature: message.signature)
        } catch {
            throw error.code == .malformed ? error : DBusUnmarshal.malformed(error.message)
        }
        let fds = Array(available.prefix(fdCount))
        available.removeFirst(fdCount)
        guard let kind = Kind(rawValue: bytes[1]) else {
            for descriptor in fds { _ = Glibc.close(descriptor) }
            return nil
        }
        message.kind = kind
        message.fds = fds
        do {
            try message.checkRequiredFields()
        } catch {
            for descriptor in fds { _ = Glibc.close(descriptor) }
            throw DBusUnmarshal.malformed(error.message)
        }
        return message
    }
}
