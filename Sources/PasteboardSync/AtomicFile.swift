import FoundationEssentials
internal import CSodium
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// Puts whole files into the sync folder: written and flushed elsewhere first, then renamed in, so neither
/// Syncthing nor a reader ever sees one half-written.
struct AtomicFile: Sendable {
    /// Where files are written before they are renamed in (outside the folder, on this device only).
    let staging: URL

    /// Writes `data` to `destination` (mode 600), creating its directory. With `flushing` false the data is not
    /// flushed to disk before the rename; the caller flushes the file system (`flushFileSystem`) before anything
    /// that refers to the file is written.
    func write(_ data: Data, to destination: URL, flushing: Bool = true) throws(SyncError) {
        let directory = destination.deletingLastPathComponent()
        try Self.makeDirectory(directory)
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error("Cannot open \(directory.path)", .last("open")) }
        defer { close(fd) }
        try write(data, into: fd, name: destination.lastPathComponent, shownAs: destination.path, flushing: flushing)
    }

    /// Writes `data` as `name` in the open directory `directory` (mode 600): staged, then renamed in relative to
    /// the directory's descriptor, so no link on the way there is followed. `shownAs` names it in errors.
    func write(_ data: Data, into directory: Int32, name: String, shownAs path: String, flushing: Bool = true) throws(SyncError) {
        try Self.makeDirectory(staging)
        let temporary = staging.appendingPathComponent(".pb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
        try Self.writeFlushed(data, into: AT_FDCWD, name: temporary.path, shownAs: temporary.path, flushing: flushing)
        if renameat(AT_FDCWD, temporary.path, directory, name) != 0 {
            let failure = SystemError.last("renameat")
            unlink(temporary.path)
            guard failure.errno == EXDEV else { throw Self.error("Cannot move a file in as \(path)", failure) }
            // Another file system: stage beside the destination under Syncthing's own temporary-file name, which
            // it never scans or sends.
            let beside = ".syncthing.pb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
            try Self.writeFlushed(data, into: directory, name: beside, shownAs: path, flushing: flushing)
            if renameat(directory, beside, directory, name) != 0 {
                let failure = SystemError.last("renameat")
                unlinkat(directory, beside, 0)
                throw Self.error("Cannot move a file in as \(path)", failure)
            }
        }
    }

    /// Writes the file `produce` hands to its output a piece at a time as `name` in the open directory `directory`
    /// (mode 600): staged and flushed, then renamed in like `write(_:into:name:shownAs:flushing:)`, so a file too large
    /// to hold in memory (a snapshot) is never seen half-written either. Nothing is left behind when `produce` throws.
    func write(into directory: Int32, name: String, shownAs path: String, produce: (inout StagedOutput) throws(SyncError) -> Void)
        throws(SyncError)
    {
        try Self.makeDirectory(staging)
        let temporary = staging.appendingPathComponent(".pb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = openat(AT_FDCWD, temporary.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw Self.error("Cannot write \(temporary.path)", .last("open")) }
        defer {
            close(fd)
            unlink(temporary.path)  // renamed in by then, or abandoned
        }
        var output = StagedOutput(fd: fd, shownAs: temporary.path)
        try produce(&output)
        try output.flush()
        guard fsync(fd) == 0 else { throw Self.error("Cannot write \(temporary.path)", .last("fsync")) }
        if renameat(AT_FDCWD, temporary.path, directory, name) == 0 { return }
        let failure = SystemError.last("renameat")
        guard failure.errno == EXDEV else { throw Self.error("Cannot move a file in as \(path)", failure) }
        // Another file system: copied beside the destination under Syncthing's own temporary-file name (see above).
        let beside = ".syncthing.pb-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let copy = openat(directory, beside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard copy >= 0 else { throw Self.error("Cannot write \(path)", .last("open")) }
        var copied: SystemError? = lseek(fd, 0, SEEK_SET) == 0 ? nil : .last("lseek")
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while copied == nil {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                copied = .last("read")
            } else if count == 0 {
                break
            } else {
                copied = buffer.withUnsafeBytes { Self.writeAll(copy, $0.baseAddress!, count) }
            }
        }
        if copied == nil, fsync(copy) != 0 { copied = .last("fsync") }
        if close(copy) != 0, copied == nil { copied = .last("close") }
        if copied == nil, renameat(directory, beside, directory, name) != 0 { copied = .last("renameat") }
        if let copied {
            unlinkat(directory, beside, 0)
            throw Self.error("Cannot move a file in as \(path)", copied)
        }
    }

    /// Writes all `count` bytes at `bytes` to `fd`; the failure, or nil.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> SystemError? {
        var written = 0
        while written < count {
            let done = Glibc.write(fd, bytes + written, count - written)
            if done < 0 {
                if errno == EINTR { continue }
                return .last("write")
            }
            written += done
        }
        return nil
    }

    private static func writeFlushed(_ data: Data, into directory: Int32, name: String, shownAs path: String, flushing: Bool)
        throws(SyncError)
    {
        let fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw error("Cannot write \(path)", .last("open")) }
        let failure: SystemError? = data.withUnsafeBytes { buffer -> SystemError? in
            if buffer.count > 0, let failure = writeAll(fd, buffer.baseAddress!, buffer.count) { return failure }
            return !flushing || fsync(fd) == 0 ? nil : .last("fsync")
        }
        let closed = close(fd) == 0 ? nil : SystemError.last("close")
        if let failure = failure ?? closed {
            unlinkat(directory, name, 0)
            throw error("Cannot write \(path)", failure)
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

    /// Reads a whole file of at most `limit` bytes; a larger one, or one that is not a regular file (never
    /// blocking on a named pipe), is refused unread.
    static func read(_ url: URL, limit: Int) throws(SyncError) -> Data {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
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

/// Where `AtomicFile.write(into:name:shownAs:produce:)` takes a file's bytes: gathered into pieces of 1 MiB before
/// each is written out.
struct StagedOutput {
    private let fd: Int32
    private let shownAs: String
    private var pending = Data()
    /// The bytes taken so far.
    private(set) var count = 0

    fileprivate init(fd: Int32, shownAs: String) {
        self.fd = fd
        self.shownAs = shownAs
    }

    mutating func append(_ bytes: Data) throws(SyncError) {
        pending.append(bytes)
        count += bytes.count
        if pending.count >= 1 << 20 { try flush() }
    }

    fileprivate mutating func flush() throws(SyncError) {
        guard !pending.isEmpty else { return }
        let (fd, pending) = (self.fd, self.pending)
        let failure = pending.withUnsafeBytes { AtomicFile.writeAll(fd, $0.baseAddress!, $0.count) }
        if let failure { throw AtomicFile.error("Cannot write \(shownAs)", failure) }
        self.pending.removeAll(keepingCapacity: true)
    }
}
