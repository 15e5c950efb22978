internal import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to a D-Bus bus, single-threaded and driven by its owner's poll loop.
///
/// Poll `fileDescriptor` for input (and for output while `wantsWrite`), then call `processIncoming()` (and
/// `flush()`); wake up at `nextDeadline` and call `processTimeouts(now:)`. Handlers run inside those calls and may
/// send or call again.
///
/// ```swift
/// let bus = try DBusConnection.sessionBus(environment: environment)
/// bus.onSignal = { signal in print(signal.member ?? "") }
/// try bus.addMatch("type='signal',interface='org.pasteboard.Shell1'")
/// try bus.call(destination: "org.pasteboard.Shell", path: "/org/pasteboard/Shell", interface: "org.pasteboard.Shell1",
///              member: "GetSelection", signature: "s", body: [.string("CLIPBOARD")]) { result in … }
/// ```
///
/// A protocol violation, a malformed message or a failed read or write closes the connection: every pending call's
/// handler gets the error, and every later use throws it.
public final class DBusConnection {
    /// The bus's name for this connection (":1.42"), from `Hello`.
    public private(set) var uniqueName: String = ""
    /// The server's GUID, from authentication.
    public let serverGUID: String
    /// True when the bus agreed to pass fds (`NEGOTIATE_UNIX_FD`).
    public let canPassFDs: Bool

    /// Called with each signal received (the bus sends those that match a rule of `addMatch`, and unicast ones).
    public var onSignal: ((DBusMessage) -> Void)?
    /// Called with each method call received; answer it with `reply(to:…)` or `replyError(to:…)`. When nil, the
    /// connection answers `org.freedesktop.DBus.Error.UnknownMethod`. `org.freedesktop.DBus.Peer.Ping` is always
    /// answered by the connection itself.
    public var onMethodCall: ((DBusMessage) -> Void)?

    private var socket: DBusSocket?
    /// Why the connection is closed, thrown by every later use.
    private var failure: DBusError?
    private var nextSerial: UInt32 = 1
    private var input: [UInt8]
    private var incomingFDs: [Int32] = []
    /// Messages read but not yet dispatched (read while `callAndWait` waited, or not yet handed out).
    private var queued: [DBusMessage] = []
    private var outgoing: [Outgoing] = []
    private var pending: [UInt32: PendingCall] = [:]

    private struct Outgoing {
        var bytes: [UInt8]
        var offset = 0
        /// Duplicates of the caller's fds, closed once sent.
        var fds: [Int32]
    }

    private struct PendingCall {
        let deadline: ContinuousClock.Instant
        let what: String
        let handler: (Result<DBusMessage, DBusError>) -> Void
    }

    // MARK: - Opening and closing

    /// The session bus of `environment`'s `DBUS_SESSION_BUS_ADDRESS`.
    public static func sessionBus(environment: [String: String]) throws(DBusError) -> DBusConnection {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw DBusError(
                .cannotConnect,
                "DBUS_SESSION_BUS_ADDRESS is not set, so the D-Bus session bus cannot be found;"
                    + " run inside a desktop session (or dbus-run-session)."
            )
        }
        return try DBusConnection(address: address)
    }

    /// Connects to the bus at `address` ("unix:path=…", "unix:abstract=…", alternatives separated by ";"),
    /// authenticates and says `Hello`, blocking for at most `timeout` in all.
    public init(address: String, timeout: Duration = .seconds(5)) throws(DBusError) {
        let deadline = ContinuousClock.now + timeout
        let socket = try DBusSocket.connect(to: try DBusAddress(address), deadline: deadline)
        let auth: DBusAuth
        do {
            auth = try DBusAuth.run(on: socket, deadline: deadline)
        } catch {
            _ = Glibc.close(socket.descriptor)
            throw error
        }
        self.socket = socket
        serverGUID = auth.serverGUID
        canPassFDs = auth.canPassFDs
        input = auth.leftover
        let hello = try callAndWait(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "Hello", timeout: deadline - ContinuousClock.now)
        guard let name = hello.body.first?.string else {
            close()
            throw DBusError(.malformed, "The D-Bus bus answered Hello without a name.")
        }
        uniqueName = name
    }

    deinit {
        close()
    }

    /// Closes the connection and every fd it still holds. Pending calls are dropped without their handlers being
    /// called; later uses throw `.disconnected`.
    public func close() {
        if failure == nil { failure = DBusError(.disconnected, "The D-Bus connection was closed.") }
        pending.removeAll()
        release()
    }

    private func release() {
        if let socket { _ = Glibc.close(socket.descriptor) }
        socket = nil
        for fd in incomingFDs { _ = Glibc.close(fd) }
        for message in queued { for fd in message.fds { _ = Glibc.close(fd) } }
        for item in outgoing { for fd in item.fds { _ = Glibc.close(fd) } }
        incomingFDs = []
        queued = []
        outgoing = []
        input = []
    }

    /// Closes the connection after a failure, tells every pending call, and returns the error to throw.
    private func fail(_ error: DBusError) -> DBusError {
        guard failure == nil else { return failure ?? error }
        failure = error
        release()
        let calls = pending.values
        pending.removeAll()
        for call in calls { call.handler(.failure(error)) }
        return error
    }

    private func openSocket() throws(DBusError) -> DBusSocket {
        if let failure { throw failure }
        guard let socket else { throw DBusError(.disconnected, "The D-Bus connection is closed.") }
        return socket
    }

    // MARK: - Polling

    /// The socket to poll: for input always, for output while `wantsWrite`; -1 once closed.
    public var fileDescriptor: Int32 { socket?.descriptor ?? -1 }

    /// True while messages wait to be written because the socket was full: poll for output, then `flush()`.
    public var wantsWrite: Bool { !outgoing.isEmpty }

    /// True when messages were read but not dispatched yet (read while `callAndWait` waited); `processIncoming()`
    /// and `processTimeouts(now:)` dispatch them, and `nextDeadline` is now while there are some.
    public var hasQueuedMessages: Bool { !queued.isEmpty }

    /// When `processTimeouts(now:)` has something to do: the earliest call timeout, now when messages are queued.
    public var nextDeadline: ContinuousClock.Instant? {
        if !queued.isEmpty { return .now }
        return pending.values.map(\.deadline).min()
    }

    /// Fails the calls whose timeout passed (their handlers get a `.timeout` error) and dispatches queued messages.
    /// A failure while doing so closes the connection; the next `processIncoming()` throws it.
    public func processTimeouts(now: ContinuousClock.Instant = .now) {
        let expired = pending.filter { $0.value.deadline <= now }.sorted {
            $0.value.deadline < $1.value.deadline
        }
        for (serial, call) in expired {
            pending[serial] = nil
            call.handler(
                .failure(DBusError(.timeout, "No answer to the D-Bus call \(call.what) in time.")))
        }
        do {
            try dispatchQueued()
        } catch {
            _ = fail(error)
        }
    }

    /// Reads what the socket has (without blocking) and dispatches every complete message: replies to their
    /// handlers, signals to `onSignal`, method calls to `onMethodCall`.
    public func processIncoming() throws(DBusError) {
        _ = try openSocket()
        for _ in 0..<16 {
            guard try readAvailable() else { break }
        }
        try dispatchQueued()
    }

    /// Writes queued messages until the socket is full or nothing is left.
    public func flush() throws(DBusError) {
        let socket = try openSocket()
        while !outgoing.isEmpty {
            let sent: Int?
            do {
                sent = try socket.send(outgoing[0].bytes[outgoing[0].offset...], fds: outgoing[0].fds)
            } catch {
                throw fail(DBusError(.disconnected, "Cannot write to the D-Bus socket.", cause: error))
            }
            guard let sent else { return }
            // The fds went with the first byte sent: close the duplicates.
            for fd in outgoing[0].fds { _ = Glibc.close(fd) }
            outgoing[0].fds = []
            outgoing[0].offset += sent
            if outgoing[0].offset == outgoing[0].bytes.count { outgoing.removeFirst() }
        }
    }

    // MARK: - Reading

    /// One read from the socket, its complete messages queued; false when there was nothing to read.
    private func readAvailable() throws(DBusError) -> Bool {
        let socket = try openSocket()
        let received: DBusSocket.Received
        do {
            received = try socket.receive()
        } catch {
            throw fail(error)
        }
        switch received {
        case .wouldBlock:
            return false
        case .endOfFile:
            throw fail(DBusError(.disconnected, "The D-Bus bus closed the connection."))
        case .bytes(let bytes, let fds):
            input.append(contentsOf: bytes)
            incomingFDs.append(contentsOf: fds)
            do {
                try parseInput()
            } catch {
                throw fail(error)
            }
            return true
        }
    }

    private func parseInput() throws(DBusError) {
        var start = 0
        defer { input.removeFirst(start) }
        while input.count - start >= 16 {
            let length = try DBusMessage.length(ofMessageStartingWith: input[start..<start + 16])
            guard input.count - start >= length else { break }
            let bytes = Array(input[start..<start + length])
            start += length
            if let message = try DBusMessage.decode(bytes, takingFDs: &incomingFDs) {
                queued.append(message)
            }
        }
    }

    // MARK: - Dispatching

    private func dispatchQueued() throws(DBusError) {
        while !queued.isEmpty, failure == nil {
            try dispatch(queued.removeFirst())
        }
    }

    private func dispatch(_ message: DBusMessage) throws(DBusError) {
        switch message.kind {
        case .methodReturn, .error:
            guard let serial = message.replySerial, let call = pending.removeValue(forKey: serial) else {
                Self.closeFDs(of: message)
                return
            }
            call.handler(Self.result(of: message, what: call.what))
        case .signal:
            if let onSignal { onSignal(message) } else { Self.closeFDs(of: message) }
        case .methodCall:
            if message.interface == "org.freedesktop.DBus.Peer"
                || (message.interface == nil && message.member == "Ping")
            {
                Self.closeFDs(of: message)
                if message.member == "Ping" {
                    try reply(to: message)
                } else {
                    try replyError(
                        to: message, name: "org.freedesktop.DBus.Error.UnknownMethod",
                        message: "No method \(message.member ?? "") on org.freedesktop.DBus.Peer here.")
                }
            } else if let onMethodCall {
                onMethodCall(message)
            } else {
                Self.closeFDs(of: message)
                try replyError(
                    to: message, name: "org.freedesktop.DBus.Error.UnknownMethod",
                    message:
                        "No method \(message.interface ?? "").\(message.member ?? "") at \(message.path ?? "")."
                )
            }
        }
    }

    // MARK: - For sending

    func takeSerial() -> UInt32 {
        defer { nextSerial = nextSerial == UInt32.max ? 1 : nextSerial + 1 }
        return nextSerial
    }

    func enqueue(_ bytes: [UInt8], fds: [Int32]) {
        outgoing.append(Outgoing(bytes: bytes, fds: fds))
    }

    func registerPendingCall(
        serial: UInt32, deadline: ContinuousClock.Instant, what: String,
        handler: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) {
        pending[serial] = PendingCall(deadline: deadline, what: what, handler: handler)
    }

    /// Waits for the socket; false when `deadline` passed first.
    func waitForSocket(writing: Bool, until deadline: ContinuousClock.Instant) throws(DBusError)
        -> Bool
    {
        try openSocket().wait(forWriting: writing, until: deadline)
    }

    /// Reads once and queues the complete messages, without dispatching them.
    func readQueued() throws(DBusError) {
        _ = try readAvailable()
    }

    /// Takes the reply to `serial` out of the queue.
    func takeQueuedReply(to serial: UInt32) -> DBusMessage? {
        guard
            let index = queued.firstIndex(where: {
                ($0.kind == .methodReturn || $0.kind == .error) && $0.replySerial == serial
            })
        else { return nil }
        return queued.remove(at: index)
    }

    func replyResult(_ reply: DBusMessage, what: String) -> Result<DBusMessage, DBusError> {
        Self.result(of: reply, what: what)
    }

    static func closeFDs(of message: DBusMessage) {
        for fd in message.fds { _ = Glibc.close(fd) }
    }

    /// A reply as a result: an error reply becomes a `.errorReply` failure named after it (its fds closed).
    private static func result(of reply: DBusMessage, what: String) -> Result<DBusMessage, DBusError> {
        guard reply.kind == .error else { return .success(reply) }
        closeFDs(of: reply)
        let name = reply.errorName ?? "org.freedesktop.DBus.Error.Failed"
        let text = reply.errorMessage.map { ": \($0)" } ?? ""
        return .failure(
            DBusError(.errorReply, "The D-Bus call \(what) failed with \(name)\(text).", name: name))
    }
}

@available(*, unavailable, message: "a DBusConnection belongs to the thread of its poll loop")
extension DBusConnection: Sendable {}
