import DBusWire
import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// DBusWire against a real, private dbus-daemon: names, calls both ways with every type, fds, errors, signals,
/// timeouts.
@Suite struct DBusConnectionTests {
    let bus: PrivateBus

    init() throws {
        bus = try PrivateBus()
    }

    static let service = "org.pasteboard.Test"
    static let path = "/org/pasteboard/Test"
    static let interface = "org.pasteboard.Test1"

    /// A connection that owns `service` and answers `Echo` with its arguments and `Fail` with an error.
    func makeServer() throws -> DBusConnection {
        let server = try DBusConnection(address: bus.address)
        #expect(
            try server.requestName(Self.service, flags: DBusConnection.doNotQueue)
                == DBusConnection.primaryOwner)
        server.onMethodCall = { [unowned server] call in
            do {
                switch call.member {
                case "Echo":
                    try server.reply(to: call, signature: call.signature, body: call.body)
                case "Fail":
                    try server.replyError(
                        to: call, name: "org.pasteboard.Test1.Error.Stale", message: "it changed")
                default:
                    try server.replyError(
                        to: call, name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no")
                }
            } catch {
                Issue.record("the server could not reply: \(error)")
            }
        }
        return server
    }

    @Test(arguments: [PrivateBus.Listen.path, .abstract])
    func helloGivesAUniqueName(listen: PrivateBus.Listen) throws {
        let bus = listen == .path ? self.bus : try PrivateBus(listen: listen)
        #expect(bus.address.hasPrefix(listen == .path ? "unix:path=" : "unix:abstract="))
        let first = try DBusConnection(address: bus.address)
        let second = try DBusConnection(address: bus.address)
        #expect(first.uniqueName.hasPrefix(":1."))
        #expect(second.uniqueName.hasPrefix(":1."))
        #expect(first.uniqueName != second.uniqueName)
        #expect(first.canPassFDs)
    }

    @Test func sessionBusComesFromTheEnvironment() throws {
        let connection = try DBusConnection.sessionBus(environment: [
            "DBUS_SESSION_BUS_ADDRESS": bus.address
        ])
        #expect(connection.uniqueName.hasPrefix(":"))
        let error = #expect(throws: DBusError.self) { try DBusConnection.sessionBus(environment: [:]) }
        #expect(error?.message.contains("DBUS_SESSION_BUS_ADDRESS") == true)
        let missing = #expect(throws: DBusError.self) {
            try DBusConnection(
                address: "unix:path=\(bus.directory.path)/none;unix:abstract=nothing-\(UUID())")
        }
        #expect(missing?.code == .cannotConnect)
    }

    @Test func namesAreRequestedAndLookedUp() throws {
        let server = try makeServer()
        let other = try DBusConnection(address: bus.address)
        #expect(try other.getNameOwner(Self.service) == server.uniqueName)
        #expect(try other.getNameOwner("org.pasteboard.Nobody") == nil)
        #expect(
            try other.requestName(Self.service, flags: DBusConnection.doNotQueue) == DBusConnection.exists
        )
        #expect(try server.requestName(Self.service, flags: 0) == DBusConnection.alreadyOwner)
    }

    static let everyType: [DBusValue] = [
        .byte(0xfe), .bool(true), .int16(-12345), .uint16(54321), .int32(-2_000_000_000),
        .uint32(4_000_000_000),
        .int64(-9_000_000_000_000_000_000), .uint64(18_000_000_000_000_000_000), .double(-3.25),
        .string("Grüße, 世界 🙂"), .objectPath("/org/pasteboard/Item_7"), .signature("a{sv}(iu)"),
        .strings(["text/plain", "", "image/png"]),
        .array("ay", [.bytes([1, 2, 3]), .bytes([])]),
        .array("(ii)", []),
        .array("x", [.int64(1), .int64(-1)]),
        .structure([.byte(1), .structure([.string("nested"), .double(0.5)]), .array("(yv)", [])]),
        .vardict([
            ("size", .uint64(1 << 40)), ("names", .strings(["a", "b"])),
            ("inner", .variant(.variant(.int16(-1)))),
            ("point", .structure([.int32(3), .int32(4)])),
        ]),
        .array(
            "{uas}", [.dictEntry(.uint32(1), .strings(["x"])), .dictEntry(.uint32(2), .strings([]))]),
        .variant(.array("(sv)", [.structure([.string("k"), .variant(.bool(false))])])),
        .array("aa{sv}", [.array("a{sv}", [.vardict([("deep", .byte(9))])])]),
    ]

    @Test func everyTypeRoundTripsThroughACallAndItsReply() throws {
        let server = try makeServer()
        let client = try DBusConnection(address: bus.address)
        let signature = Self.everyType.map(\.signature).joined()
        var result: Result<DBusMessage, DBusError>?
        try client.call(
            destination: Self.service, path: Self.path, interface: Self.interface, member: "Echo",
            signature: signature, body: Self.everyType
        ) { result = $0 }
        #expect(try pump([server, client]) { result != nil })
        let reply = try #require(try result?.get())
        #expect(reply.signature == signature)
        #expect(reply.body == Self.everyType)
        #expect(reply.sender == server.uniqueName)
    }

    @Test func aPipePassedAsAnFDArrivesAndIsWritable() throws {
        let server = try DBusConnection(address: bus.address)
        var written = false
        server.onMethodCall = { [unowned server] call in
            defer { for fd in call.fds { close(fd) } }
            guard call.body.count == 2, let index = call.body[1].unixFD, Int(index) < call.fds.count
            else {
                Issue.record("no fd in \(call.body), fds \(call.fds)")
                return
            }
            let text = Array("through the pipe".utf8)
            written = write(call.fds[Int(index)], text, text.count) == text.count
            do {
                // And one back: a pipe whose read end goes with the reply.
                var back: [Int32] = [0, 0]
                #expect(pipe(&back) == 0)
                #expect(write(back[1], "reply", 5) == 5)
                close(back[1])
                try server.reply(to: call, signature: "h", body: [.unixFD(0)], fds: [back[0]])
                close(back[0])
            } catch {
                Issue.record("reply failed: \(error)")
            }
        }
        let client = try DBusConnection(address: bus.address)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var reply: DBusMessage?
        try client.call(
            destination: server.uniqueName, path: "/", interface: Self.interface, member: "ReadType",
            signature: "sh", body: [.string("text/plain"), .unixFD(0)], fds: [fds[1]]
        ) { reply = try? $0.get() }
        close(fds[1])  // the connection sent its own duplicate
        #expect(try pump([server, client]) { reply != nil })
        #expect(written)
        #expect(String(decoding: readAll(fds[0]), as: UTF8.self) == "through the pipe")
        let answer = try #require(reply)
        #expect(answer.fds.count == 1)
        #expect(String(decoding: readAll(answer.fds[0]), as: UTF8.self) == "reply")
    }

    @Test func errorRepliesCarryTheirName() throws {
        let server = try makeServer()
        let client = try DBusConnection(address: bus.address)
        var results: [String: Result<DBusMessage, DBusError>] = [:]
        for member in ["Fail", "Nothing"] {
            try client.call(
                destination: Self.service, path: Self.path, interface: Self.interface, member: member
            ) {
                results[member] = $0
            }
        }
        // A connection without onMethodCall answers UnknownMethod itself, and Ping always.
        let silent = try DBusConnection(address: bus.address)
        try client.call(
            destination: silent.uniqueName, path: "/", interface: Self.interface, member: "Echo"
        ) {
            results["silent"] = $0
        }
        try client.call(
            destination: silent.uniqueName, path: "/", interface: "org.freedesktop.DBus.Peer",
            member: "Ping"
        ) {
            results["ping"] = $0
        }
        #expect(try pump([server, client, silent]) { results.count == 4 })
        func name(_ key: String) -> String? {
            if case .failure(let error) = results[key] { return error.name }
            return nil
        }
        #expect(name("Fail") == "org.pasteboard.Test1.Error.Stale")
        if case .failure(let error) = results["Fail"] {
            #expect(error.code == .errorReply)
            #expect(error.message.contains("it changed"))
        }
        #expect(name("Nothing") == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(name("silent") == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect((try results["ping"]?.get())?.kind == .methodReturn)

        // The blocking form throws the same.
        let thrown = #expect(throws: DBusError.self) {
            try client.callAndWait(
                destination: "org.pasteboard.Nobody", path: "/", interface: Self.interface, member: "X")
        }
        #expect(thrown?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
    }

    @Test func matchedSignalsArrive() throws {
        let emitter = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        var signals: [DBusMessage] = []
        listener.onSignal = { signal in
            if signal.interface == "org.pasteboard.Shell1" { signals.append(signal) }
        }
        try listener.addMatch("type='signal',interface='org.pasteboard.Shell1',member='OwnerChanged'")
        let body: [DBusValue] = [
            .string("CLIPBOARD"), .strings(["text/plain", "text/html"]), .string("org.gnome.TextEditor"),
            .uint32(7),
        ]
        try emitter.emitSignal(
            path: "/org/pasteboard/Shell", interface: "org.pasteboard.Shell1", member: "Other")
        try emitter.emitSignal(
            path: "/org/pasteboard/Shell", interface: "org.pasteboard.Shell1", member: "OwnerChanged",
            signature: "sassu",
            body: body)
        // A unicast signal reaches its destination without a match rule.
        try emitter.emitSignal(
            path: "/org/pasteboard/Shell", interface: "org.pasteboard.Shell1", member: "Direct",
            destination: listener.uniqueName)
        #expect(try pump([emitter, listener]) { signals.count >= 2 })
        #expect(signals.map(\.member) == ["OwnerChanged", "Direct"])
        #expect(signals.first?.body == body)
        #expect(signals.first?.sender == emitter.uniqueName)
        #expect(signals.first?.body[1].stringArray == ["text/plain", "text/html"])
    }

    @Test func aCallNobodyAnswersTimesOut() throws {
        let server = try DBusConnection(address: bus.address)
        var unanswered: [DBusMessage] = []
        server.onMethodCall = { unanswered.append($0) }
        let client = try DBusConnection(address: bus.address)
        var result: Result<DBusMessage, DBusError>?
        let start = ContinuousClock.now
        try client.call(
            destination: server.uniqueName, path: "/", interface: Self.interface, member: "Never",
            timeout: .milliseconds(300)
        ) { result = $0 }
        #expect(client.nextDeadline != nil)
        #expect(try pump([server, client]) { result != nil })
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3))
        if case .failure(let error) = result {
            #expect(error.code == .timeout)
            #expect(error.name == nil)
        } else {
            Issue.record("expected a timeout, got \(String(describing: result))")
        }
        #expect(unanswered.count == 1)
        #expect(client.nextDeadline == nil)

        let thrown = #expect(throws: DBusError.self) {
            try client.callAndWait(
                destination: server.uniqueName, path: "/", interface: Self.interface, member: "Never",
                timeout: .milliseconds(200))
        }
        #expect(thrown?.code == .timeout)
    }

    @Test func callAndWaitQueuesOtherMessagesForLater() throws {
        let emitter = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        var received: [String] = []
        listener.onSignal = {
            if let member = $0.member, member.hasPrefix("Tick") { received.append(member) }
        }
        try listener.addMatch("type='signal',interface='org.pasteboard.Shell1'")
        try emitter.emitSignal(path: "/", interface: "org.pasteboard.Shell1", member: "Tick")
        usleep(100_000)  // the signal reaches the listener's socket before its next call's reply
        #expect(try listener.getNameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
        #expect(received.isEmpty)
        #expect(listener.hasQueuedMessages)
        #expect(listener.nextDeadline != nil)
        listener.processTimeouts(now: .now)
        #expect(received == ["Tick"])
    }

    /// dbus-send, libdbus's command-line client, as a second implementation calling this one.
    @Test func dbusSendCallsAMethodOfThisConnection() async throws {
        guard let dbusSend = executableOnPath("dbus-send") else {
            throw SetupFailure("dbus-send is needed: apt-get install -y dbus-bin")
        }
        let server = try makeServer()
        let child = try ChildProcess(
            executable: dbusSend,
            arguments: [
                "--bus=\(bus.address)", "--print-reply", "--reply-timeout=5000", "--dest=\(Self.service)",
                Self.path,
                "\(Self.interface).Echo", "string:héllo", "uint64:18446744073709551615", "array:int32:1,-2",
                "dict:string:uint32:a,1,b,2",
            ],
            environment: ["PATH": "/usr/bin:/bin"], stdin: nil, ioDirectory: bus.directory)
        #expect(try pump([server], timeout: .seconds(10)) { !child.isRunning })
        let output = String(decoding: child.stdout, as: UTF8.self)
        #expect(child.termination?.status == 0, "\(child.stderr)")
        #expect(output.contains("string \"héllo\""))
        #expect(output.contains("uint64 18446744073709551615"))
        #expect(output.contains("int32 -2"))
        #expect(
            output.contains("dict entry(") && output.contains("string \"b\"")
                && output.contains("uint32 2"))
    }
}
