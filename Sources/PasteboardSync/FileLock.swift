import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a file, held while sync reads or writes the folder, so a daemon and a command never
/// write this device's log at the same time.
final class FileLock {
    private let fd: Int32

    init(path: String) throws(SyncError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw AtomicFile.error("Cannot open the sync lock \(path)", .last("open")) }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let failure = SystemError.last("flock")
            close(fd)
            throw AtomicFile.error("Cannot lock \(path)", failure)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
