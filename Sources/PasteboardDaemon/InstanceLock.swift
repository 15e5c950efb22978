import FoundationEssentials
import SystemSupport
import PasteboardControl
#if canImport(Glibc)
import Glibc
import TextSupport
#endif

/// The lock that makes one daemon per user: an exclusive `flock` on `daemon.lock` in the runtime directory,
/// holding the owner's pid. Released when this object goes (or the process dies).
final class InstanceLock {
    private let fd: Int32

    /// Takes the lock at `path`, or says which daemon holds it.
    init(path: String) throws(DaemonError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let cause = SystemError.last("open")
            throw DaemonError("Cannot open \(path): \(cause.reason).", cause: cause)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.pid(in: fd)
            close(fd)
            throw DaemonError(
                "Another pb daemon is already running\(holder.map { " (pid \($0))" } ?? ""). Stop it first, or use it.")
        }
        let text = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, text, text.count, 0) == text.count else {
            let cause = SystemError.last("pwrite")
            close(fd)
            throw DaemonError("Cannot write the daemon's pid to \(path): \(cause.reason).", cause: cause)
        }
    }

    deinit { close(fd) }

    /// The pid a lock file holds, when it holds one.
    private static func pid(in fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingWhitespaceAndNewlines()
        return text.isEmpty ? nil : text
    }
}
