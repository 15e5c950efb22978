/// The daemon's answer to one request: `ok`, else `error`; the other fields belong to some requests only.
public struct ControlReply: Codable, Sendable, Equatable {
    public var ok: Bool
    /// Why the request failed, in words a user can act on.
    public var error: String?
    /// `ping`, `status`: the daemon's process id.
    public var pid: Int32?
    /// `ping`, `status`: the protocol version the daemon speaks (`ControlProtocol.version`).
    public var `protocol`: Int?
    /// `status`: `x11` or `headless`; `restore` on a headless daemon: `headless` (nothing to own).
    public var backend: String?
    /// `status`: the store's database file and the control socket.
    public var store: String?
    public var socket: String?
    /// `status`: how many items the history holds.
    public var items: Int?
    /// `watch`: events follow on this connection.
    public var watching: Bool?
    /// `watch`: the newest change of the history before the events that follow (a reconnecting watcher passes
    /// the last `seq` it saw as `since`).
    public var seq: Int64?
    /// `forget`: whether a selection held one of the items and was emptied.
    public var cleared: Bool?
    /// `status`: how many connections answer "Allow Paste" questions (running apps).
    public var approvers: Int?
    /// `status`: how far the backend gates pastes: `named-readers`, `unnamed-readers` or `unsupported`.
    public var pasteGating: String?
    /// `status`: what keeps the display backend from working now (`compositor gone, retrying …`); absent when it
    /// works.
    public var backendProblem: String?
    /// `status`: what the backend in use sees and serves, in words (the GNOME backend's, with or without its Shell
    /// extension); absent for backends that say nothing more than their name.
    public var backendSummary: String?

    public init(ok: Bool = true, error: String? = nil) {
        self.ok = ok
        self.error = error
    }

    /// A refusal with `message`.
    public static func failure(_ message: String) -> ControlReply { ControlReply(ok: false, error: message) }
}
