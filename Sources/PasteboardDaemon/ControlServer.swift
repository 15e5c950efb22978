import FoundationEssentials
import PasteboardControl
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of the control socket: accepts connections from this user only, reads request lines,
/// answers each through a handler, and sends events to watchers. Never blocks on a client.
final class ControlServer {
    /// One connection.
    private final class Client {
        let socket: UnixSocket
        /// Received bytes not yet a complete line.
        var pending = Data()
        /// Replies the client has not taken yet (its socket was full). It is not read from until it takes them,
        /// so a client may send any number of requests at once without the daemon blocking or dropping a reply.
        var unsent = Data()
        var isWatcher = false
        /// It answers "Allow Paste" questions (`approve`).
        var isApprover = false

        init(socket: UnixSocket) { self.socket = socket }
    }

    private let listener: UnixSocket
    private let path: String
    private var clients: [Int32: Client] = [:]
    /// Missed changes to send a reconnecting watcher right after its `watch` reply.
    private var pendingReplays: [Int32: [ControlEvent]] = [:]
    private let log: (String) -> Void

    /// Listens at `path` (the caller holds the instance lock).
    init(path: String, log: @escaping (String) -> Void) throws(DaemonError) {
        do {
            listener = try UnixSocket.listen(at: path)
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        self.path = path
        self.log = log
    }

    deinit { unlink(path) }

    /// What to poll: the listening socket, then every client (for input, or for room when replies wait).
    var pollDescriptors: [pollfd] {
        [pollfd(fd: listener.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            + clients.map { fd, client in pollfd(fd: fd, events: Int16(client.unsent.isEmpty ? POLLIN : POLLOUT), revents: 0) }
    }

    /// Handles what `poll` reported for the descriptors `pollDescriptors` gave.
    func service(_ ready: ArraySlice<pollfd>, answer: (ControlRequest) -> ControlReply) {
        for entry in ready where entry.revents != 0 {
            if entry.fd == listener.fileDescriptor {
                accept()
            } else if let client = clients[entry.fd] {
                // (A client dropped earlier in this round, such as a watcher that fell behind, has no entry.)
                if client.unsent.isEmpty { receive(from: client, answer: answer) } else { flush(client, answer: answer) }
            }
        }
    }

    /// How many connections answer "Allow Paste" questions.
    var approverCount: Int { clients.values.count { $0.isApprover } }

    /// Sends an event to every watcher. A watcher that cannot keep up is dropped rather than blocking the daemon.
    func broadcast(_ event: ControlEvent) {
        let line = ControlProtocol.line(event)
        for client in clients.values where client.isWatcher { send(line, to: client) }
    }

    /// Most bytes of events a watcher may leave unread before it is dropped: a burst (a reconnecting watcher's
    /// missed changes, an import's deletions) waits for it; a watcher that stopped reading does not hold the daemon.
    static let maxUnsentEventBytes = 1 << 20

    private func send(_ line: Data, to client: Client) {
        if client.unsent.isEmpty {
            guard let sent = client.socket.sendAvailable(line) else { return drop(client) }
            if sent < line.count { client.unsent = Data(line.dropFirst(sent)) }
        } else if client.unsent.count + line.count <= Self.maxUnsentEventBytes {
            client.unsent.append(line)
        } else {
            drop(client)
        }
    }

    /// The newest change a new watcher starts after, and the events of those a reconnecting one missed after its
    /// `since` (nil: too many, or no longer kept: it is told to reload).
    var changes: (latest: () -> Int64?, missed: (Int64) -> [ControlEvent]?)?

    // MARK: - Connections

    private func accept() {
        guard let socket = listener.accept() else { return }
        guard socket.peerUserID == getuid() else {
            log("refused a connection from another user")
            return
        }
        clients[socket.fileDescriptor] = Client(socket: socket)
    }

    private func drop(_ client: Client) {
        clients[client.socket.fileDescriptor] = nil
        pendingReplays[client.socket.fileDescriptor] = nil
    }

    private func receive(from client: Client, answer: (ControlRequest) -> ControlReply) {
        let chunk: Data?
        do {
            chunk = try client.socket.receive(limit: 4096)
        } catch {
            drop(client)
            return
        }
        guard let chunk else { return }  // nothing after all
        if chunk.isEmpty {
            drop(client)
            return
        }
        client.pending.append(chunk)
        if client.pending.count > ControlProtocol.maxLineBytes {  // not a control request
            drop(client)
            return
        }
        answerPendingRequests(client, answer: answer)
    }

    /// Answers the complete lines `client` has sent, in order, until a reply does not fit in its socket.
    private func answerPendingRequests(_ client: Client, answer: (ControlRequest) -> ControlReply) {
        while client.unsent.isEmpty, let newline = client.pending.firstIndex(of: 0x0A) {
            let line = client.pending[client.pending.startIndex..<newline]
            client.pending = Data(client.pending[client.pending.index(after: newline)...])
            let reply = ControlProtocol.line(respond(to: line, from: client, answer: answer))
            guard clients[client.socket.fileDescriptor] != nil else { return }  // dropped meanwhile
            guard let sent = client.socket.sendAvailable(reply) else {
                drop(client)
                return
            }
            if sent != reply.count { client.unsent = Data(reply.dropFirst(sent)) }
            if let missed = pendingReplays.removeValue(forKey: client.socket.fileDescriptor) {
                for event in missed { send(ControlProtocol.line(event), to: client) }
            }
        }
    }

    private func respond(to line: Data, from client: Client, answer: (ControlRequest) -> ControlReply) -> ControlReply {
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(line)
        } catch {
            return .failure(error.message)
        }
        if let subscription = request.subscription {
            client.isWatcher = true
            if subscription.approving { client.isApprover = true }
            var reply = ControlReply()
            reply.watching = true
            reply.seq = changes?.latest()
            if let since = subscription.since, let changes {
                // Sent after the reply (queued behind it), before any live event.
                let missed = changes.missed(since) ?? [ControlEvent(.reload, time: Date().timeIntervalSince1970)]
                pendingReplays[client.socket.fileDescriptor] = missed
            }
            return reply
        }
        return answer(request)
    }

    /// Sends replies that did not fit before; once all are out, answers what else the client sent meanwhile.
    private func flush(_ client: Client, answer: (ControlRequest) -> ControlReply) {
        guard let sent = client.socket.sendAvailable(client.unsent) else {
            drop(client)
            return
        }
        client.unsent.removeFirst(sent)
        if client.unsent.isEmpty { answerPendingRequests(client, answer: answer) }
    }
}
