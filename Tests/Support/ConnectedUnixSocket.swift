#if canImport(Glibc)
    import Glibc
#endif

/// A stream socket connected to the Unix-domain socket at `path` (close-on-exec), or nil when it cannot be created
/// or nothing accepts there. The caller owns the descriptor and closes it.
///
/// ```swift
/// guard let fd = connectedUnixSocket(to: "/tmp/.X11-unix/X99") else { return false }
/// close(fd)
/// ```
public func connectedUnixSocket(to path: String) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
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
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}
