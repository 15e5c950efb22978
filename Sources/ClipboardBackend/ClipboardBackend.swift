public import FoundationEssentials
public import PasteboardModel
public import TextSupport

/// A display server's clipboard, as the daemon and the client clipboard layer use it: primitives only. It reports
/// who owns the watched selections, reads an owner's offer as a `CaptureRun` asks, owns a selection to serve an
/// item, and clears it. What a capture reads and keeps is decided above it, once for every backend
/// (`CapturePipeline`, `CaptureRun`); a client's read is `read(_:timeout:choose:)`, built on the same run.
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
    /// What the backend sees and serves, in words, where its name does not say it all (`pb doctor`). Default: nil.
    var summary: String? { get }

    /// Starts reporting owner changes of `selections` to `observer` (held weakly). Nothing is read on its own: the
    /// capture pipeline reads each new owner's offer through `startReading`.
    func watch(_ selections: Set<Selection>, observer: any SelectionObserver)
    /// Becomes the display's clipboard manager where it has one (X11 `CLIPBOARD_MANAGER`), so applications hand
    /// their clipboard over when they exit. False when another program holds the role.
    func becomeClipboardManager() -> Bool

    /// Starts reading the offer `selection` holds now into `run`, without waiting: the backend lists the owner's
    /// types and who the owner is, fetches the types `run` asks for (each bounded by its `CaptureLimits` in bytes
    /// and time), and reports each to `run` (see `CaptureRun` for the order). It decides nothing itself. A newer
    /// read of the same selection may end an older one (`superseded`) where the transport cannot carry both.
    func startReading(_ selection: Selection, into run: CaptureRun) -> ReadStart

    /// Takes `selection` with `item`: readers then get any of its representations, byte-exact. With `once`, the
    /// selection is given up after the first paste. False when the display server refused.
    func own(_ selection: Selection, item: PasteboardItem, once: Bool) -> Bool
    /// Whether this process owns `selection`.
    func owns(_ selection: Selection) -> Bool
    /// Gives up a selection this process owns.
    func disown(_ selection: Selection)
    /// Leaves `selection` empty, whoever owns it, so pastes get nothing.
    func clear(_ selection: Selection)
    /// When the current owner of `selection` took it, in the backend's clock (the same in every process), or nil.
    func currentOwnerTime(_ selection: Selection) -> UInt?

    // MARK: Allow Paste (defaults in PasteGate.swift: no gating)

    /// Whether this backend can hold a reader's request and name the reader.
    var pasteGating: PasteGating { get }
    /// Asks `gate` before sending data of an owned selection to a reader (nil: serve everyone). Held weakly.
    func setPasteGate(_ gate: (any PasteGate)?)
    /// Answers a request the gate held: send the data (when the selection still holds what was asked for) or refuse.
    func resolvePaste(ticket: Int, allow: Bool)
}

extension ClipboardBackend {
    public var summary: String? { nil }
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
