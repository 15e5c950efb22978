import Testing

@testable import DBusWire

/// The wire format without a bus: alignment, both endiannesses, the limits.
@Suite struct DBusWireFormatTests {
    @Test func anEmptyArrayStillPadsToItsElementAlignment() throws {
        var marshal = DBusMarshal(fdCount: 0)
        try marshal.append([.byte(7), .array("(ii)", [])], signature: "ya(ii)")
        // byte, 3 bytes of padding, length 0, 4 bytes of padding to the structures' 8-byte boundary... which is
        // already there at offset 8: 8 bytes.
        #expect(marshal.bytes == [7, 0, 0, 0, 0, 0, 0, 0])
        var second = DBusMarshal(fdCount: 0)
        try second.append([.array("x", [])], signature: "ax")
        #expect(second.bytes == [0, 0, 0, 0, 0, 0, 0, 0])
        var third = DBusMarshal(fdCount: 0)
        try third.append([.array("x", [.int64(1)])], signature: "ax")
        // The length counts the element only, not the padding before it.
        #expect(third.bytes == [8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func structuresAndDictEntriesAlignToEight() throws {
        var marshal = DBusMarshal(fdCount: 0)
        try marshal.append(
            [.byte(1), .structure([.byte(2)]), .array("{yy}", [.dictEntry(.byte(3), .byte(4))])],
            signature: "y(y)a{yy}")
        #expect(marshal.bytes == [1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 4])
    }

    @Test func aBigEndianMessageIsRead() throws {
        var bytes: [UInt8] = []
        func pad(_ alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }
        func uint32(_ value: UInt32) {
            pad(4)
            bytes += [
                UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff),
                UInt8(value & 0xff),
            ]
        }
        func string(_ text: String) {
            uint32(UInt32(text.utf8.count))
            bytes += Array(text.utf8) + [0]
        }
        func field(_ code: UInt8, _ signature: String, _ write: () -> Void) {
            pad(8)
            bytes += [code, 1] + Array(signature.utf8) + [0]
            write()
        }
        bytes += [UInt8(ascii: "B"), 4, 0, 1]
        uint32(16)  // body length
        uint32(9)  // serial
        uint32(0)  // fields length, patched below
        let fieldsStart = bytes.count
        field(1, "o") { string("/a/b") }
        field(2, "s") { string("org.example.I") }
        field(3, "s") { string("Changed") }
        field(8, "g") { bytes += [3] + Array("qut".utf8) + [0] }
        let fieldsLength = bytes.count - fieldsStart
        bytes[12...15] = [0, 0, 0, UInt8(fieldsLength)][...]
        pad(8)
        bytes += [0x12, 0x34, 0, 0]  // q, then padding to 4
        uint32(0xdead_beef)
        bytes += [0, 0, 0, 0, 0, 0, 0, 42]  // t at offset 8 of the body
        var fds: [Int32] = []
        let message = try #require(try DBusMessage.decode(bytes, takingFDs: &fds))
        #expect(message.kind == .signal)
        #expect(message.serial == 9)
        #expect(message.path == "/a/b")
        #expect(message.member == "Changed")
        #expect(message.body == [.uint16(0x1234), .uint32(0xdead_beef), .uint64(42)])
    }

    @Test func aMessageRoundTrips() throws {
        var message = DBusMessage(
            kind: .methodCall, path: "/org/pasteboard/Shell", interface: "org.pasteboard.Shell1",
            member: "ReadType",
            destination: "org.pasteboard.Shell", signature: "sushth",
            body: [
                .string("CLIPBOARD"), .uint32(3), .string("image/png"), .unixFD(0), .uint64(1 << 24),
                .unixFD(1),
            ],
            fds: [5, 6])
        message.serial = 12
        let bytes = try message.encoded()
        var fds: [Int32] = [5, 6, 7]
        let decoded = try #require(try DBusMessage.decode(bytes, takingFDs: &fds))
        #expect(decoded.body == message.body)
        #expect(decoded.fds == [5, 6])
        #expect(fds == [7])
        #expect(decoded.destination == "org.pasteboard.Shell")
    }

    @Test(arguments: [
        ("a" + String(repeating: "a", count: 32) + "y", "arrays are nested more than 32 deep"),
        (
            String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33),
            "structures are nested"
        ),
        ("a{vs}", "a dictionary key must be a basic type"),
        ("{ss}", "only be an array's element"),
        ("()", "at least one field"),
        ("(ss", "not closed"),
        ("z", "not a type code"),
        ("a", "ends inside a type"),
    ])
    func badSignaturesAreRefused(signature: String, why: String) {
        let error = #expect(throws: DBusError.self) { _ = try DBusType.parse(signature) }
        #expect(error?.message.contains(why) == true, "\(String(describing: error))")
    }

    @Test func valuesThatDoNotMatchTheSignatureAreRefused() {
        var marshal = DBusMarshal(fdCount: 0)
        #expect(throws: DBusError.self) { try marshal.append([.string("x")], signature: "u") }
        #expect(throws: DBusError.self) { try marshal.append([.unixFD(0)], signature: "h") }
        #expect(throws: DBusError.self) {
            try marshal.append([.objectPath("no/slash")], signature: "o")
        }
        #expect(throws: DBusError.self) {
            try marshal.append([.array("s", [.uint32(1)])], signature: "as")
        }
        var deep: DBusValue = .byte(0)
        for _ in 0..<70 { deep = .variant(deep) }
        #expect(throws: DBusError.self) { try marshal.append([deep], signature: "v") }
    }

    @Test func addressesNameTheirSockets() throws {
        let address = try DBusAddress(
            "tcp:host=x,port=1;unix:abstract=/tmp/dbus-AbC,guid=0123;unix:path=/run/user/1000/b%20us")
        #expect(address.sockets == [.abstract("/tmp/dbus-AbC"), .path("/run/user/1000/b us")])
        #expect(throws: DBusError.self) { try DBusAddress("tcp:host=localhost,port=1") }
        #expect(throws: DBusError.self) { try DBusAddress("nonsense") }
    }
}
