import Foundation
import PasteboardTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's control socket, spoken to directly: one JSON request, one JSON reply.
enum ControlSocket {
    /// Sends `request` and returns the reply, or nil when nobody answers within `timeout`.
    static func send(_ request: [String: Any], to path: String, timeout: TimeInterval = 2) -> [String: Any]? {
        guard let fd = connectedUnixSocket(to: path) else { return nil }
        defer { close(fd) }
        guard var line = try? JSONSerialization.data(withJSONObject: request) else { return nil }
        line.append(0x0A)
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard line.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count
        else { return nil }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(0x0A) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            reply.append(contentsOf: buffer[0..<count])
        }
        return (try? JSONSerialization.jsonObject(with: reply.prefix(while: { $0 != 0x0A }))) as? [String: Any]
    }
}
