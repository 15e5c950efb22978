public import TextSupport

/// A D-Bus failure: the bus could not be reached or spoke wrongly, a call timed out, or the peer answered with an
/// error reply (then `name` is the D-Bus error name, such as `org.freedesktop.DBus.Error.ServiceUnknown`).
public struct DBusError: ActionableError {
    /// What went wrong, as a code a caller may test.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        /// No bus answers at the address, or the address cannot be used.
        public static let cannotConnect = Code(name: "cannotConnect")
        /// The bus refused the authentication (SASL EXTERNAL) or answered it wrongly.
        public static let authenticationFailed = Code(name: "authenticationFailed")
        /// The connection is closed: by the bus, by `close()`, or after a protocol violation.
        public static let disconnected = Code(name: "disconnected")
        /// The peer sent bytes that are not a valid D-Bus message; the connection is closed.
        public static let malformed = Code(name: "malformed")
        /// The peer answered with an error reply; `name` says which.
        public static let errorReply = Code(name: "errorReply")
        /// No reply came before the call's timeout.
        public static let timeout = Code(name: "timeout")
        /// A value, signature or name given to this library is not valid D-Bus (nothing was sent).
        public static let invalidArgument = Code(name: "invalidArgument")
        /// A system call failed.
        public static let system = Code(name: "system")
    }

    public let code: Code
    public let message: String
    /// The D-Bus error name of an error reply (`org.pasteboard.Shell1.Error.Stale`); nil for every other failure.
    public let name: String?
    /// The failure behind this one (a failed system call), where there was one.
    public let cause: (any Error)?

    public init(_ code: Code, _ message: String, name: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.name = name
        self.cause = cause
    }
}
