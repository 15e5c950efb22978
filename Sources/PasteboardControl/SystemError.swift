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
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(call): \(reason)" }
}
