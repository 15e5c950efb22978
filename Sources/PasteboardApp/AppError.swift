/// A failure the app shows to the user: one sentence saying what went wrong and, where it can, what to do.
public struct AppError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
