public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Talks to a running daemon over its control socket.
public struct DaemonClient: Sendable {
    public let runtime: RuntimeDirectory

    public init(runtime: RuntimeDirectory) { self.runtime = runtime }

    /// Sends one request and returns the reply, or nil when no daemon answers.
    public func request(_ command: String, timeout: TimeInterval = 2) -> [String: Any]? {
        request(["command": command], timeout: timeout)
    }

    /// Sends one request object and returns the reply, or nil when no daemon answers.
    public func request(_ object: [String: Any], timeout: TimeInterval = 2) -> [String: Any]? {
        guard let fd = connect() else { return nil }
        defer { close(fd) }
        var timeoutValue = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeoutValue, socklen_t(MemoryLayout<timeval>.size))
        let request = ControlMessage.encode(object)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return nil }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(0x0A) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            reply.append(contentsOf: buffer[0..<count])
        }
        return ControlMessage.parse(reply.prefix(while: { $0 != 0x0A }))
    }

    /// A connected socket to the daemon (the caller closes it), or nil when none listens.
    public func connect() -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(runtime.socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether a daemon answers.
    public var isRunning: Bool { request("ping")?["ok"] as? Bool == true }
}
