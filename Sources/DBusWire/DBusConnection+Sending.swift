internal import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

extension DBusConnection {
    /// Sends `message` with the next serial (which it returns), queuing what the socket does not take at once.
    /// The message's `fds` stay the caller's: the connection sends duplicates.
    @discardableResult
    public func send(_ message: DBusMessage) throws(DBusError) -> UInt32 {
        if !message.fds.isEmpty, !canPassFDs {
            throw DBusError(
                .invalidArgument, "This D-Bus bus does not pass fds, so the message cannot carry any.")
        }
        var message = message
        message.serial = takeSerial()
        let bytes = try message.encoded()
        var duplicates: [Int32] = []
        for fd in message.fds {
            let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
            guard duplicate >= 0 else {
                let error = SystemError.last("fcntl")
                for fd in duplicates { _ = Glibc.close(fd) }
                throw DBusError(.system, "Cannot pass fd \(fd) over D-Bus.", cause: error)
            }
            duplicates.append(duplicate)
        }
        enqueue(bytes, fds: duplicates)
        try flush()
        return message.serial
    }

    /// Calls a method; `reply` gets the return, or a failure: an error reply (`name` set), a timeout (delivered
    /// by `processTimeouts(now:)`), or the connection's failure. Returns the call's serial.
    @discardableResult
    public func call(
        destination: String, path: String, interface: String, member: String, signature: String = "",
        body: [DBusValue] = [], fds: [Int32] = [], timeout: Duration = .seconds(5),
        reply: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) throws(DBusError) -> UInt32 {
        let message = DBusMessage(
            kind: .methodCall, path: path, interface: interface, member: member, destination: destination,
            signature: signature, body: body, fds: fds)
        let serial = try send(message)
        registerPendingCall(
            serial: serial, deadline: .now + timeout, what: "\(interface).\(member) on \(destination)",
            handler: reply)
        return serial
    }

    /// Calls a method and blocks until its reply, at most `timeout`; an error reply is thrown with its `name`.
    /// Other messages read meanwhile are queued and dispatched by the next `processIncoming()` or
    /// `processTimeouts(now:)`. The reply's fds are the caller's.
    @discardableResult
    public func callAndWait(
        destination: String, path: String, interface: String, member: String, signature: String = "",
        body: [DBusValue] = [], fds: [Int32] = [], timeout: Duration = .seconds(5)
    ) throws(DBusError) -> DBusMessage {
        let what = "\(interface).\(member) on \(destination)"
        let deadline = ContinuousClock.now + timeout
        let message = DBusMessage(
            kind: .methodCall, path: path, interface: interface, member: member, destination: destination,
            signature: signature, body: body, fds: fds)
        let serial = try send(message)
        let timedOut = DBusError(.timeout, "No answer to the D-Bus call \(what) within \(timeout).")
        while wantsWrite {
            guard try waitForSocket(writing: true, until: deadline) else { throw timedOut }
            try flush()
        }
        while true {
            if let reply = takeQueuedReply(to: serial) {
                return try replyResult(reply, what: what).get()
            }
            guard try waitForSocket(writing: false, until: deadline) else { throw timedOut }
            try readQueued()
        }
    }

    /// Emits a signal, to everyone whose match rules take it or, with `destination`, to that name alone.
    @discardableResult
    public func emitSignal(
        path: String, interface: String, member: String, destination: String? = nil,
        signature: String = "",
        body: [DBusValue] = [], fds: [Int32] = []
    ) throws(DBusError) -> UInt32 {
        try send(
            DBusMessage(
                kind: .signal, path: path, interface: interface, member: member, destination: destination,
                signature: signature, body: body, fds: fds))
    }

    /// Answers a method call; nothing is sent when its caller asked for no reply.
    public func reply(
        to call: DBusMessage, signature: String = "", body: [DBusValue] = [], fds: [Int32] = []
    )
        throws(DBusError)
    {
        guard call.expectsReply else { return }
        try send(
            DBusMessage(
                kind: .methodReturn, replySerial: call.serial, destination: call.sender,
                signature: signature, body: body,
                fds: fds))
    }

    /// Answers a method call with the error `name` ("org.pasteboard.Shell1.Error.Stale") and a text.
    public func replyError(to call: DBusMessage, name: String, message: String) throws(DBusError) {
        guard call.expectsReply else { return }
        try send(
            DBusMessage(
                kind: .error, replySerial: call.serial, errorName: name, destination: call.sender,
                signature: "s",
                body: [.string(message)]))
    }
}
