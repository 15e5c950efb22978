public import PasteboardModel

/// What to read of an offer.
public enum FetchDecision: Equatable, Sendable {
    /// Read these types, in order.
    case fetch([String])
    /// A secret: read nothing, keep nothing.
    case secret
    /// Nothing worth keeping is offered.
    case nothing
}

/// The outcome of reading a selection as a client (`pb paste`, `Pasteboard.general.items`).
public enum ReadResult: Sendable {
    case item(PasteboardItem, offered: [String])
    /// Nobody owns the selection.
    case empty
    case failed(CaptureSkip)
}
