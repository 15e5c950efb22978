import FoundationEssentials
internal import CSodium
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// Puts whole files into the sync folder: written and flushed elsewhere first, then renamed in, so neither
/// Syncthing nor a reader ever sees one half-written.
struct AtomicFile {
    /// Where files are written before they are renamed in (outside the folder, on this device only).
    let staging: URL

    /// Writes `data` to `destination` (mode 600), creating its directory. With `flushing` false the data is not
    /// flushed to disk before the rename; the caller flushes the file system (`flushFileSystem`) before anything
    /// that refers to the file is written.
    func write(_ data: Data, to destination: URL, flushing: Bool = true) throws(SyncError) {
        let directory = destination.deletingLastPathComponent()
        try Self.makeDirectory(directory)
        try Self.makeDirectory(staging)
        var temporary = staging.appendingPathComponent(".pb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
        try Self.writeFlushed(data, to: temporary, flushing: flushing)
        if rename(temporary.path, destination.path) != 0 {
            let failure = SystemError.last("rename")
            unlink(temporary.path)
            guard failure.errno == EXDEV else { throw Self.error("Cannot move a file into \(directory.path)", failure) }
            // Another file system: stage beside the destination under Syncthing's own temporary-file name, which
            // it never scans or sends.
            temporary = directory.appendingPathComponent(".syncthing.pb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
            try Self.writeFlushed(data, to: temporary, flushing: flushing)
            if rename(temporary.path, destination.path) != 0 {
                let failure = SystemError.last("rename")
                unlink(temporary.path)
                throw Self.error("Cannot move a file into \(directory.path)", failure)
            }
        }
    }

    private static func writeFlushed(_ data: Data, to url: URL, flushing: Bool) throws(SyncError) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw error("Cannot write \(url.path)", .last("open")) }
        var written = 0
        let failure: SystemError? = data.withUnsafeBytes { buffer -> SystemError? in
            while written < buffer.count {
                let count = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return .last("write")
                }
                written += count
            }
            return !flushing || fsync(fd) == 0 ? nil : .last("fsync")
        }
        let closed = close(fd) == 0 ? nil : SystemError.last("close")
        if let failure = failure ?? closed {
            unlink(url.path)
            throw error("Cannot write \(url.path)", failure)
        }
    }

    /// Flushes every file written on the file system holding `url` (`syncfs`): one call for a batch of payloads.
    static func flushFileSystem(_ url: URL) throws(SyncError) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw error("Cannot open \(url.path)", .last("open")) }
        defer { close(fd) }
        guard syncfs(fd) == 0 else { throw error("Cannot flush \(url.path) to disk", .last("syncfs")) }
    }

    static func makeDirectory(_ url: URL) throws(SyncError) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SyncError(.io, "Cannot create the directory \(url.path): \(SystemError.reason(of: error))", cause: error)
        }
    }

    /// An `.io` error saying `what` failed and why, with the failed call kept as its cause.
    static func error(_ what: String, _ failure: SystemError) -> SyncError {
        SyncError(.io, "\(what): \(failure.reason).", cause: failure)
    }

    /// Reads a whole file of at most `limit` bytes; a larger one is refused unread.
    static func read(_ url: URL, limit: Int) throws(SyncError) -> Data {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw error("Cannot read \(url.path)", .last("open")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error("Cannot read \(url.path)", .last("fstat")) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw SyncError(.rejected, "it is not a regular file") }
        guard Int(info.st_size) <= limit else { throw SyncError(.rejected, "it is larger than \(limit) bytes") }
        var data = Data(count: Int(info.st_size))
        var total = 0
        let failure: SystemError? = data.withUnsafeMutableBytes { buffer -> SystemError? in
            while total < buffer.count {
                let count = Glibc.read(fd, buffer.baseAddress! + total, buffer.count - total)
                if count < 0 {
                    if errno == EINTR { continue }
                    return .last("read")
                }
                if count == 0 { break }
                total += count
            }
            return nil
        }
        if let failure { throw error("Cannot read \(url.path)", failure) }
        return data.prefix(total)
    }
}
