import FoundationEssentials
import PasteboardControl
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of the control socket: accepts connections from this user only, reads request lines,
/// answers each through a handler, and sends events to watchers. Never blocks on a client.
///
/// Nor can clients wear it down (issue 27: 20,000 half-open connections at the file limit made it spin at 100 % CPU
/// and locked every client out): a connection that sends no complete request within `requestTimeout` is closed
/// (watchers, once subscribed, wait for events and are exempt); one process may hold at most
/// `maxConnectionsPerProcess` connections (further ones are closed as soon as they are accepted) and all together
/// at most `maxConnections`, kept well below the file limit (a new one then takes the place of the connection
/// silent the longest); and when `accept` fails (`EMFILE`), the listener is left out of the poll for
/// `acceptBackoff` instead of waking it again at once.
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
        /// The process that connected, for the per-process cap.
        let processID: pid_t?
        /// When it must have sent its next complete request (unless it is a watcher).
        var deadline: ContinuousClock.Instant

        init(socket: UnixSocket, processID: pid_t?, deadline: ContinuousClock.Instant) {
            self.socket = socket
            self.processID = processID
            self.deadline = deadline
        }
    }

    /// How long a connection may take to send a complete request (after connecting, or after its last one).
    static let requestTimeout = Duration.seconds(3)
    /// Connections one process may hold at once (`pb pick`, the app and a request each take one or two).
    static let maxConnectionsPerProcess = 32
    /// How long the listener rests after `accept` failed for want of descriptors or memory.
    static let acceptBackoff = Duration.milliseconds(250)
    /// Connections open at once, at most: 512, or fewer when the file limit is low (a quarter of it is kept for the
    /// store, the display connection, payload files and pipes).
    let maxConnections: Int
    /// While set, the listener is not polled (see `acceptBackoff`).
    private var listenerRestsUntil: ContinuousClock.Instant?
    /// Connections closed for a cap or a timeout since the last log line about them (logged at most every 10 s).
    private var shed = (count: 0, lastLog: ContinuousClock.Instant?.none)
    /// When a failed `accept` was last logged.
    private var acceptFailureLogged: ContinuousClock.Instant?

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
        var limit = rlimit()
        // RLIM_INFINITY is all ones (Swift cannot import the macro); any huge limit counts as 4096.
        let known = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0
        let files = known ? min(Int(clamping: limit.rlim_cur), 4096) : 4096
        maxConnections = max(8, min(512, files * 3 / 4 - 32))
    }

    deinit { unlink(path) }

    /// What to poll: the listening socket, then every client (for input, or for room when replies wait).
    var pollDescriptors: [pollfd] {
        (listenerRestsUntil == nil ? [pollfd(fd: listener.fileDescriptor, events: Int16(POLLIN), revents: 0)] : [])
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

    /// When `processTimeouts` has work: the earliest request deadline of a connection that is not a watcher, or the
    /// end of the listener's rest.
    var nextDeadline: ContinuousClock.Instant? {
        let deadlines = clients.values.lazy.filter { !$0.isWatcher && $0.unsent.isEmpty }.map(\.deadline)
        return [deadlines.min(), listenerRestsUntil].compactMap { $0 }.min()
    }

    /// Closes connections that sent no complete request in time, and ends the listener's rest when it is over.
    func processTimeouts(now: ContinuousClock.Instant = .now) {
        if let rest = listenerRestsUntil, now >= rest { listenerRestsUntil = nil }
        // A client whose replies wait for it to read is not silent but slow (it gave the daemon its requests): it
        // is closed only when the caps need its place (the longest-waiting first).
        for client in clients.values where !client.isWatcher && client.unsent.isEmpty && now >= client.deadline {
            drop(client)
            noteShed(now: now)
        }
    }

    /// Accepts what waits, a bounded number per turn so that a flood cannot hold the loop.
    private func accept() {
        let now = ContinuousClock.now
        for _ in 0..<64 {
            let socket: UnixSocket?
            do {
                socket = try listener.acceptWaiting()
            } catch {
                // EMFILE, ENFILE, ENOBUFS, ENOMEM: the connection stays queued and the listener readable. Rest, and
                // free what clients hold without a request in flight, so that the next turn can take it.
                listenerRestsUntil = now + Self.acceptBackoff
                if clients.count >= Self.sheddingFloor {
                    let silent = clients.values.filter { !$0.isWatcher }.sorted { $0.deadline < $1.deadline }
                    for client in silent.prefix(Self.sheddingFloor) { drop(client) }
                }
                noteShed(now: now, reason: error.message)
                return
            }
            guard let socket else { return }
            guard socket.peerUserID == getuid() else {
                log("refused a connection from another user")
                continue
            }
            let process = socket.peerProcessID
            let fromProcess = process.map { pid in clients.values.count { $0.processID == pid } } ?? 0
            guard fromProcess < Self.maxConnectionsPerProcess else {
                noteShed(now: now)
                continue  // closed as it goes: the client sees EOF
            }
            if clients.count >= maxConnections {
                // Full: the connection silent the longest makes room, so that many processes holding
                // connections open cannot lock out the next client with a real request.
                guard let silent = clients.values.filter({ !$0.isWatcher }).min(by: { $0.deadline < $1.deadline })
                else {
                    noteShed(now: now)
                    continue
                }
                drop(silent)
                noteShed(now: now)
            }
            clients[socket.fileDescriptor] = Client(
                socket: socket, processID: process, deadline: now + Self.requestTimeout)
        }
    }

    /// Below this many connections a failing `accept` is not the clients' doing, and none is closed for it; above,
    /// this many of the longest silent ones are, to make room for the connections queued behind them.
    private static let sheddingFloor = 16

    /// Counts a connection closed for a cap or a timeout (or a failed `accept`, with its `reason`), and says so in
    /// the log at most every 10 seconds for each of the two.
    private func noteShed(now: ContinuousClock.Instant, reason: String? = nil) {
        if let reason {
            if let last = acceptFailureLogged, now - last < .seconds(10) { return }
            acceptFailureLogged = now
            log("could not accept a control connection (\(reason)); the socket rests for \(Self.acceptBackoff)")
            return
        }
        shed.count += 1
        if let last = shed.lastLog, now - last < .seconds(10) { return }
        log(
            "closed \(shed.count) control connection\(shed.count == 1 ? "" : "s") over the limits "
                + "(\(Self.maxConnectionsPerProcess) per process, \(maxConnections) in all, a request within "
                + "\(Self.requestTimeout))")
        shed = (0, now)
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
            client.deadline = .now + Self.requestTimeout
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
        // Replies going out are no silence: the time for its next request counts from the last one read.
        if sent > 0 { client.deadline = .now + Self.requestTimeout }
        if client.unsent.isEmpty { answerPendingRequests(client, answer: answer) }
    }
}
