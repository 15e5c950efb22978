public import TextSupport

/// A failure the app shows to the user: one sentence saying what went wrong and, where it can, what to do.
public struct AppError: ActionableError {
    public let message: String

    public init(_ message: String) { self.message = message }
}
