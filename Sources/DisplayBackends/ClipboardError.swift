public import TextSupport

/// A failure of the system clipboard, with a message a user can act on and its cause.
public struct ClipboardError: ActionableError {
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ message: String, cause: (any Error & Sendable)? = nil) {
        self.message = message
        self.cause = cause
    }
}
