public import TextSupport

/// Why the picker could not run: no terminal, an unreadable store, a pattern that is not one.
public struct PickerError: ActionableError {
    public let message: String
    public let cause: (any Error)?

    public init(_ message: String, cause: (any Error)? = nil) {
        self.message = message
        self.cause = cause
    }
}
