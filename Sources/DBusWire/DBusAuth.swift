internal import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The SASL exchange that opens a D-Bus connection: a NUL byte, `AUTH EXTERNAL` with the uid in hex (the server
/// checks it against the socket's peer credentials), `NEGOTIATE_UNIX_FD`, then `BEGIN`.
struct DBusAuth {
    /// The server's GUID, from its `OK` line.
    let serverGUID: String
    /// True when the server agreed to pass fds.
    let canPassFDs: Bool
    /// Bytes read after the last line (the server may send messages right after `BEGIN`).
    let leftover: [UInt8]

    static func run(on socket: DBusSocket, deadline: ContinuousClock.Instant) throws(DBusError)
        -> DBusAuth
    {
        var session = Session(socket: socket, deadline: deadline)
        let uid = Array(String(getuid()).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]], as: UTF8.self)
        }.joined()
        try session.write([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8))
        let answer = try session.readLine()
        guard answer.hasPrefix("OK ") else {
            throw DBusError(
                .authenticationFailed,
                "The D-Bus bus refused authentication as uid \(getuid()) (it answered \"\(answer)\");"
                    + " is it another user's bus?"
            )
        }
        try session.write(Array("NEGOTIATE_UNIX_FD\r\n".utf8))
        let fdAnswer = try session.readLine()
        try session.write(Array("BEGIN\r\n".utf8))
        return DBusAuth(
            serverGUID: String(answer.dropFirst(3)), canPassFDs: fdAnswer == "AGREE_UNIX_FD",
            leftover: session.buffer)
    }

    private struct Session {
        let socket: DBusSocket
        let deadline: ContinuousClock.Instant
        var buffer: [UInt8] = []

        func timedOut() -> DBusError {
            DBusError(.authenticationFailed, "The D-Bus bus did not finish authentication in time.")
        }

        func write(_ bytes: [UInt8]) throws(DBusError) {
            var sent = 0
            while sent < bytes.count {
                let count: Int?
                do {
                    count = try socket.send(bytes[sent...], fds: [])
                } catch {
                    throw DBusError(
                        .disconnected, "Cannot write to the D-Bus socket during authentication.", cause: error)
                }
                if let count {
                    sent += count
                } else if try !socket.wait(forWriting: true, until: deadline) {
                    throw timedOut()
                }
            }
        }

        /// One line without its CR LF.
        mutating func readLine() throws(DBusError) -> String {
            while true {
                if let end = buffer.indices.dropLast().first(where: {
                    buffer[$0] == 13 && buffer[$0 + 1] == 10
                }) {
                    let line = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeSubrange(...(end + 1))
                    return line
                }
                guard buffer.count < 16384 else {
                    throw DBusError(
                        .authenticationFailed, "The D-Bus bus sent an authentication line over 16 KiB.")
                }
                switch try socket.receive() {
                case .bytes(let bytes, let fds):
                    for fd in fds { _ = Glibc.close(fd) }
                    buffer.append(contentsOf: bytes)
                case .wouldBlock:
                    guard try socket.wait(forWriting: false, until: deadline) else { throw timedOut() }
                case .endOfFile:
                    throw DBusError(
                        .authenticationFailed, "The D-Bus bus closed the connection during authentication.")
                }
            }
        }
    }
}
