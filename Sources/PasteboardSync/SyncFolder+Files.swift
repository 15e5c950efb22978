import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every file the engine opens, writes, lists or removes in the sync folder goes through these, relative to the
/// folder's root. Whoever hosts the folder may have put anything there: a symbolic link in place of `devices/<id>`
/// or `payloads`, a named pipe named like a segment, a directory named like a payload. So below the root (which the
/// user chose, and may itself be a link) no path component is ever followed when it is a symbolic link: each
/// directory is opened with `O_NOFOLLOW` from the one above, and files are opened, renamed in and unlinked relative
/// to it. A file is opened with `O_NONBLOCK` (a FIFO never blocks the open) and read only when `fstat` says it is a
/// regular file.
extension SyncFolder {
    /// The root, opened as the directory it names (following a link: the user chose it).
    private func openRoot() throws(SyncError) -> Int32 {
        let fd = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw AtomicFile.error("Cannot open the sync folder \(root.path)", .last("open")) }
        return fd
    }

    /// The directory `components` below the root, each opened without following a link; missing ones are created
    /// (mode 700) when `creating`. The caller closes the descriptor.
    func openDirectory(_ components: [String], creating: Bool) throws(SyncError) -> Int32 {
        var fd = try openRoot()
        var walked = ""
        for component in components {
            walked += (walked.isEmpty ? "" : "/") + component
            var next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, creating {
                if mkdirat(fd, component, 0o700) != 0 && errno != EEXIST {
                    let failure = SystemError.last("mkdirat")
                    close(fd)
                    throw AtomicFile.error("Cannot create the directory \(walked) in the sync folder", failure)
                }
                next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard next >= 0 else {
                let failure = SystemError.last("openat")
                close(fd)
                if failure.errno == ELOOP || failure.errno == ENOTDIR {
                    throw SyncError(.rejected, "\(walked) in the sync folder is not a directory (a symbolic link is never followed)")
                }
                throw AtomicFile.error("Cannot open \(walked) in the sync folder", failure)
            }
            close(fd)
            fd = next
        }
        return fd
    }

    /// Runs `body` with the directory holding `path` (opened as `openDirectory` does) and the file's name in it.
    func withParent<T>(of path: String, creating: Bool = false, _ body: (Int32, String) throws(SyncError) -> T) throws(SyncError) -> T {
        var components = path.split(separator: "/").map(String.init)
        guard let name = components.popLast(), !name.isEmpty, name != ".", name != "..",
            !components.contains(where: { $0 == "." || $0 == ".." })
        else { throw SyncError(.rejected, "\(path) is not a path inside the sync folder") }
        let directory = try openDirectory(components, creating: creating)
        defer { close(directory) }
        return try body(directory, name)
    }

    /// Opens a file of the folder for reading: never through a link, never blocking, and only a regular file.
    /// Returns the descriptor (the caller closes it) and the file's size.
    func openFile(_ path: String) throws(SyncError) -> (fd: Int32, size: Int) {
        try withParent(of: path) { (directory, name) throws(SyncError) -> (fd: Int32, size: Int) in
            let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                let failure = SystemError.last("openat")
                if failure.errno == ELOOP { throw SyncError(.rejected, "it is a symbolic link (never followed)") }
                throw SyncError(.io, "it cannot be opened: \(failure.reason)", cause: failure)
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let failure = SystemError.last("fstat")
                close(fd)
                throw SyncError(.io, "it cannot be read: \(failure.reason)", cause: failure)
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw SyncError(.rejected, "it is not a regular file (a named pipe, device, socket or directory)")
            }
            return (fd, Int(info.st_size))
        }
    }

    /// Reads a whole small file of at most `limit` bytes (the folder's header); a larger one is refused unread.
    func read(_ path: String, limit: Int) throws(SyncError) -> Data {
        let (fd, size) = try openFile(path)
        defer { close(fd) }
        guard size <= limit else { throw SyncError(.rejected, "it is larger than \(limit) bytes") }
        var source = FileSource(fd: fd, size: size)
        return Data(try source.read(size))
    }

    /// Opens a sealed file of the folder (see `SecretStream`), a message at a time: no more than one message is
    /// in memory beyond what `message` keeps, and each declared length is checked against what is left of the
    /// file before anything is read. A file larger than `limit` is refused unread.
    func openSealed(
        _ path: String, limit: Int, key: SecretKey, message: (Data) throws(SyncError) -> Void
    ) throws(SyncError) {
        let (fd, size) = try openFile(path)
        defer { close(fd) }
        guard size <= limit else { throw SyncError(.rejected, "it is larger than \(limit) bytes") }
        var source = FileSource(fd: fd, size: size)
        try SecretStream.open(&source, key: key, context: path, message: message)
    }

    /// Opens a sealed file with whichever of `keys` (newest epoch first) it was sealed with; returns that key's
    /// epoch. A wrong key fails at the first message, before anything is handed to `message`; a file that fails
    /// after its first message is rejected as it is, not tried with another key.
    @discardableResult
    func openSealed(
        _ path: String, limit: Int, keys: [(epoch: Int, key: SecretKey)], message: (Data) throws(SyncError) -> Void
    ) throws(SyncError) -> Int {
        var firstFailure: SyncError?
        for (epoch, key) in keys {
            var delivered = false
            do throws(SyncError) {
                try openSealed(path, limit: limit, key: key) { (data) throws(SyncError) in
                    delivered = true
                    try message(data)
                }
                return epoch
            } catch {
                if delivered || error.code != .rejected { throw error }
                if firstFailure == nil { firstFailure = error }
            }
        }
        throw firstFailure ?? SyncError(.rejected, "it does not decrypt with this folder's key (modified, or from another folder)")
    }

    /// The size and modification time of the file at `path` itself (a link is not followed), or nil when there
    /// is none or a directory on the way is not one.
    func attributes(_ path: String) -> (size: Int, modified: Double)? {
        try? withParent(of: path) { (directory, name) throws(SyncError) -> (size: Int, modified: Double)? in  // no file: nil
            var info = stat()
            guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            return (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        } ?? nil
    }

    func exists(_ path: String) -> Bool { attributes(path) != nil }

    /// Removes the file at `path` (a link there is removed itself; nothing it points to is touched).
    func remove(_ path: String) throws(SyncError) {
        do throws(SyncError) {
            try withParent(of: path) { (directory, name) throws(SyncError) in
                if unlinkat(directory, name, 0) != 0 && errno != ENOENT {
                    throw AtomicFile.error("Cannot remove \(path) from the sync folder", .last("unlinkat"))
                }
            }
        } catch {
            if error.code == .io, (error.cause as? SystemError)?.errno == ENOENT { return }  // its directory is gone: so is the file
            throw error
        }
    }

    /// Writes `data` as the file at `path` (see `AtomicFile.write`), creating its directories, never through a link.
    func write(_ data: Data, to path: String, staging: AtomicFile, flushing: Bool = true) throws(SyncError) {
        try withParent(of: path, creating: true) { (directory, name) throws(SyncError) in
            try staging.write(data, into: directory, name: name, shownAs: url(path).path, flushing: flushing)
        }
    }

    /// Writes the file `produce` hands to its output a piece at a time as the file at `path` (see
    /// `AtomicFile.write(into:name:shownAs:produce:)`), creating its directories, never through a link.
    func write(to path: String, staging: AtomicFile, produce: (inout StagedOutput) throws(SyncError) -> Void) throws(SyncError) {
        try withParent(of: path, creating: true) { (directory, name) throws(SyncError) in
            try staging.write(into: directory, name: name, shownAs: url(path).path, produce: produce)
        }
    }

    /// The names in the directory `components` below the root (not `.` nor `..`), sorted; empty when it is
    /// missing or not a directory.
    func names(in components: [String]) -> [String] {
        guard let fd = try? openDirectory(components, creating: false) else { return [] }  // none (yet), or a link: nothing of ours
        guard let stream = fdopendir(fd) else {
            close(fd)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

/// A file read a piece at a time, for `SecretStream.open`: what is left is known from its size, so a declared
/// length larger than the rest is refused before anything is allocated for it.
struct FileSource: SealedSource {
    let fd: Int32
    let size: Int
    private var offset = 0

    init(fd: Int32, size: Int) {
        self.fd = fd
        self.size = size
    }

    var remaining: Int { size - offset }

    mutating func read(_ count: Int) throws(SyncError) -> [UInt8] {
        guard count <= remaining else { throw SyncError(.rejected, "it is truncated") }
        var bytes = [UInt8](repeating: 0, count: count)
        var total = 0
        let failure: SystemError? = bytes.withUnsafeMutableBytes { buffer -> SystemError? in
            while total < count {
                let read = pread(fd, buffer.baseAddress! + total, count - total, off_t(offset + total))
                if read < 0 {
                    if errno == EINTR { continue }
                    return .last("pread")
                }
                if read == 0 { break }
                total += read
            }
            return nil
        }
        if let failure { throw SyncError(.io, "it cannot be read: \(failure.reason)", cause: failure) }
        guard total == count else { throw SyncError(.rejected, "it is truncated") }
        offset += count
        return bytes
    }
}
