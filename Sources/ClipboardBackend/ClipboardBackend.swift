public import FoundationEssentials
public import PasteboardModel
public import TextSupport

/// A display server's clipboard, as the daemon and the client clipboard layer use it: watch selections and hand
/// what is copied to a sink, own a selection to serve an item, clear it, read it.
///
/// A backend is single-threaded and event-driven: its owner polls `fileDescriptor` for input, calls
/// `processEvents()` when it is readable (and before every poll, for input already buffered), and calls
/// `processTimeouts(now:)` at `nextDeadline`. Nothing blocks on another client except `read`, which a client
/// calls on purpose.
public protocol ClipboardBackend: AnyObject {
    /// `x11`, `wayland`, `memory`.
    var name: String { get }
    /// The connection's file descriptor, to poll for input.
    var fileDescriptor: Int32 { get }
    /// The earliest moment `processTimeouts(now:)` has work.
    var nextDeadline: Date? { get }
    /// Handles every event that has arrived.
    func processEvents()
    /// Abandons stalled reads and readers.
    func processTimeouts(now: Date)
    /// Keep working across a display server restart: connect again when the connection is lost, rather than
    /// stay without it (the daemon asks for this; a short-lived owner does not). Default: nothing.
    func enableReconnection()
    /// What keeps the backend from working now, in words for a user (`compositor gone, retrying …`); nil when
    /// it works. Default: nil.
    var problem: String? { get }

    /// Starts reporting changes of `selections` to `sink`; with `capturing`, each new owner's offer is admitted
    /// through the sink, read and delivered. The sink is held weakly.
    func watch(_ selections: Set<Selection>, capturing: Bool, sink: any CaptureSink)
    /// Becomes the display's clipboard manager where it has one (X11 `CLIPBOARD_MANAGER`), so applications hand
    /// their clipboard over when they exit. False when another program holds the role.
    func becomeClipboardManager() -> Bool
    /// Captures what `selection` holds now, as if its owner had just changed.
    func captureCurrent(_ selection: Selection)

    /// Takes `selection` with `item`: readers then get any of its representations, byte-exact. With `once`, the
    /// selection is given up after the first paste. False when the display server refused.
    func own(_ selection: Selection, item: PasteboardItem, once: Bool) -> Bool
    /// Whether this process owns `selection`.
    func owns(_ selection: Selection) -> Bool
    /// Gives up a selection this process owns.
    func disown(_ selection: Selection)
    /// Leaves `selection` empty, whoever owns it, so pastes get nothing.
    func clear(_ selection: Selection)

    /// Reads `selection` now, waiting up to `timeout`. `choose` picks which offered types to read (default:
    /// everything worth keeping; a secret reads nothing).
    func read(_ selection: Selection, timeout: TimeInterval, choose: (([String]) -> FetchDecision)?) -> ReadResult
    /// When the current owner of `selection` took it, in the backend's clock (the same in every process), or nil.
    func currentOwnerTime(_ selection: Selection) -> UInt?
    /// The content type a representation offered under `typeName` is stored as, or nil for meta types.
    func contentType(forOfferedType typeName: String) -> ContentType?
    /// What of an offer is worth keeping, by this display's conventions: one text type first, then every other
    /// distinct type; `secret` when the offer carries a secret marker.
    func fetchPlan(for offeredTypes: [String]) -> FetchDecision

    // MARK: Allow Paste (defaults in PasteGate.swift: no gating)

    /// Whether this backend can hold a reader's request and name the reader.
    var pasteGating: PasteGating { get }
    /// Asks `gate` before sending data of an owned selection to a reader (nil: serve everyone). Held weakly.
    func setPasteGate(_ gate: (any PasteGate)?)
    /// Answers a request the gate held: send the data (when the selection still holds what was asked for) or refuse.
    func resolvePaste(ticket: Int, allow: Bool)
}

/// A backend failure with a message a user can act on, and its cause.
public struct BackendError: ActionableError {
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ message: String, cause: (any Error & Sendable)? = nil) {
        self.message = message
        self.cause = cause
    }
}
