import CWayland
import ClipboardBackend
import FoundationEssentials
import PasteboardModel
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

extension WaylandClipboard {
    // MARK: - A lost compositor

    /// The first retry comes this long after a loss; each failed one doubles the wait, up to `longestRetryDelay`.
    static let firstRetryDelay: TimeInterval = 0.1
    static let longestRetryDelay: TimeInterval = 2

    /// Connects again whenever the connection is lost (the compositor restarted, or crashed): a bounded backoff,
    /// from 0.1 s to 2 s between attempts, until a compositor answers on the same socket. The selections this
    /// process held are then set again with what they held.
    public func enableReconnection() { reconnects = true }

    /// What keeps this backend from working now, for `pb doctor`; nil while connected.
    public var problem: String? {
        guard !isConnected else { return nil }
        guard let reconnection else { return "the Wayland connection was lost" }
        let wait = Self.seconds(max(0, reconnection.next.timeIntervalSinceNow))
        return "compositor gone, retrying (\(reconnection.attempts) attempts so far, the next in \(wait) s; "
            + "last: \(reconnection.failure))"
    }

    /// One attempt to connect again; on failure the next is scheduled.
    func reconnect() {
        guard var attempt = reconnection else { return }
        attempt.attempts += 1
        dropConnection()
        do throws(WaylandError) {
            guard let fresh = wl_display_connect(displayName) else {
                throw WaylandError(.cannotConnect, Self.cannotConnect(displayName))
            }
            display = fresh
            displayFD = wl_display_get_fd(fresh)
            isDisplayOpen = true
            isConnected = true
            // Ours again before the first events, so an empty selection there is not taken for an owner's exit.
            try bind(within: Self.reconnectTimeout) {
                for (selection, held) in heldWhileGone { own(selection, item: held.item, once: held.once) }
            }
        } catch {
            isConnected = false
            // At once: a late answer on this connection would otherwise keep the loop's poll awake.
            dropConnection()
            let delay = min(Self.longestRetryDelay, Self.firstRetryDelay * pow(2, Double(attempt.attempts)))
            attempt.next = Date().addingTimeInterval(delay)
            attempt.failure = error.message
            reconnection = attempt
            return
        }
        let retaken = heldWhileGone.keys.map(\.name).sorted()
        heldWhileGone = [:]
        reconnection = nil
        var message = "pb: connected to the Wayland compositor again after \(attempt.attempts) attempts"
        if !retaken.isEmpty { message += "; holding \(retaken.joined(separator: " and ")) again" }
        FileDescriptor.writeToStandardError(message + "\n")
        flush()
    }

    /// Forgets every object of the lost connection (locally: nobody hears requests on it) and disconnects it. The
    /// selections held are kept in `heldWhileGone`; reads in progress go on, since their pipes do not depend on
    /// the compositor, while readers of our sources, the lost compositor's clients, are let go.
    func dropConnection() {
        guard isDisplayOpen else { return }
        for fd in Array(outgoing.keys) { finishTransfer(fd) }
        for (selection, source) in owned where source.withdrawAt == nil && heldWhileGone[selection] == nil {
            heldWhileGone[selection] = (source.item, source.once)
        }
        for proxy in roles.keys { wl_proxy_destroy(proxy) }
        for proxy in [seat, manager].compactMap({ $0 }) { wl_proxy_destroy(proxy) }
        roles = [:]
        offers = [:]
        current = [:]
        owned = [:]
        finishedSyncs = []
        registry = nil
        seat = nil
        manager = nil
        device = nil
        seatGlobal = nil
        managerGlobals = [:]
        descriptors.forget(displayFD)
        wl_display_disconnect(display)
        isDisplayOpen = false
    }

    /// Waits up to `timeout` until the compositor has handled every request sent so far (a `wl_display.sync`),
    /// dispatching the events that come before its answer. False when it did not answer in time or the connection
    /// broke: unlike `wl_display_roundtrip`, a compositor that accepted the connection but never answers (still
    /// starting, or stuck) cannot hold the caller.
    func sync(within timeout: TimeInterval) -> Bool {
        guard let callback = wl_display_sync(display) else { return false }
        attach(callback, as: .callback)
        defer {
            if roles.removeValue(forKey: callback) != nil { wl_proxy_destroy(callback) }
            finishedSyncs.remove(callback)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while !finishedSyncs.contains(callback) {
            if wl_display_flush(display) < 0 && errno != EAGAIN { return false }
            if wl_display_prepare_read(display) != 0 {
                if wl_display_dispatch_pending(display) < 0 { return false }
                continue
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                wl_display_cancel_read(display)
                return false
            }
            var socket = pollfd(fd: displayFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&socket, 1, Int32(remaining * 1000) + 1)
            if ready > 0 {
                if wl_display_read_events(display) < 0 { return false }
            } else {
                wl_display_cancel_read(display)
                if ready < 0 && errno != EINTR { return false }
            }
            if wl_display_dispatch_pending(display) < 0 { return false }
        }
        return true
    }
}
