public import TextSupport

/// An X11 failure with a message a user can act on.
public struct X11Error: ActionableError {
    public let message: String
    public init(_ message: String) { self.message = message }
}
