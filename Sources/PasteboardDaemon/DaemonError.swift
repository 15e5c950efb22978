public import TextSupport

/// A daemon failure with a message a user can act on, and its cause (a failed system call, a store error).
public struct DaemonError: ActionableError {
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ message: String, cause: (any Error & Sendable)? = nil) {
        self.message = message
        self.cause = cause
    }
}
