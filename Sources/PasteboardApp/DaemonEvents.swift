import Foundation
import GtkSupport
import PasteboardControl

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's events, delivered on the main loop: the history updates live, without polling.
///
/// The subscription's socket is watched by GLib's own poll (`MainLoop.watch`), with no thread or task of its own:
/// while no event comes the process sleeps, which a hidden resident popup needs (a task awaiting an
/// `AsyncSequence` keeps libdispatch's worker threads waking about once a second on Linux).
@MainActor
final class DaemonEvents {
    private let client: ControlClient
    private var socket: UnixSocket?
    private var watch: MainLoop.FileWatch?
    /// Whether a subscription is running.
    private(set) var isSubscribed = false
    /// Each event, on the main actor.
    var onEvent: (@MainActor (ControlEvent) -> Void)?
    /// The subscription ended (the reason). The daemon's return is awaited then, as after a `subscribe()` that
    /// found none: `onReturn` says when it is followed again.
    var onEnd: (@MainActor (String) -> Void)?
    /// A daemon started after all (its control socket appeared) and is followed now; the changes made meanwhile
    /// follow as events (or one `reload`), when the window saw some before.
    var onReturn: (@MainActor () -> Void)?
    /// inotify on the runtime directory while no daemon runs: its control socket appearing wakes the loop.
    private var arrivals: Int32 = -1
    private var arrivalWatch: MainLoop.FileWatch?

    /// With `approving`, the app answers "Allow Paste" questions (`paste-requested` events) too.
    private let isApproving: Bool
    /// The newest change of the history seen: a subscription after the daemon restarted starts after it, so the
    /// changes made meanwhile (by `pb`, an import, sync) come as events, or as one `reload`.
    private(set) var lastSequence: Int64?

    init(client: ControlClient, approving: Bool) {
        self.client = client
        isApproving = approving
    }

    /// Starts listening unless already listening. Returns false (and calls nothing) when no daemon answers.
    @discardableResult
    func subscribe() -> Bool {
        guard !isSubscribed else { return true }
        let socket: UnixSocket
        do {
            socket = try client.connect(timeout: 2)
            socket.setReceiveTimeout(2)
            let since = lastSequence
            try socket.sendAll(
                ControlProtocol.line(isApproving ? ControlRequest.approve(since: since) : .watch(since: since)))
            guard let acknowledgement = try socket.readLine() else { return false }
            let reply = try ControlProtocol.decode(ControlReply.self, from: acknowledgement)
            guard reply.ok, reply.watching == true else { return false }
            if since == nil { lastSequence = reply.seq }
        } catch {
            awaitDaemon()
            return false
        }
        stopAwaitingDaemon()
        // From now on read only what has arrived, when GLib says something has.
        let flags = fcntl(socket.fileDescriptor, F_GETFL)
        guard flags >= 0, fcntl(socket.fileDescriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        self.socket = socket
        isSubscribed = true
        watch = MainLoop.watch(socket.fileDescriptor) { [weak self] in self?.readEvents() ?? false }
        // The acknowledgement may have come with the first events.
        _ = readEvents()
        return true
    }

    /// Hands on every complete event line that has arrived; returns whether to keep watching.
    private func readEvents() -> Bool {
        guard let socket else { return false }
        while true {
            let line: Data?
            do {
                line = try socket.readLine()
            } catch  where error.code == .noAnswer && error.cause == nil {
                return true  // nothing more for now (the socket would block)
            } catch {
                end(error.message)
                return false
            }
            guard let line else {
                end("The daemon stopped.")
                return false
            }
            // A line that is not an event (from a newer daemon, say) is passed over, as ControlClient.events does.
            let event: ControlEvent
            do {
                event = try ControlProtocol.decode(ControlEvent.self, from: line)
            } catch {
                continue
            }
            if let seq = event.seq { lastSequence = max(lastSequence ?? 0, seq) }
            onEvent?(event)
        }
    }

    private func end(_ reason: String) {
        watch?.cancel()
        watch = nil
        socket = nil
        isSubscribed = false
        onEnd?(reason)
        awaitDaemon()
    }

    // MARK: - Waiting for a daemon

    /// Watches the runtime directory (inotify: no polling, no wake-up while nothing happens there) for the
    /// daemon's control socket, and subscribes once it answers.
    private func awaitDaemon() {
        guard arrivalWatch == nil else { return }
        let directory = client.runtime.path
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return }
        guard inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
            close(fd)  // no runtime directory yet: the daemon that makes it starts later than this window
            return
        }
        arrivals = fd
        arrivalWatch = MainLoop.watch(fd) { [weak self] in
            guard let self else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            // The socket file exists a moment before the daemon listens on it: try now and shortly after.
            self.tryReturn(attempts: 20)
            return self.arrivalWatch != nil
        }
    }

    private func tryReturn(attempts: Int) {
        guard !isSubscribed, arrivalWatch != nil, attempts > 0 else { return }
        guard FileManager.default.fileExists(atPath: client.runtime.socketPath), subscribe() else {
            _ = MainLoop.after(0.1) { [weak self] in self?.tryReturn(attempts: attempts - 1) }
            return
        }
        onReturn?()
    }

    private func stopAwaitingDaemon() {
        arrivalWatch?.cancel()
        arrivalWatch = nil
        if arrivals >= 0 { close(arrivals) }
        arrivals = -1
    }
}
