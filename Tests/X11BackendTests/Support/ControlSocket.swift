import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's control socket, spoken to directly: one JSON request, one JSON reply.
enum ControlSocket {
    /// Sends `request` and returns the reply, or nil when nobody answers within `timeout`.
    static func send(_ request: [String: Any], to path: String, timeout: TimeInterval = 2) -> [String: Any]? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0, var line = try? JSONSerialization.data(withJSONObject: request) else { return nil }
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
