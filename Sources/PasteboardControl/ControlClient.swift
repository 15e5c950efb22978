public import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Talks to a running daemon over its control socket: requests and replies, and the stream of events.
///
/// ```swift
/// let daemon = ControlClient(runtime: .standard())
/// if daemon.isRunning { try daemon.perform(.restore(id: 42)) }
/// for try await event in daemon.events() { print(event.event, event.id ?? 0) }
/// ```
public struct ControlClient: Sendable {
    public let runtime: RuntimeDirectory

    public init(runtime: RuntimeDirectory) { self.runtime = runtime }

    /// Sends one request and waits up to `timeout` for the reply, whatever it says.
    /// - Throws: `notRunning` when no daemon listens, `noAnswer` when it does not answer in time.
    public func reply(to request: ControlRequest, timeout: TimeInterval = 2) throws(ControlError) -> ControlReply {
        let socket = try connect(timeout: timeout)
        socket.setReceiveTimeout(timeout)
        try socket.sendAll(ControlProtocol.line(request))
        guard let line = try socket.readLine() else {
            throw ControlError("The daemon closed the connection without answering.", code: .noAnswer)
        }
        return try ControlProtocol.decode(ControlReply.self, from: line)
    }

    /// Sends one request and returns the reply when it says `ok`.
    /// - Throws: as `reply(to:timeout:)`, and `refused` with the daemon's message when it says no.
    @discardableResult
    public func perform(_ request: ControlRequest, timeout: TimeInterval = 2) throws(ControlError) -> ControlReply {
        let reply = try reply(to: request, timeout: timeout)
        guard reply.ok else { throw ControlError(reply.error ?? "The daemon refused \(request.command).", code: .refused) }
        return reply
    }

    /// Whether a daemon answers a ping.
    public var isRunning: Bool {
        do {
            return try reply(to: .ping).ok
        } catch {
            return false
        }
    }

    /// Tells watchers about a change a client made to the store itself. Without a daemon there is nobody to tell:
    /// that is not an error.
    public func announce(_ event: ControlEvent) throws(ControlError) {
        do {
            try perform(.notify(event), timeout: 1)
        } catch where error.code == .notRunning {
            return
        }
    }

    /// A connection to the daemon (for requests of one's own); with `timeout`, a daemon that does not take it in
    /// that time gives `noAnswer`.
    /// The runtime directory must be this user's (see `RuntimeDirectory.checkOwnership`) and the process that
    /// accepted must run as this user, else `untrusted`: nothing is sent to another user's socket.
    public func connect(timeout: TimeInterval? = nil) throws(ControlError) -> UnixSocket {
        try runtime.checkOwnership()
        let socket: UnixSocket
        do {
            socket = try UnixSocket.connect(to: runtime.socketPath, timeout: timeout)
        } catch where error.code == .notRunning {
            throw ControlError(
                "No daemon is running (socket \(runtime.socketPath)); start one with 'pb daemon'.", code: .notRunning,
                cause: error)
        }
        guard let peer = socket.peerUserID, peer == getuid() else {
            let owner = socket.peerUserID.map { String($0) } ?? "unknown"
            throw ControlError(
                "The process listening on \(runtime.socketPath) runs as another user (uid \(owner)), not as the "
                    + "daemon would; nothing was sent. Set XDG_RUNTIME_DIR (or PB_RUNTIME_DIR) to a directory of your "
                    + "own.", code: .untrusted)
        }
        return socket
    }

    // MARK: - Events

    /// Subscribes to events and hands each line to `handle` as the daemon sent it, until the daemon closes the
    /// connection or `handle` returns false. With `approving`, this connection also answers "Allow Paste"
    /// questions (`paste-requested` events; answer with `answerPaste`). Blocks the calling thread.
    public func watch(approving: Bool = false, since: Int64? = nil, _ handle: (Data) -> Bool) throws(ControlError) {
        let socket = try connect()
        try socket.sendAll(ControlProtocol.line(approving ? ControlRequest.approve(since: since) : .watch(since: since)))
        guard let acknowledgement = try socket.readLine() else {
            throw ControlError("The daemon closed the connection without answering.", code: .noAnswer)
        }
        let reply = try ControlProtocol.decode(ControlReply.self, from: acknowledgement)
        guard reply.ok, reply.watching == true else {
            throw ControlError(reply.error ?? "The daemon refused to send events.", code: .refused)
        }
        while let line = try socket.readLine() {
            if !handle(line) { return }
        }
    }

    /// Every event from now on, as an asynchronous sequence; it ends when the daemon stops. A line that is not an
    /// event (from a newer daemon, say) is passed over.
    public func events(approving: Bool = false) -> AsyncThrowingStream<ControlEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ControlEvent, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let client = self
        let watching: @Sendable () -> Void = {
            do {
                try client.watch(approving: approving) { line in
                    if let event = try? ControlProtocol.decode(ControlEvent.self, from: line) {
                        if case .terminated = continuation.yield(event) { return false }
                    }
                    return true
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        do {
            try DetachedThread.start(name: "pasteboard-events", watching)
        } catch {
            let failure = ControlError("Cannot start a thread to watch the daemon: \(error.reason).", cause: error)
            continuation.finish(throwing: failure)
        }
        return stream
    }
}
