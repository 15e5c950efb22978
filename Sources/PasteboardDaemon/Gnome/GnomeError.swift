public import TextSupport

/// A failure of the GNOME backend, with a message a user can act on and its cause.
public struct GnomeError: ActionableError {
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ message: String, cause: (any Error & Sendable)? = nil) {
        self.message = message
        self.cause = cause
    }
}
