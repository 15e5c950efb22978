public import TextSupport

/// A control-protocol failure with a message a user can act on, and its cause.
public struct ControlError: ActionableError {
    /// What kind of failure, for code that reacts to one kind.
    public struct Code: Hashable, Sendable {
        let name: String
        /// No daemon listens on the socket.
        public static let notRunning = Code(name: "notRunning")
        /// The daemon did not answer in time, or closed the connection.
        public static let noAnswer = Code(name: "noAnswer")
        /// The daemon answered with an error.
        public static let refused = Code(name: "refused")
        /// A line that is not a request or reply of this protocol.
        public static let malformed = Code(name: "malformed")
        /// The runtime directory or the process behind the socket is not this user's (another user may pose as
        /// the daemon): nothing was sent.
        public static let untrusted = Code(name: "untrusted")
        /// Anything else (a failed system call, say).
        public static let other = Code(name: "other")
    }

    public let code: Code
    public let message: String
    public let cause: (any Error & Sendable)?

    public init(_ message: String, code: Code = .other, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
