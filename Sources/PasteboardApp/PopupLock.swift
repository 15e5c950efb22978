import Foundation
import SystemSupport
import PasteboardControl

#if canImport(Glibc)
    import Glibc
#endif

/// The lock that makes one resident popup per user: an exclusive `flock` on `popup.lock` in the runtime
/// directory, holding the owner's pid. Released when this object goes (or the process dies).
final class PopupLock {
    private let fd: Int32

    /// Why the lock could not be taken: another resident holds it (its pid when known), or a system call failed.
    struct Failure: Error {
        let message: String
        /// The resident holding the lock; nil for other failures.
        let holder: String?
        /// The failure underneath (a system call's, the runtime directory's), when there is one.
        var cause: (any Error & Sendable)? = nil
    }

    /// Takes the lock at `path`, or says which process holds it.
    init(path: String) throws(Failure) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let cause = SystemError.last("open")
            throw Failure(message: "Cannot open \(path): \(cause.reason).", holder: nil, cause: cause)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            let pid =
                count > 0
                ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                : ""
            close(fd)
            throw Failure(
                message: "A resident popup is already running\(pid.isEmpty ? "" : " (pid \(pid))").", holder: pid)
        }
        let text = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0, pwrite(fd, text, text.count, 0) == text.count else {
            let cause = SystemError.last("pwrite")
            close(fd)
            throw Failure(
                message: "Cannot write the popup's pid to \(path): \(cause.reason).", holder: nil, cause: cause)
        }
    }

    deinit { close(fd) }
}
