import CWayland
public import ClipboardBackend
public import FoundationEssentials
import PasteboardModel
#if canImport(Glibc)
import Glibc
import TextSupport
import SystemSupport
#endif

/// The Wayland clipboard engine, over a compositor's data-control protocol (`ext_data_control_manager_v1` where
/// offered, else `zwlr_data_control_manager_v1`): it watches a seat's selections without a window or focus,
/// reads the MIME types a `CaptureRun` asks for through pipes, and sets sources of its own to serve items back.
///
/// Single-threaded and event-driven, like the X11 engine: the caller polls `fileDescriptor` (an epoll instance
/// holding the compositor's socket and every pipe in use), then calls `processEvents()`, and calls
/// `processTimeouts(now:)` at `nextDeadline`. Nothing blocks on another client.
///
/// The compositor does not say which application made a copy: captures carry no source application.
///
/// After `enableReconnection()` (the daemon's choice), a lost connection is retried with a bounded backoff until
/// a compositor answers on the same socket again; the selections this process held are then set again.
public final class WaylandClipboard {
    /// The data-control protocol in use.
    public enum ProtocolFlavor: String, Sendable {
        case ext = "ext_data_control_manager_v1"
        case wlr = "zwlr_data_control_manager_v1"
    }

    /// What a proxy is, for the one dispatcher every event goes through.
    enum Role {
        case registry, device, offer, source, callback
    }

    public var limits = CaptureLimits()
    public private(set) var flavor = ProtocolFlavor.ext
    /// Whether the compositor's data-control has the primary selection.
    public private(set) var hasPrimary = false

    /// The connection: after a loss, the broken one until a new one is made.
    var display: OpaquePointer
    let descriptors: Descriptors
    var displayFD: Int32
    /// What `wl_display_connect` is given: a socket name, a path, or nil for `$WAYLAND_DISPLAY`.
    let displayName: String?
    var registry: OpaquePointer?
    var seat: OpaquePointer?
    var manager: OpaquePointer?
    var device: OpaquePointer?
    var dataControl: pb_data_control_protocol
    var roles: [OpaquePointer: Role] = [:]
    var isConnected = true
    /// Whether `display` is still to be disconnected (after a loss it is, once, when connecting again).
    var isDisplayOpen = true
    /// Set by `enableReconnection()`: a lost connection is retried rather than left lost.
    var reconnects = false
    /// While the connection is lost: the attempts made to connect again, the next one's time, the last failure.
    var reconnection: (attempts: Int, next: Date, failure: String)?
    /// What this process held when the connection was lost, to be set again once connected.
    var heldWhileGone: [Selection: (item: PasteboardItem, once: Bool)] = [:]
    /// `wl_display.sync` callbacks whose `done` came.
    var finishedSyncs: Set<OpaquePointer> = []

    /// Globals seen while connecting: name and version.
    var seatGlobal: (name: UInt32, version: UInt32)?
    var managerGlobals: [ProtocolFlavor: (name: UInt32, version: UInt32)] = [:]

    /// MIME types each live offer announced, in order.
    var offers: [OpaquePointer: [String]] = [:]
    /// The offer each selection holds now (nil: empty, or ours).
    var current: [Selection: OpaquePointer] = [:]
    /// The read of each selection's current offer.
    var captures: [Selection: CaptureJob] = [:]
    /// Reads of offers a newer copy replaced: their sources may still write what was asked for (wl-copy does,
    /// once asked), so they go on, and are kept unless a newer read of the selection finished first.
    var replaced: [CaptureJob] = []
    /// Pipe read end → the capture reading it.
    var captureFDs: [Int32: CaptureJob] = [:]
    var owned: [Selection: OwnedSource] = [:]
    var outgoing: [Int32: OutgoingTransfer] = [:]
    var watched: Set<Selection> = []
    weak var observer: (any SelectionObserver)?
    /// Counts selection changes: Wayland has no server time, so this stands in for one (per process).
    var clock: UInt = 0

    /// Connects to the compositor (`name`: a socket name in `$XDG_RUNTIME_DIR` or an absolute path; nil:
    /// `$WAYLAND_DISPLAY`) and binds its data-control manager for the first seat.
    ///
    /// - Throws: `WaylandError` `.cannotConnect`, `.noSeat`, or `.noDataControl` when the compositor offers
    ///   neither protocol (GNOME's mutter, weston).
    public init(displayName: String? = nil) throws(WaylandError) {
        guard let display = wl_display_connect(displayName) else {
            throw WaylandError(.cannotConnect, Self.cannotConnect(displayName))
        }
        self.display = display
        self.displayName = displayName
        displayFD = wl_display_get_fd(display)
        do {
            descriptors = try Descriptors()
        } catch {
            wl_display_disconnect(display)
            throw error
        }
        dataControl = pb_ext_data_control
        // From here on a throw runs deinit (self is whole), which disconnects.
        try bind(within: Self.connectTimeout)
    }

    /// How long a compositor has to answer while connecting; a reconnection tries again later.
    static let connectTimeout: TimeInterval = 10
    static let reconnectTimeout: TimeInterval = 0.25

    static func cannotConnect(_ displayName: String?) -> String {
        let shown = displayName ?? ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] ?? "wayland-0"
        return "Cannot connect to the Wayland compositor '\(shown)': \(SystemError.lastReason)."
    }

    /// Binds the first seat and the data-control manager on the fresh `display`, and reads what the selections
    /// hold; each round trip waits at most `timeout`.
    func bind(within timeout: TimeInterval, beforeFirstEvents prepare: () -> Void = {}) throws(WaylandError) {
        let noAnswer = WaylandError(
            .cannotConnect, "The Wayland compositor did not answer within \(Self.seconds(timeout)) s.")
        registry = wl_display_get_registry(display)
        attach(registry!, as: .registry)
        guard sync(within: timeout) else { throw noAnswer }
        guard let seatGlobal else {
            throw WaylandError(.noSeat, "The Wayland compositor offers no seat, so it has no clipboard.")
        }
        let chosen: ProtocolFlavor
        if let ext = managerGlobals[.ext] {
            chosen = .ext
            dataControl = pb_ext_data_control
            manager = pb_wl_registry_bind(registry, ext.name, dataControl.manager, min(ext.version, dataControl.max_version))
        } else if let wlr = managerGlobals[.wlr] {
            chosen = .wlr
            dataControl = pb_wlr_data_control
            manager = pb_wl_registry_bind(registry, wlr.name, dataControl.manager, min(wlr.version, dataControl.max_version))
        } else {
            throw WaylandError(
                .noDataControl,
                "The Wayland compositor offers no data-control protocol (\(ProtocolFlavor.ext.rawValue) or "
                    + "\(ProtocolFlavor.wlr.rawValue)), so no program may watch its clipboard. GNOME (mutter) has none: "
                    + "use XWayland (set DISPLAY, and the daemon watches X11 clients' copies) or a GNOME Shell "
                    + "clipboard extension.")
        }
        flavor = chosen
        hasPrimary = wl_proxy_get_version(manager) >= dataControl.primary_since
        seat = pb_wl_registry_bind(registry, seatGlobal.name, pb_wl_seat_interface(), 1)
        device = withUnsafePointer(to: &dataControl) { pb_dc_get_data_device(manager, $0, seat) }
        attach(device!, as: .device)
        descriptors.watch(displayFD)
        prepare()
        // The device's first events say what the selections hold now.
        guard sync(within: timeout) else { throw noAnswer }
    }

    static func seconds(_ interval: TimeInterval) -> String { CFormat.string("%.2g", interval) }

    deinit {
        for transfer in outgoing.values { close(transfer.fd) }
        for job in Array(captures.values) + replaced { closePipes(of: job) }
        guard isDisplayOpen else { return }
        for source in owned.values { pb_dc_destroy(source.proxy, UInt32(PB_DC_SOURCE_DESTROY)) }
        for offer in offers.keys { pb_dc_destroy(offer, UInt32(PB_DC_OFFER_DESTROY)) }
        if let device { pb_dc_destroy(device, UInt32(PB_DC_DEVICE_DESTROY)) }
        if let manager { pb_dc_destroy(manager, UInt32(PB_DC_MANAGER_DESTROY)) }
        if let seat { pb_wl_seat_release(seat) }
        if let registry { wl_proxy_destroy(registry) }
        wl_display_flush(display)
        wl_display_disconnect(display)
    }

    // MARK: - Event plumbing

    /// Sends every event of `proxy` to `dispatch`.
    func attach(_ proxy: OpaquePointer, as role: Role) {
        roles[proxy] = role
        // Unretained: the proxies are destroyed in deinit, so no event reaches a freed engine.
        let engine = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        wl_proxy_add_dispatcher(
            proxy,
            { engine, target, opcode, _, arguments in
                guard let engine, let target, let arguments else { return 0 }
                let clipboard = Unmanaged<WaylandClipboard>.fromOpaque(engine).takeUnretainedValue()
                clipboard.dispatch(OpaquePointer(target), opcode: opcode, arguments)
                return 0
            }, engine, nil)
    }

    private func dispatch(_ proxy: OpaquePointer, opcode: UInt32, _ arguments: UnsafeMutablePointer<wl_argument>) {
        switch roles[proxy] {
        case .registry:
            if opcode == UInt32(PB_WL_REGISTRY_EVENT_GLOBAL), let interface = arguments[1].s {
                let name = arguments[0].u
                let version = arguments[2].u
                switch String(cString: interface) {
                case "wl_seat" where seatGlobal == nil: seatGlobal = (name, version)
                case ProtocolFlavor.ext.rawValue: managerGlobals[.ext] = (name, version)
                case ProtocolFlavor.wlr.rawValue: managerGlobals[.wlr] = (name, version)
                default: break
                }
            }
        case .device:
            switch Int(opcode) {
            case Int(PB_DC_DEVICE_EVENT_DATA_OFFER):
                // A new-id argument of an event is the proxy libwayland made for it.
                guard let offer: OpaquePointer = arguments[0].o else { return }
                offers[offer] = []
                attach(offer, as: .offer)
            case Int(PB_DC_DEVICE_EVENT_SELECTION):
                selectionChanged(.clipboard, offer: arguments[0].o)
            case Int(PB_DC_DEVICE_EVENT_PRIMARY_SELECTION):
                selectionChanged(.primary, offer: arguments[0].o)
            default:
                // finished: the seat went away; the device is inert from now on.
                break
            }
        case .offer:
            if opcode == UInt32(PB_DC_OFFER_EVENT_OFFER), let type = arguments[0].s,
                let count = offers[proxy]?.count, count <= limits.maxOfferedTypes
            {
                offers[proxy]?.append(String(cString: type))
            }
        case .callback:
            // wl_callback.done, the answer to a wl_display.sync; the object is gone on the compositor's side.
            finishedSyncs.insert(proxy)
            roles[proxy] = nil
            wl_proxy_destroy(proxy)
        case .source:
            if opcode == UInt32(PB_DC_SOURCE_EVENT_SEND) {
                let fd = arguments[1].h
                guard let type = arguments[0].s else {
                    close(fd)
                    return
                }
                send(String(cString: type), to: fd, from: proxy)
            } else {
                sourceCancelled(proxy)
            }
        case nil:
            break
        }
    }

    // MARK: - The loop

    /// The epoll instance to poll for input.
    public var fileDescriptor: Int32 { descriptors.epoll }

    /// The earliest moment `processTimeouts(now:)` has work.
    public var nextDeadline: Date? {
        let jobs = Array(captures.values) + replaced
        var deadlines = jobs.map { $0.lastProgress.addingTimeInterval(limits.stallTimeout) }
        deadlines += jobs.map { $0.observedAt.addingTimeInterval(limits.slowOwnerCap) }
        deadlines += outgoing.values.map(\.deadline)
        deadlines += owned.values.compactMap(\.withdrawAt)
        if let reconnection { deadlines.append(reconnection.next) }
        return deadlines.min()
    }

    /// Handles every event and every pipe that is ready.
    public func processEvents() {
        guard isConnected else {
            servicePipes()
            return
        }
        // What libwayland already read off the socket would not wake the caller's poll: dispatch it first.
        while wl_display_prepare_read(display) != 0 {
            if wl_display_dispatch_pending(display) < 0 { return connectionFailed() }
        }
        _ = wl_display_flush(display)
        var socket = pollfd(fd: displayFD, events: Int16(POLLIN), revents: 0)
        if poll(&socket, 1, 0) > 0 {
            if wl_display_read_events(display) < 0 { return connectionFailed() }
        } else {
            wl_display_cancel_read(display)
        }
        if wl_display_dispatch_pending(display) < 0 { return connectionFailed() }
        servicePipes()
        flush()
    }

    /// Sends the requests made so far.
    func flush() {
        guard isConnected else { return }
        // EAGAIN (the socket is full) leaves them queued for the next flush.
        _ = wl_display_flush(display)
    }

    private func servicePipes() {
        // Bounded: a source writing without pause must not keep the loop from the compositor's events.
        for _ in 0..<64 {
            let ready = descriptors.ready().filter { $0.fd != displayFD }
            if ready.isEmpty { return }
            for (fd, hungUp) in ready {
                if let job = captureFDs[fd] {
                    readPipe(fd, for: job, hungUp: hungUp)
                } else if outgoing[fd] != nil {
                    writePipe(fd)
                } else {
                    descriptors.forget(fd)
                }
            }
        }
    }

    /// Waits until the compositor has handled every request sent so far, dispatching the events before its answer.
    func roundtrip() {
        guard isConnected else { return }
        if wl_display_roundtrip(display) < 0 { connectionFailed() }
    }

    func connectionFailed() {
        guard isConnected else { return }
        isConnected = false
        descriptors.forget(displayFD)
        let code = wl_display_get_error(display)
        let reason = SystemError.reason(errno: code)
        var message = "pb: the Wayland connection was lost (\(reason))"
        if reconnects {
            reconnection = (0, Date().addingTimeInterval(Self.firstRetryDelay), "the connection was lost (\(reason))")
            message += "; connecting again when the compositor is back"
        }
        FileDescriptor.writeToStandardError(message + "\n")
    }

    /// Abandons stalled captures and readers that stopped reading.
    public func processTimeouts(now: Date) {
        for job in Array(captures.values) + replaced {
            if now.timeIntervalSince(job.observedAt) >= limits.slowOwnerCap {
                endCapture(job)
                job.run.fail(.tookTooLong(job.currentType))
            } else if now.timeIntervalSince(job.lastProgress) >= limits.stallTimeout {
                stalled(job)
            }
        }
        for (fd, transfer) in outgoing where transfer.deadline <= now {
            finishTransfer(fd)
        }
        withdrawPasted(now: now)
        if let reconnection, reconnection.next <= now { reconnect() }
        flush()
    }
}
