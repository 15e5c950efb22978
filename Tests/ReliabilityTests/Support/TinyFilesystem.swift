import Foundation
import PasteboardTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A tmpfs of a few MiB mounted for one test, to fill up on purpose; unmounted (lazily, so a process still
/// holding a file there cannot block it) when it goes away.
///
/// Mounting needs root (or CAP_SYS_ADMIN): without it the test fails with a message saying so, never skips.
///
/// ```swift
/// let disk = try await TinyFilesystem(bytes: 2 << 20)
/// defer { withExtendedLifetime(disk) {} }
/// try disk.fill(leaving: 64 << 10)
/// ```
final class TinyFilesystem: Sendable {
    /// The directory the mount point is in (removed after the unmount).
    private let sandbox: ProcessSandbox
    let mountPoint: URL
    /// A file that takes up space on purpose; deleting it gives the space back.
    var fillerURL: URL { mountPoint.appendingPathComponent("filler") }

    init(bytes: Int) async throws {
        sandbox = try ProcessSandbox(label: "pbdisk")
        mountPoint = try sandbox.directory("disk")
        guard let mount = executableOnPath("mount") ?? executableOnPath("mount", path: "/usr/bin:/bin:/sbin") else {
            throw SetupFailure("The full-disk tests need the mount command (util-linux).")
        }
        let result = try await sandbox.run(
            mount, ["-t", "tmpfs", "-o", "size=\(bytes),mode=0755", "tmpfs", mountPoint.path], timeout: .seconds(20))
        guard result.succeeded else {
            throw SetupFailure(
                "Cannot mount a \(bytes / 1024) KiB tmpfs at \(mountPoint.path) (uid \(getuid())): "
                    + "\(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)). The full-disk tests need "
                    + "root or CAP_SYS_ADMIN to mount a small file system they can fill.")
        }
    }

    deinit {
        // Lazy: the mount goes as soon as nothing uses it any more, whatever a failed test left running.
        umount2(mountPoint.path, Int32(MNT_DETACH))
    }

    /// Bytes still free for an unprivileged writer.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(mountPoint.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Grows the filler file until at most `free` bytes are left (0: the file system is full).
    func fill(leaving free: Int) throws {
        let fd = open(fillerURL.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SetupFailure("Cannot create \(fillerURL.path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5A, count: 4096)
        while freeBytes > free {
            let wanted = min(chunk.count, freeBytes - free)
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, wanted) }
            if written < 0 {
                if errno == ENOSPC { break }
                throw SetupFailure("Cannot fill \(mountPoint.path): \(String(cString: strerror(errno)))")
            }
        }
        fsync(fd)
    }

    /// Deletes the filler file: the space comes back.
    func free() throws {
        guard unlink(fillerURL.path) == 0 || errno == ENOENT else {
            throw SetupFailure("Cannot delete \(fillerURL.path): \(String(cString: strerror(errno)))")
        }
    }
}
