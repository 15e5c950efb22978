import CSystemShim
import PasteboardControl
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The write end of the self-pipe, for the signal handler.
/// nonisolated(unsafe): written once before the handlers are installed, then only read by the handler.
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

/// Turns SIGTERM and SIGINT into a readable byte for the daemon's poll loop (the self-pipe trick), so the loop
/// stops at its next turn whatever it was waiting for.
final class SignalPipe {
    /// Readable once a stop signal arrived.
    let fileDescriptor: Int32
    private let writeEnd: Int32

    init() throws(DaemonError) {
        var fds: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else {
            let cause = SystemError.last("pipe2")
            throw DaemonError("Cannot create a pipe for signals: \(cause.reason).", cause: cause)
        }
        fileDescriptor = fds[0]
        writeEnd = fds[1]
        signalPipeWrite = writeEnd
        let handler: @convention(c) (Int32) -> Void = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipeWrite, &byte, 1)
            if stopDeadlinePipeWrite >= 0 { _ = write(stopDeadlinePipeWrite, &byte, 1) }
        }
        signal(SIGTERM, handler)
        signal(SIGINT, handler)
        signal(SIGPIPE, SIG_IGN)
        // A process spawned from a thread that blocks signals (Dispatch workers do) inherits that mask.
        try Self.unblockStopSignals()
    }

    deinit {
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        signalPipeWrite = -1
        close(fileDescriptor)
        close(writeEnd)
    }

    /// The signal that arrived, once the pipe is readable.
    func take() -> Int32? {
        var byte: UInt8 = 0
        return read(fileDescriptor, &byte, 1) == 1 ? Int32(byte) : nil
    }

    /// Lets SIGTERM and SIGINT through: posix_spawn passes on the spawning thread's mask, and a daemon started by
    /// Foundation's Process from a Dispatch worker would otherwise never see them.
    static func unblockStopSignals() throws(DaemonError) {
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        guard sigprocmask(SIG_UNBLOCK, &stopSignals, nil) == 0 else {
            let cause = SystemError.last("sigprocmask")
            throw DaemonError("Cannot unblock SIGTERM and SIGINT: \(cause.reason).", cause: cause)
        }
    }
}
