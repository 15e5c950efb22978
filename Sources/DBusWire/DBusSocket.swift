internal import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A non-blocking Unix stream socket to a D-Bus server, with fds passed as SCM_RIGHTS control messages.
struct DBusSocket {
    let descriptor: Int32

    /// Connects to the first socket of `address` that answers, before `deadline`.
    static func connect(to address: DBusAddress, deadline: ContinuousClock.Instant) throws(DBusError)
        -> DBusSocket
    {
        var failures: [String] = []
        for socket in address.sockets {
            do throws(SystemError) {
                return DBusSocket(descriptor: try connect(to: socket, deadline: deadline))
            } catch {
                switch socket {
                case .path(let path): failures.append("\(path): \(error.reason)")
                case .abstract(let name): failures.append("abstract socket \(name): \(error.reason)")
                }
            }
        }
        throw DBusError(
            .cannotConnect,
            "Cannot connect to the D-Bus bus (\(failures.joined(separator: "; "))). Is the session bus running?"
        )
    }

    private static func connect(to socket: DBusAddress.Socket, deadline: ContinuousClock.Instant)
        throws(SystemError) -> Int32
    {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch socket {
        case .path(let path): name = Array(path.utf8)
        case .abstract(let abstract): name = [0] + Array(abstract.utf8)
        }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else { throw SystemError("connect", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: name)
        }
        // A path's NUL terminator is counted; an abstract name is exactly its bytes.
        let length =
            MemoryLayout.offset(of: \sockaddr_un.sun_path)! + name.count + (name.first == 0 ? 0 : 1)
        let descriptor = Glibc.socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.last("socket") }
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(length))
                }
            }
            if result == 0 { return descriptor }
            let code = errno
            // A Unix socket whose backlog is full answers EAGAIN at once: try again until the deadline.
            if code == EINTR || (code == EAGAIN && ContinuousClock.now < deadline) {
                if code == EAGAIN { usleep(10_000) }
                continue
            }
            _ = Glibc.close(descriptor)
            throw SystemError("connect", errno: code)
        }
    }

    // MARK: - Waiting

    /// Waits until the socket is readable (or writable) or `deadline` passes; false when it passed.
    func wait(forWriting: Bool, until deadline: ContinuousClock.Instant) throws(DBusError) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
            let result = poll(&entry, 1, milliseconds)
            if result > 0 { return true }
            if result < 0, errno != EINTR {
                throw DBusError(
                    .system, "Cannot wait for the D-Bus socket.", cause: SystemError.last("poll"))
            }
        }
    }

    // MARK: - Sending

    /// Sends what the socket takes of `bytes`, with `fds` attached to the first byte; nil when it would block.
    func send(_ bytes: ArraySlice<UInt8>, fds: [Int32]) throws(SystemError) -> Int? {
        let headerSize = MemoryLayout<cmsghdr>.size
        let controlLength = fds.isEmpty ? 0 : Self.align(headerSize) + Self.align(fds.count * 4)
        let control = UnsafeMutableRawPointer.allocate(byteCount: max(controlLength, 8), alignment: 8)
        defer { control.deallocate() }
        if !fds.isEmpty {
            control.initializeMemory(as: UInt8.self, repeating: 0, count: controlLength)
            let header = control.bindMemory(to: cmsghdr.self, capacity: 1)
            header.pointee.cmsg_len = Self.align(headerSize) + fds.count * 4
            header.pointee.cmsg_level = SOL_SOCKET
            header.pointee.cmsg_type = Int32(SCM_RIGHTS)
            for (index, fd) in fds.enumerated() {
                control.storeBytes(of: fd, toByteOffset: Self.align(headerSize) + index * 4, as: Int32.self)
            }
        }
        while true {
            let result = bytes.withUnsafeBytes { buffer -> Int in
                var vector = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    if !fds.isEmpty {
                        header.msg_control = control
                        header.msg_controllen = controlLength
                    }
                    return sendmsg(descriptor, &header, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
            }
            if result >= 0 { return result }
            switch errno {
            case EINTR: continue
            case EAGAIN: return nil
            default: throw SystemError.last("sendmsg")
            }
        }
    }

    // MARK: - Receiving

    enum Received {
        case bytes([UInt8], fds: [Int32])
        case wouldBlock
        case endOfFile
    }

    /// Reads what is there, up to 64 KiB, with the fds that came along (close-on-exec).
    func receive() throws(DBusError) -> Received {
        let capacity = 1 << 16
        var buffer = [UInt8](repeating: 0, count: capacity)
        let controlCapacity = 4096
        let control = UnsafeMutableRawPointer.allocate(byteCount: controlCapacity, alignment: 8)
        defer { control.deallocate() }
        var header = msghdr()
        let count: Int = buffer.withUnsafeMutableBytes { bytes in
            var vector = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
            return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                header.msg_iov = vectorPointer
                header.msg_iovlen = 1
                header.msg_control = control
                header.msg_controllen = controlCapacity
                while true {
                    let result = recvmsg(descriptor, &header, Int32(MSG_CMSG_CLOEXEC) | Int32(MSG_DONTWAIT))
                    if result >= 0 || errno != EINTR { return result }
                }
            }
        }
        if count < 0 {
            if errno == EAGAIN { return .wouldBlock }
            throw DBusError(
                .disconnected, "Cannot read from the D-Bus socket.", cause: SystemError.last("recvmsg"))
        }
        var fds: [Int32] = []
        var offset = 0
        let headerSize = MemoryLayout<cmsghdr>.size
        while offset + headerSize <= header.msg_controllen {
            let message = (control + offset).bindMemory(to: cmsghdr.self, capacity: 1).pointee
            guard message.cmsg_len >= headerSize, offset + message.cmsg_len <= header.msg_controllen
            else { break }
            if message.cmsg_level == SOL_SOCKET, message.cmsg_type == Int32(SCM_RIGHTS) {
                let dataOffset = offset + Self.align(headerSize)
                for index in 0..<(message.cmsg_len - Self.align(headerSize)) / 4 {
                    fds.append(control.load(fromByteOffset: dataOffset + index * 4, as: Int32.self))
                }
            }
            offset += Self.align(message.cmsg_len)
        }
        if header.msg_flags & Int32(MSG_CTRUNC) != 0 {
            for fd in fds { _ = Glibc.close(fd) }
            throw DBusError(
                .malformed, "The D-Bus peer sent more fds than one read takes; the connection is closed.")
        }
        if count == 0 {
            for fd in fds { _ = Glibc.close(fd) }
            return .endOfFile
        }
        buffer.removeSubrange(count...)
        return .bytes(buffer, fds: fds)
    }

    /// CMSG_ALIGN: control data is aligned to size_t.
    private static func align(_ length: Int) -> Int { (length + 7) & ~7 }
}
