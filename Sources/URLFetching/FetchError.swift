public import TextSupport

/// Why a download gave nothing: one sentence for the user, and what kind of failure it was (for exit codes and tests).
public struct FetchError: ActionableError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Not an http or https address.
        case badAddress
        /// A loopback, private or link-local address the user did not type, or a redirect to another scheme.
        case refused
        /// The server answered with an error status.
        case httpStatus(Int)
        /// Connecting, a stall or the whole download took too long.
        case timeout
        /// The body (declared or decoded) is larger than the limit.
        case tooLarge
        /// Ended by `cancel()`.
        case cancelled
        /// Content that is neither an image nor a web page or text, or is empty.
        case unsupportedContent
        /// Name resolution, the connection, TLS, a corrupt body, or no libcurl.
        case network
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
