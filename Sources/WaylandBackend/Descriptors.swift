import CWayland
import FoundationEssentials
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The pipes a Wayland backend reads and writes, folded into one descriptor its owner polls (an epoll instance,
/// readable whenever one of them is ready), with the display's own socket among them.
final class Descriptors {
    let epoll: Int32

    init() throws(WaylandError) {
        epoll = pb_epoll_create()
        guard epoll >= 0 else {
            let cause = SystemError.last("epoll_create1")
            throw WaylandError(.system, "Cannot create an epoll instance: \(cause.reason).", cause: cause)
        }
    }

    deinit { close(epoll) }

    /// Waits for input on `fd` (with `output`, for room to write); false when the kernel refused.
    @discardableResult
    func watch(_ fd: Int32, output: Bool = false) -> Bool { pb_epoll_watch(epoll, fd, output ? 1 : 0, 0) == 0 }

    /// Stops watching `fd` (before it is closed).
    func forget(_ fd: Int32) { _ = pb_epoll_forget(epoll, fd) }

    /// The descriptors ready now, without waiting: (fd, hung up).
    func ready() -> [(fd: Int32, hungUp: Bool)] {
        var fds = [Int32](repeating: 0, count: 64)
        var hangups = [Int32](repeating: 0, count: 64)
        let count = pb_epoll_ready(epoll, &fds, &hangups, 64, 0)
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { (fds[$0], hangups[$0] != 0) }
    }

    /// A new pipe, both ends close-on-exec, the read end non-blocking: (read end, write end).
    static func pipe() throws(WaylandError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pb_wl_pipe(&fds) == 0 else {
            let cause = SystemError.last("pipe2")
            throw WaylandError(.system, "Cannot create a pipe: \(cause.reason).", cause: cause)
        }
        return (fds[0], fds[1])
    }
}
