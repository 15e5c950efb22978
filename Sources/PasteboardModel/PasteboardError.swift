public import TextSupport

/// An error from a pasteboard operation, with a message a user can act on and, where another error led to it, that
/// error as its `cause`.
public struct PasteboardError: ActionableError, Equatable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        public static let noSuchPasteboard = Code(name: "noSuchPasteboard")
        public static let noSuchItem = Code(name: "noSuchItem")
        public static let typeNotAvailable = Code(name: "typeNotAvailable")
        public static let invalidContent = Code(name: "invalidContent")
        public static let storage = Code(name: "storage")
        public static let conversion = Code(name: "conversion")
        public static let unavailable = Code(name: "unavailable")
    }

    public let code: Code
    public let message: String
    /// The error that led to this one (a failed system call, a store or decoding error), kept for a caller that
    /// wants more than the message.
    public let cause: (any Error)?

    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// Two errors are equal when their code and message are: the cause is not compared (errors are not `Equatable`).
    public static func == (lhs: PasteboardError, rhs: PasteboardError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}
