public import TextSupport

/// A failure to install, enable or inspect the GNOME Shell extension, with what to do.
public struct ExtensionError: ActionableError {
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ message: String, cause: (any Error & Sendable)? = nil) {
        self.message = message
        self.cause = cause
    }
}
