public import SystemSupport
public import TextSupport

/// A Wayland connection or protocol failure, with a message a user can act on.
public struct WaylandError: ActionableError {
    public enum Code: Sendable, Equatable {
        /// No compositor answers on the socket.
        case cannotConnect
        /// The compositor offers neither data-control protocol (GNOME's mutter, weston).
        case noDataControl
        /// The compositor offers no seat.
        case noSeat
        /// The connection broke or the compositor reported a protocol error.
        case connectionLost
        /// A pipe could not be made.
        case system
    }

    public let code: Code
    public let message: String
    /// The failed system call, for `.system`.
    public let cause: SystemError?

    public init(_ code: Code, _ message: String, cause: SystemError? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
