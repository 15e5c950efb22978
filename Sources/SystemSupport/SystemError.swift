#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which one, on what, and the `errno` it left. The one place `strerror` text is built.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, as in its man page (`connect`, `flock`, `poll`).
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The failure of `call` just now, from the thread's `errno`.
    public static func last(_ call: String) -> SystemError { SystemError(call, errno: Glibc.errno) }

    /// The C library's explanation of `errno` ("Permission denied").
    public var reason: String { Self.reason(errno: errno) }

    public var description: String { "\(call): \(reason)" }

    /// The C library's explanation of an error number ("No such file or directory"), for a failure that is reported
    /// without naming its call.
    public static func reason(errno code: Int32) -> String { String(cString: strerror(code)) }

    /// The explanation of the thread's `errno` just now.
    public static var lastReason: String { reason(errno: Glibc.errno) }
}
