import Foundation
import Testing

@testable import DBusWire

#if canImport(Glibc)
    import Glibc
#endif

/// A Unix socket server in the test that authenticates like a bus, then sends bytes no bus would: the connection
/// must fail with a `DBusError`, never crash.
final class FakeServer: Sendable {
    let path: String
    let address: String
    private let listener: Int32

    /// Starts accepting one client; after its `Hello` the server sends `replies`, one write each.
    init(replies: [[UInt8]]) throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "dbuswire-fake-\(UUID().uuidString)"
            ).path
        address = "unix:path=\(path)"
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        listener = listening
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listening, 1) == 0 else {
            throw SystemFailure("bind/listen: \(errno)")
        }
        Thread.detachNewThread {
            let client = accept(listening, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            var begun = false
            while !begun {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { return }
                received += buffer[..<count]
                while let end = received.firstIndex(of: 10) {
                    let line = String(decoding: received[..<end], as: UTF8.self).trimmingCharacters(
                        in: .controlCharacters)
                    received.removeSubrange(...end)
                    let answer: String? =
                        if line.hasPrefix("AUTH") {
                            "OK 0123456789abcdef0123456789abcdef\r\n"
                        } else if line.hasPrefix("NEGOTIATE_UNIX_FD") { "AGREE_UNIX_FD\r\n" } else { nil }
                    if let answer { _ = write(client, answer, answer.utf8.count) }
                    if line.hasPrefix("BEGIN") {
                        begun = true
                        break
                    }
                }
            }
            while received.count < 16 {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { return }
                received += buffer[..<count]
            }
            for reply in replies {
                _ = write(client, reply, reply.count)
                usleep(50_000)
            }
            while read(client, &buffer, buffer.count) > 0 {}
        }
    }

    deinit {
        close(listener)
        unlink(path)
    }

    struct SystemFailure: Error {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A method return to the client's `Hello` (serial 1).
    static func helloReply(
        signature: String = "s", body: [DBusValue] = [.string(":1.7")], fds: Int = 0
    ) throws -> [UInt8] {
        var message = DBusMessage(
            kind: .methodReturn, serial: 1, replySerial: 1, signature: signature, body: body,
            fds: Array(repeating: 0, count: fds))
        message.serial = 1
        return try message.encoded()
    }
}

extension Array where Element == UInt8 {
    /// `self` with the first occurrence of `pattern` replaced by `replacement` (of the same length).
    func patching(_ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        var bytes = self
        for start in 0...(count - pattern.count)
        where Array(self[start..<start + pattern.count]) == pattern {
            bytes.replaceSubrange(start..<start + pattern.count, with: replacement)
            return bytes
        }
        return bytes
    }
}

@Suite struct FakeServerTests {
    static func malformedReplies() throws -> [(String, [UInt8])] {
        let abcd = Array("ABCD".utf8)
        var huge: [UInt8] = [UInt8(ascii: "l"), 2, 0, 1, 0, 0, 0, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0]
        huge += [UInt8](repeating: 0, count: 16)
        return [
            ("garbage", [UInt8](repeating: 0x5a, count: 64)),
            (
                "invalid UTF-8",
                try FakeServer.helloReply(body: [.string("ABCD")]).patching(
                    abcd, with: [0xff, 0xfe, 0xc0, 0x80])
            ),
            (
                "NUL inside a string",
                try FakeServer.helloReply(body: [.string("ABCD")]).patching(
                    abcd, with: [0x41, 0, 0x42, 0x43])
            ),
            ("over 64 MiB", huge),
            (
                "a boolean of 2",
                try FakeServer.helloReply(signature: "ub", body: [.uint32(0xabcd_ef01), .bool(true)])
                    .patching([0x01, 0xef, 0xcd, 0xab, 1], with: [0x01, 0xef, 0xcd, 0xab, 2])
            ),
            (
                "an fd promised but not sent",
                try FakeServer.helloReply(signature: "h", body: [.unixFD(0)], fds: 1)
            ),
            (
                "a bad signature",
                try FakeServer.helloReply(signature: "u", body: [.uint32(1)])
                    .patching([8, 1, 0x67, 0, 1, 0x75, 0], with: [8, 1, 0x67, 0, 1, 0x7a, 0])
            ),
            (
                "an array longer than the body",
                try FakeServer.helloReply(signature: "ay", body: [.bytes([1, 2])])
                    .patching([2, 0, 0, 0, 1, 2], with: [200, 0, 0, 0, 1, 2])
            ),
            (
                "a variant whose signature does not match its value",
                try FakeServer.helloReply(signature: "v", body: [.variant(.byte(1))])
                    .patching([1, 0x79, 0, 1], with: [1, 0x76, 0, 1])
            ),
        ]
    }

    @Test func malformedRepliesToHelloAreErrorsNotCrashes() throws {
        for (what, bytes) in try Self.malformedReplies() {
            let server = try FakeServer(replies: [bytes])
            let error = #expect(throws: DBusError.self, "\(what)") {
                _ = try DBusConnection(address: server.address, timeout: .seconds(2))
            }
            #expect(error?.code == .malformed, "\(what): \(String(describing: error))")
        }
    }

    @Test func garbageAfterHelloClosesTheConnectionAndFailsPendingCalls() throws {
        let server = try FakeServer(replies: [
            try FakeServer.helloReply(), [UInt8](repeating: 0xff, count: 40),
        ])
        let connection = try DBusConnection(address: server.address)
        #expect(connection.uniqueName == ":1.7")
        var result: Result<DBusMessage, DBusError>?
        try connection.call(
            destination: "org.example.Peer", path: "/", interface: "org.example.I", member: "M"
        ) { result = $0 }
        let thrown = #expect(throws: DBusError.self) {
            _ = try pump([connection]) { result != nil }
        }
        #expect(thrown?.code == .malformed)
        if case .failure(let error) = result {
            #expect(error.code == .malformed)
        } else {
            Issue.record("no failure")
        }
        #expect(connection.fileDescriptor == -1)
        #expect(throws: DBusError.self) { try connection.processIncoming() }
    }
}
