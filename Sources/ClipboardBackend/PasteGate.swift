/// A reader asked for data of a selection this process owns ("Allow Paste" decides whether it gets it).
public struct PasteRequest: Sendable, Equatable {
    /// The backend's number for this request, to answer a held one with `ClipboardBackend.resolvePaste`.
    public let ticket: Int
    public let selection: Selection
    /// The type asked for (an X11 target, a MIME type).
    public let type: String
    /// The reading application, as far as the display server tells (nothing on Wayland data-control).
    public let reader: SourceApplication

    public init(ticket: Int, selection: Selection, type: String, reader: SourceApplication) {
        self.ticket = ticket
        self.selection = selection
        self.type = type
        self.reader = reader
    }
}

/// What to do with a paste request.
public enum PasteDecision: Sendable, Equatable {
    /// Send the data now.
    case serve
    /// Refuse it now: the reader gets nothing.
    case refuse
    /// Keep the reader waiting (other requests go on being served) until `resolvePaste` answers.
    case hold
}

/// Where a backend asks before it sends data to a reader. Every call comes from the thread that drives the
/// backend, and must not block.
public protocol PasteGate: AnyObject {
    func pasteRequested(_ request: PasteRequest) -> PasteDecision
}

/// How far a backend can gate pastes.
public enum PasteGating: String, Sendable, Equatable {
    /// It holds requests and names the reading application (X11: the requestor's process).
    case namedReaders = "named-readers"
    /// It holds requests but cannot say who reads (Wayland data-control).
    case unnamedReaders = "unnamed-readers"
    /// It serves every reader at once.
    case unsupported
}

extension ClipboardBackend {
    /// A backend that does not gate pastes serves every reader at once.
    public var pasteGating: PasteGating { .unsupported }
    public func setPasteGate(_ gate: (any PasteGate)?) {}
    public func resolvePaste(ticket: Int, allow: Bool) {}
}
