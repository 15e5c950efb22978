public import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The resident popup's socket, `popup.sock` in the runtime directory: a `pasteboard-gtk` that keeps GTK running
/// (the main window's process, or `pasteboard-gtk --background`) listens there, so that `pb popup` and
/// `pasteboard-gtk --popup` show its prebuilt popup instead of starting GTK, which alone takes about 150 ms.
///
/// ```swift
/// let channel = PopupChannel(runtime: .standard())
/// let reply = try channel.show(PopupRequest(pastes: false, display: PopupRequest.display(environment: env)))
/// ```
public struct PopupChannel: Sendable {
    public let runtime: RuntimeDirectory

    public init(runtime: RuntimeDirectory) { self.runtime = runtime }

    public var socketPath: String { runtime.path + "/popup.sock" }
    /// Held (`flock`) by the one resident popup, which writes its pid there.
    public var lockPath: String { runtime.path + "/popup.lock" }

    /// Asks the resident popup to show (or, shown already, to take the focus) and returns its reply.
    /// - Throws: `notRunning` when nobody listens, `noAnswer` when the listener does not answer within `timeout`,
    ///   `refused` when it belongs to another user or says no (another display, say).
    @discardableResult
    public func show(_ request: PopupRequest, timeout: TimeInterval = 2) throws(ControlError) -> PopupReply {
        try runtime.checkOwnership()
        let socket = try UnixSocket.connect(to: socketPath, timeout: timeout)
        // The directory is the user's own (0700), but a socket is only trusted when its listener is this user.
        guard socket.peerUserID == getuid() else {
            throw ControlError("\(socketPath) is served by another user; refusing to use it.", code: .refused)
        }
        socket.setReceiveTimeout(timeout)
        try socket.sendAll(ControlProtocol.line(request))
        guard let line = try socket.readLine() else {
            throw ControlError("The resident popup closed the connection without answering.", code: .noAnswer)
        }
        let reply = try ControlProtocol.decode(PopupReply.self, from: line)
        guard reply.ok else {
            throw ControlError(reply.error ?? "The resident popup refused to show.", code: .refused)
        }
        return reply
    }
}

/// "Show the popup": one JSON line to the resident popup.
public struct PopupRequest: Codable, Sendable, Equatable {
    /// After copying, type the paste keystroke into the window that has the focus now.
    public var pastes: Bool
    /// The display the popup is asked for (`PopupRequest.display(environment:)`); a resident on another one says no.
    public var display: String?
    /// Present the main window instead of the popup (a second `pasteboard-gtk`: one instance); absent: the popup.
    public var window: Bool?

    public init(pastes: Bool, display: String?, window: Bool? = nil) {
        self.pastes = pastes
        self.display = display
        self.window = window
    }

    /// The display an environment names: `wayland:NAME` or `x11:NAME`, nil when neither is set.
    public static func display(environment: [String: String]) -> String? {
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty { return "wayland:" + wayland }
        if let x11 = environment["DISPLAY"], !x11.isEmpty { return "x11:" + x11 }
        return nil
    }
}

/// The resident popup's answer.
public struct PopupReply: Codable, Sendable, Equatable {
    public var ok: Bool
    /// `opened` (it was hidden) or `focused` (it was shown already).
    public var state: String?
    /// The resident process.
    public var pid: Int32?
    public var error: String?

    public init(ok: Bool, state: String? = nil, pid: Int32? = nil, error: String? = nil) {
        self.ok = ok
        self.state = state
        self.pid = pid
        self.error = error
    }
}
