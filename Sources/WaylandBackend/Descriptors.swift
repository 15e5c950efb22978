import CWayland
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// The pipes a Wayland backend reads and writes, folded into one descriptor its owner polls (an epoll instance,
/// readable whenever one of them is ready), with the display's own socket among them.
final class Descriptors {
    private let poll: EventPoll

    init() throws(WaylandError) {
        do {
            poll = try EventPoll()
        } catch {
            throw WaylandError(.system, "Cannot create an epoll instance: \(error.reason).", cause: error)
        }
    }

    var epoll: Int32 { poll.descriptor }

    /// Waits for input on `fd` (with `output`, for room to write instead); false when the kernel refused.
    @discardableResult
    func watch(_ fd: Int32, output: Bool = false) -> Bool { poll.watch(fd, input: !output, output: output) }

    /// Stops watching `fd` (before it is closed).
    func forget(_ fd: Int32) { poll.forget(fd) }

    /// The descriptors ready now, without waiting: (fd, hung up).
    func ready() -> [(fd: Int32, hungUp: Bool)] { poll.ready() }

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
