import CSystemShim
#if canImport(Glibc)
import Glibc
#endif

/// Several descriptors folded into one that an owner polls: an epoll instance, readable whenever one of them is
/// ready. A backend made of several pipes or connections gives its owner this one to poll.
public final class EventPoll {
    public let descriptor: Int32

    public init() throws(SystemError) {
        descriptor = pb_epoll_create()
        guard descriptor >= 0 else { throw SystemError.last("epoll_create1") }
    }

    deinit { close(descriptor) }

    /// Waits for input on `fd`, and for room to write with `output` (only that, without `input`); false when the
    /// kernel refused (no memory).
    @discardableResult
    public func watch(_ fd: Int32, input: Bool = true, output: Bool = false) -> Bool {
        pb_epoll_watch(descriptor, fd, Self.events(input, output), 0) == 0
    }

    /// Changes what `fd` (watched already) is waited for.
    @discardableResult
    public func change(_ fd: Int32, input: Bool = true, output: Bool) -> Bool {
        pb_epoll_watch(descriptor, fd, Self.events(input, output), 1) == 0
    }

    /// Stops watching `fd` (before it is closed). One not watched has nothing to undo.
    public func forget(_ fd: Int32) { _ = pb_epoll_forget(descriptor, fd) }

    /// The descriptors ready now, without waiting: (fd, hung up).
    public func ready() -> [(fd: Int32, hungUp: Bool)] {
        var fds = [Int32](repeating: 0, count: 64)
        var hangups = [Int32](repeating: 0, count: 64)
        let count = pb_epoll_ready(descriptor, &fds, &hangups, 64, 0)
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { (fds[$0], hangups[$0] != 0) }
    }

    private static func events(_ input: Bool, _ output: Bool) -> Int32 { (input ? 1 : 0) | (output ? 2 : 0) }
}
