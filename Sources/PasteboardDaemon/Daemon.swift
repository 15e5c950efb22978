import CSystemShim
import Foundation
public import PasteboardHistory
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the self-pipe that turns SIGTERM/SIGINT into a readable event for the poll loop.
/// nonisolated(unsafe): written once before the handlers are installed, then only read by the handler.
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

/// The long-running `pb daemon`: it owns the control socket, expires items on time, applies retention, answers
/// clients, and with a display runs the X11 backend (capture, keep-alive, serving). One thread, one `poll` loop;
/// no wake-ups while idle.
public final class Daemon {
    public let location: StoreLocation
    public let runtime: RuntimeDirectory
    public var retention: RetentionPolicy?
    private let log: (String) -> Void
    private var store: HistoryStore?
    private var lockFD: Int32 = -1
    private var listenFD: Int32 = -1
    private var clients: [Int32: Data] = [:]
    /// Replies a client has not taken yet (its socket was full). It is not read from until it takes them, so a
    /// client may send any number of requests at once without the daemon blocking or dropping a reply.
    private var unsent: [Int32: Data] = [:]
    private var signalRead: Int32 = -1
    private var running = true
    /// The display backend, when there is a display.
    var backend: (any DaemonBackend)?
    /// Connections that asked to `watch`: every event goes to them as a JSON line.
    private var watchers: Set<Int32> = []
    /// Timers: when to give up a selection served with `--expire`.
    var timers: [(deadline: Date, action: () -> Void)] = []

    public init(location: StoreLocation, runtime: RuntimeDirectory, retention: RetentionPolicy?, log: @escaping (String) -> Void) {
        self.location = location
        self.runtime = runtime
        self.retention = retention
        self.log = log
    }

    /// The store, open while the daemon runs.
    var openStore: HistoryStore? { store }

    func logLine(_ message: String) { log(message) }

    /// Sends an event to every watcher.
    func broadcast(_ event: [String: Any]) {
        let line = ControlMessage.encode(event)
        for fd in watchers {
            // A watcher that cannot keep up (its replies or this event do not fit) is dropped rather than blocking
            // the daemon.
            if unsent[fd] != nil {
                drop(fd)
                continue
            }
            let sent = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent != line.count { drop(fd) }
        }
    }

    /// Starts, serves until SIGTERM/SIGINT or a `stop` request, then cleans up.
    public func run(onReady: () -> Void = {}) throws {
        try runtime.prepare()
        try acquireLock()
        defer { releaseLock() }
        do {
            store = try HistoryStore(location: location)
        } catch {
            throw DaemonError(error.message)
        }
        try housekeeping()
        if let store {
            let freed = try store.collectOrphanedFiles()
            if freed > 0 { log("removed \(freed) bytes of unreferenced payload files") }
        }
        try listen()
        defer { stopListening() }
        try installSignalHandlers()
        try backend?.start(daemon: self)
        onReady()
        while running { try pollOnce() }
        log("stopping")
    }

    // MARK: - Single instance

    private func acquireLock() throws(DaemonError) {
        lockFD = open(runtime.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else { throw DaemonError("Cannot open \(runtime.lockPath): \(String(cString: strerror(errno))).") }
        if flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
            var pid = ""
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(lockFD, &buffer, buffer.count, 0)
            if count > 0 { pid = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
            close(lockFD)
            lockFD = -1
            throw DaemonError("Another pb daemon is already running\(pid.isEmpty ? "" : " (pid \(pid))"). Stop it first, or use it.")
        }
        let text = Array("\(getpid())\n".utf8)
        ftruncate(lockFD, 0)
        _ = pwrite(lockFD, text, text.count, 0)
    }

    private func releaseLock() {
        if lockFD >= 0 { close(lockFD) }
        lockFD = -1
    }

    // MARK: - Control socket

    private func listen() throws(DaemonError) {
        unlink(runtime.socketPath)  // a stale socket from a crashed daemon: we hold the lock, so it is ours
        listenFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard listenFD >= 0 else { throw DaemonError("Cannot create the control socket: \(String(cString: strerror(errno))).") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(runtime.socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw DaemonError("The socket path \(runtime.socketPath) is too long; set XDG_RUNTIME_DIR to a shorter directory.")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previousMask)
        guard bound == 0, Glibc.listen(listenFD, 16) == 0 else {
            throw DaemonError("Cannot listen on \(runtime.socketPath): \(String(cString: strerror(errno))).")
        }
        chmod(runtime.socketPath, 0o600)
    }

    private func stopListening() {
        for fd in clients.keys { close(fd) }
        clients.removeAll()
        unsent.removeAll()
        watchers.removeAll()
        if listenFD >= 0 { close(listenFD) }
        unlink(runtime.socketPath)
    }

    // MARK: - Signals

    private func installSignalHandlers() throws(DaemonError) {
        var fds: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else { throw DaemonError("Cannot create a pipe for signals.") }
        signalRead = fds[0]
        signalPipeWrite = fds[1]
        let handler: @convention(c) (Int32) -> Void = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipeWrite, &byte, 1)
        }
        signal(SIGTERM, handler)
        signal(SIGINT, handler)
        // A process spawned from a thread that blocks signals (Dispatch workers do) inherits that mask.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        guard sigprocmask(SIG_UNBLOCK, &stopSignals, nil) == 0 else { throw DaemonError("Cannot unblock SIGTERM and SIGINT.") }
        signal(SIGPIPE, SIG_IGN)
    }

    // MARK: - The loop

    private func pollOnce() throws {
        var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0), pollfd(fd: signalRead, events: Int16(POLLIN), revents: 0)]
        let backendFD = backend?.fileDescriptor
        if let backendFD { fds.append(pollfd(fd: backendFD, events: Int16(POLLIN), revents: 0)) }
        let clientStart = fds.count
        for fd in clients.keys {
            // Replies waiting: only wait until they can be sent (no more requests are read meanwhile).
            fds.append(pollfd(fd: fd, events: Int16(unsent[fd] == nil ? POLLIN : POLLOUT), revents: 0))
        }
        var timeout = try millisecondsUntilNextExpiry()
        var deadlines = timers.map(\.deadline)
        if let next = backend?.nextDeadline { deadlines.append(next) }
        if let next = deadlines.min() {
            let wait = Int32(max(0, min(next.timeIntervalSinceNow * 1000 + 1, Double(Int32.max))))
            timeout = timeout < 0 ? wait : min(timeout, wait)
        }
        // Events Xlib already read off the socket would not wake poll: handle them first.
        backend?.processEvents()
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 {
            if errno == EINTR { return }
            throw DaemonError("poll failed: \(String(cString: strerror(errno))).")
        }
        runDueTimers()
        backend?.processTimeouts()
        if ready == 0 {
            try housekeeping()
            return
        }
        if fds[1].revents != 0 {
            var byte: UInt8 = 0
            _ = read(signalRead, &byte, 1)
            log("received signal \(byte)")
            running = false
            return
        }
        if backendFD != nil && fds[2].revents != 0 { backend?.processEvents() }
        if fds[0].revents & Int16(POLLIN) != 0 { acceptClient() }
        // A client dropped earlier in this round (a watcher that fell behind) has no entry any more.
        for entry in fds[clientStart...] where entry.revents != 0 && clients[entry.fd] != nil {
            if unsent[entry.fd] != nil { flush(entry.fd) } else { serviceClient(entry.fd) }
        }
    }

    private func runDueTimers() {
        let now = Date()
        let due = timers.filter { $0.deadline <= now }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.action() }
    }

    private func millisecondsUntilNextExpiry() throws -> Int32 {
        guard let store, let next = try store.nextExpiry() else { return -1 }
        let delay = next.timeIntervalSinceNow
        if delay <= 0 { return 0 }
        return Int32(min(delay * 1000 + 1, Double(Int32.max)))
    }

    func housekeeping() throws {
        guard let store else { return }
        let expired = try store.deleteExpired()
        if expired > 0 { log("expired \(expired) item\(expired == 1 ? "" : "s")") }
        if let retention, !retention.isUnlimited {
            let dropped = try store.applyRetention(retention)
            if dropped > 0 { log("retention removed \(dropped) item\(dropped == 1 ? "" : "s")") }
        }
    }

    private func acceptClient() {
        let fd = pb_accept_cloexec_nonblock(listenFD)
        guard fd >= 0 else { return }
        guard pb_socket_peer_uid(fd) == Int(getuid()) else {
            log("refused a connection from another user")
            close(fd)
            return
        }
        clients[fd] = Data()
    }

    private func serviceClient(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 {
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
            drop(fd)
            return
        }
        let pending = (clients[fd] ?? Data()) + buffer[0..<count]
        if pending.count > 1 << 20 {  // a line longer than 1 MiB is not a control request
            drop(fd)
            return
        }
        clients[fd] = pending
        answerPendingRequests(fd)
    }

    /// Answers the complete lines `fd` has sent, in order, until a reply does not fit in its socket.
    private func answerPendingRequests(_ fd: Int32) {
        guard var pending = clients[fd] else { return }
        while unsent[fd] == nil, let newline = pending.firstIndex(of: 0x0A) {
            let line = pending[pending.startIndex..<newline]
            pending = Data(pending[pending.index(after: newline)...])
            let reply = ControlMessage.encode(handle(line, from: fd))
            guard clients[fd] != nil else { return }  // dropped meanwhile (a watcher that fell behind)
            let sent = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent != reply.count { unsent[fd] = Data(reply.dropFirst(max(0, sent))) }
        }
        clients[fd] = pending
    }

    /// Sends what `fd` has not taken yet; once all is sent, answers the requests it sent meanwhile.
    private func flush(_ fd: Int32) {
        guard let data = unsent[fd] else { return }
        let sent = data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if sent < 0 {
            if errno != EAGAIN && errno != EINTR { drop(fd) }  // gone (EPIPE, ECONNRESET)
            return
        }
        if sent < data.count {
            unsent[fd] = Data(data.dropFirst(sent))
            return
        }
        unsent[fd] = nil
        answerPendingRequests(fd)
    }

    /// Closes a client connection and forgets everything about it.
    private func drop(_ fd: Int32) {
        close(fd)
        clients[fd] = nil
        unsent[fd] = nil
        watchers.remove(fd)
    }

    private func handle(_ line: Data, from fd: Int32) -> [String: Any] {
        guard let request = ControlMessage.parse(line), let command = request["command"] as? String else {
            return ["ok": false, "error": "expected a JSON object with a \"command\""]
        }
        switch command {
        case "watch":
            watchers.insert(fd)
            return ["ok": true, "watching": true]
        case "notify":
            // A client changed the store itself (pin, delete, …): pass the event on to watchers, who rely on every
            // event having a name (docs/protocol.md).
            guard var event = request["event"] as? [String: Any], event["event"] is String else {
                return ["ok": false, "error": "notify needs an \"event\" object with an \"event\" name"]
            }
            event["time"] = Date().timeIntervalSince1970
            broadcast(event)
            return ["ok": true]
        case "restore":
            guard let id = (request["id"] as? NSNumber)?.int64Value else { return ["ok": false, "error": "restore needs an \"id\""] }
            guard let backend else { return ["ok": true, "backend": "headless"] }
            do {
                guard let store else { return ["ok": false, "error": "no store"] }
                let item = try store.pasteboardItem(id: id)
                let expire = (request["expire"] as? NSNumber)?.doubleValue
                try backend.serve(item, once: request["once"] as? Bool ?? false, expireAfter: expire, daemon: self)
                broadcast(["event": "restored", "id": id, "time": Date().timeIntervalSince1970])
                return ["ok": true]
            } catch {
                return ["ok": false, "error": "\(error)"]
            }
        case "ping":
            return ["ok": true, "pid": Int(getpid())]
        case "status":
            let count = (try? store?.count()) ?? nil
            return [
                "ok": true, "pid": Int(getpid()), "backend": backend?.name ?? "headless", "store": location.databaseURL.path,
                "socket": runtime.socketPath, "items": count ?? -1,
            ]
        case "reschedule":
            do {
                try housekeeping()
                return ["ok": true]
            } catch {
                return ["ok": false, "error": "\(error)"]
            }
        case "clear":
            guard let backend else { return ["ok": false, "error": "no display backend"] }
            backend.clear()
            broadcast(["event": "cleared-clipboard", "time": Date().timeIntervalSince1970])
            return ["ok": true]
        case "stop":
            running = false
            return ["ok": true]
        default:
            return ["ok": false, "error": "unknown command \"\(command)\""]
        }
    }
}

extension Daemon {
    /// Runs the X11 backend on `displayName` (nil: `$DISPLAY`): capture, keep-alive, serving.
    public func attachX11(displayName: String?, policy: CapturePolicy) throws {
        backend = try X11DaemonBackend(displayName: displayName, policy: policy)
    }

    /// The backend in use: `x11` or `headless`.
    public var backendName: String { backend?.name ?? "headless" }
}
