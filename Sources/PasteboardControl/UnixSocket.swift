public import FoundationEssentials
import SystemSupport
import CSystemShim
#if canImport(Glibc)
public import Glibc  // uid_t in `peerUserID`
#endif

/// A Unix stream socket, closed when released: the one socket code the daemon, the clients and the tests use.
public final class UnixSocket {
    /// The descriptor, to poll. It stays owned by this object.
    public let fileDescriptor: Int32
    /// Bytes received after the last complete line `readLine` returned.
    private var buffered = Data()

    init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    deinit { close(fileDescriptor) }

    // MARK: - Opening

    /// Connects to the socket at `path`; `notRunning` when nothing listens there. With `timeout`, a listener that
    /// does not take the connection in that time (its queue is full: it stopped accepting) gives `noAnswer`.
    public static func connect(to path: String, timeout: TimeInterval? = nil) throws(ControlError) -> UnixSocket {
        var address = try socketAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("Cannot create a socket", .last("socket")) }
        let socket = UnixSocket(fileDescriptor: fd)
        // Linux bounds a blocking connect on a Unix socket by the send timeout (unix_stream_connect waits
        // sock_sndtimeo for room in the listener's queue, then fails with EAGAIN).
        if let timeout { socket.setTimeout(SO_SNDTIMEO, timeout) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let cause = SystemError.last("connect")
            if cause.errno == EAGAIN {
                throw ControlError(
                    "Something listens on \(path) but does not take connections (\(cause.reason)).", code: .noAnswer,
                    cause: cause)
            }
            throw ControlError("Nothing listens on \(path) (\(cause.reason)).", code: .notRunning, cause: cause)
        }
        return socket
    }

    /// Listens at `path` (mode 0600, non-blocking), replacing a stale socket file there: the caller must hold
    /// the lock that makes the path its own.
    public static func listen(at path: String, backlog: Int32 = 16) throws(ControlError) -> UnixSocket {
        var address = try socketAddress(path)
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure("Cannot create the control socket", .last("socket")) }
        let socket = UnixSocket(fileDescriptor: fd)
        // The socket file is created by bind with the process's umask: make it private from the start.
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let bindError = SystemError.last("bind")
        umask(previousMask)
        guard bound == 0 else { throw failure("Cannot listen on \(path)", bindError) }
        guard Glibc.listen(fd, backlog) == 0 else { throw failure("Cannot listen on \(path)", .last("listen")) }
        guard chmod(path, 0o600) == 0 else { throw failure("Cannot make \(path) private", .last("chmod")) }
        return socket
    }

    /// A waiting connection (non-blocking, close-on-exec), or nil when none waits.
    public func accept() -> UnixSocket? {
        let fd = pb_accept_cloexec_nonblock(fileDescriptor)
        return fd >= 0 ? UnixSocket(fileDescriptor: fd) : nil
    }

    /// A waiting connection (non-blocking, close-on-exec), nil when none waits; throws what else `accept` says
    /// (`EMFILE` when the process is out of descriptors: the connection stays queued, and the listener readable).
    public func acceptWaiting() throws(ControlError) -> UnixSocket? {
        let fd = pb_accept_cloexec_nonblock(fileDescriptor)
        if fd >= 0 { return UnixSocket(fileDescriptor: fd) }
        let error = SystemError.last("accept")
        // Nothing waits, or the one waiting gave up or was interrupted: nothing to accept now.
        if [EAGAIN, EWOULDBLOCK, ECONNABORTED, EINTR].contains(error.errno) { return nil }
        throw ControlError(error.reason, cause: error)
    }

    /// The process id of the other end when it connected, or nil when the kernel does not say.
    public var peerProcessID: pid_t? {
        let pid = pb_socket_peer_pid(fileDescriptor)
        return pid > 0 ? pid_t(pid) : nil
    }

    /// The user id of the process at the other end, or nil when the kernel does not say.
    public var peerUserID: uid_t? {
        let uid = pb_socket_peer_uid(fileDescriptor)
        return uid >= 0 ? uid_t(uid) : nil
    }

    private static func socketAddress(_ path: String) throws(ControlError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ControlError("The socket path \(path) is too long; set XDG_RUNTIME_DIR to a shorter directory.")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }

    private static func failure(_ what: String, _ cause: SystemError) -> ControlError {
        ControlError("\(what): \(cause.reason).", cause: cause)
    }

    // MARK: - Sending and receiving

    /// Sends what fits without blocking; returns how many bytes went (0 when none fit), or nil when the peer is gone.
    public func sendAvailable(_ data: Data) -> Int? {
        if data.isEmpty { return 0 }
        let sent = data.withUnsafeBytes { send(fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if sent >= 0 { return sent }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
    }

    /// Sends all of `data`, waiting as needed.
    public func sendAll(_ data: Data) throws(ControlError) {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes {
                send(fileDescriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                let cause = SystemError.last("send")
                throw ControlError("The daemon closed the connection (\(cause.reason)).", code: .noAnswer, cause: cause)
            }
            offset += sent
        }
    }

    /// Receives what has arrived, up to `limit` bytes; empty at end of stream, nil when nothing is there yet
    /// (non-blocking sockets) or the wait timed out.
    public func receive(limit: Int = 65536) throws(ControlError) -> Data? {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = recv(fileDescriptor, &buffer, buffer.count, 0)
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            let cause = SystemError.last("recv")
            throw ControlError("Reading from the daemon failed: \(cause.reason).", code: .noAnswer, cause: cause)
        }
    }

    /// Makes blocking receives give up after `seconds`.
    public func setReceiveTimeout(_ seconds: TimeInterval) {
        setTimeout(SO_RCVTIMEO, seconds)
    }

    /// Sets `SO_RCVTIMEO` or `SO_SNDTIMEO`.
    private func setTimeout(_ option: Int32, _ seconds: TimeInterval) {
        let whole = Int(seconds)
        var value = timeval(tv_sec: whole, tv_usec: Int((seconds - Double(whole)) * 1_000_000))
        setsockopt(fileDescriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next complete line (without its newline), blocking; nil at end of stream. A line longer than
    /// `ControlProtocol.maxLineBytes` is a protocol error.
    public func readLine() throws(ControlError) -> Data? {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = buffered[buffered.startIndex..<newline]
                buffered = Data(buffered[buffered.index(after: newline)...])
                return Data(line)
            }
            if buffered.count > ControlProtocol.maxLineBytes {
                throw ControlError("The daemon sent a line longer than 1 MiB.", code: .malformed)
            }
            guard let chunk = try receive() else {
                throw ControlError("The daemon did not answer in time.", code: .noAnswer)
            }
            if chunk.isEmpty { return nil }
            buffered.append(chunk)
        }
    }
}
