import CSystemShim
import FoundationEssentials
import SystemSupport
import Synchronization
import PasteboardControl
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the deadline's pipe, for the signal handler.
/// nonisolated(unsafe): written once before the handlers are installed, then only read by the handler.
nonisolated(unsafe) var stopDeadlinePipeWrite: Int32 = -1

/// Makes a stop signal final within a bound: the daemon's loop normally stops at its next turn, but if it is
/// busy (a huge item being written, a slow disk) the process ends anyway once `grace` has passed since the
/// signal. SQLite's journal rolls an unfinished write back at the next open, the kernel drops the instance
/// lock and the X connection, and the next daemon removes the stale socket, so nothing stored is lost.
final class StopDeadline: Sendable {
    private let writeEnd: Int32
    /// Set once the loop has stopped by itself: the deadline then ends nothing.
    private let stopped = Stopped()

    private final class Stopped: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// `grace`: how long after SIGTERM or SIGINT the process may still live.
    init(grace: Duration) throws(DaemonError) {
        var fds: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else {
            let cause = SystemError.last("pipe2")
            throw DaemonError("Cannot create a pipe for the stop deadline: \(cause.reason).", cause: cause)
        }
        let readEnd = fds[0]
        writeEnd = fds[1]
        stopDeadlinePipeWrite = writeEnd
        let stopped = stopped
        let milliseconds = Int32(grace.components.seconds * 1000 + grace.components.attoseconds / 1_000_000_000_000_000)
        let watch: @Sendable () -> Void = {
            defer { close(readEnd) }
            var signalled = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            while poll(&signalled, 1, -1) < 0 && errno == EINTR {}
            // No byte but a hang-up: the write end was closed because the daemon stopped without a signal.
            guard signalled.revents & Int16(POLLIN) != 0 else { return }
            var nothing = pollfd(fd: -1, events: 0, revents: 0)
            _ = poll(&nothing, 0, milliseconds)  // a sleep; an EINTR only shortens it
            if stopped.value.load(ordering: .acquiring) { return }
            let message = "pb daemon: still busy \(milliseconds) ms after the stop signal; exiting now\n"
            message.utf8CString.withUnsafeBufferPointer { buffer in
                _ = write(2, buffer.baseAddress, buffer.count - 1)
            }
            _exit(0)
        }
        do {
            try DetachedThread.start(name: "pb-stop-deadline", watch)
        } catch {
            // The thread would have closed the read end; `deinit` (which runs, since `self` is whole) closes the other.
            close(readEnd)
            throw DaemonError("Cannot start the stop deadline's thread: \(error.reason).", cause: error)
        }
    }

    deinit {
        stopped.value.store(true, ordering: .releasing)
        stopDeadlinePipeWrite = -1
        close(writeEnd)  // wakes the thread with a hang-up when no signal came; it closes its end itself
    }
}
