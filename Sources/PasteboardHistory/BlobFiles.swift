import FoundationEssentials
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// Large blobs kept as content-addressed files beside the database: `blobs/ab/abcdef…`.
struct BlobFiles {
    /// Blobs of at least this many bytes live in files; smaller ones inside the database.
    static let fileThreshold = 64 * 1024

    let directory: URL

    func url(forHash hash: Data) -> URL {
        let hex = hash.hexString
        return directory.appendingPathComponent(String(hex.prefix(2))).appendingPathComponent(hex)
    }

    /// Writes the bytes (mode 0600) unless an intact file with this hash exists (a damaged one is replaced: copying
    /// the same bytes again repairs it); atomic via rename, flushed to disk.
    func write(_ data: Data, hash: Data) throws(HistoryError) {
        let target = url(forHash: hash)
        if check(hash: hash, size: data.count) == .intact { return }
        let parent = target.deletingLastPathComponent()
        if mkdir(directory.path, 0o700) != 0 && errno != EEXIST { throw fileError("create", directory.path) }
        if mkdir(parent.path, 0o700) != 0 && errno != EEXIST { throw fileError("create", parent.path) }
        let temporary = parent.appendingPathComponent(".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw fileError("create", temporary.path) }
        var failure: HistoryError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = fileError("write", temporary.path)
                    return
                }
                offset += written
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = fileError("flush", temporary.path) }
        close(fd)
        if failure == nil && rename(temporary.path, target.path) != 0 { failure = fileError("rename", target.path) }
        if let failure {
            unlink(temporary.path)
            throw failure
        }
    }

    /// What a payload file holds, checked against its address.
    enum FileState: Equatable {
        case intact
        case missing
        /// Another size than recorded, or bytes whose hash is not the file's name.
        case damaged
        /// A symbolic link or something else than a regular file where the payload should be.
        case notAFile
        /// The file is there but cannot be read (errno's message).
        case unreadable(String)
    }

    /// Reads the whole file (never through a symbolic link) and compares its size and SHA-256 with what the store
    /// recorded: the only way to know the bytes are still the ones copied.
    func check(hash: Data, size: Int) -> FileState {
        let path = url(forHash: hash).path
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return .missing }
            if errno == ELOOP { return .notAFile }
            return .unreadable(SystemError.lastReason)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .unreadable(SystemError.lastReason) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notAFile }
        guard Int(info.st_size) == size else { return .damaged }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .unreadable(SystemError.lastReason)
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return hasher.finalize().prefix(16) == hash ? .intact : .damaged
    }

    /// The first `count` bytes, without reading the whole file.
    func prefix(hash: Data, count: Int) -> Data {
        guard let file = try? ReadableFile(path: url(forHash: hash).path) else { return Data() }
        return (try? file.read(upToCount: count)) ?? Data()
    }

    /// Removes the payload file; one already gone is no failure.
    func remove(hash: Data) throws(HistoryError) {
        let path = url(forHash: hash).path
        if unlink(path) != 0 && errno != ENOENT {
            let cause = SystemError.last("unlink")
            throw HistoryError(.io, "Cannot remove the payload file \(path): \(cause.reason).", underlying: cause)
        }
    }

    /// The failure of the system call behind `action` just now (`create` is open or mkdir, `flush` is fsync).
    private func fileError(_ action: String, _ path: String) -> HistoryError {
        if errno == ENOSPC || errno == EDQUOT { return fullError(path) }
        let cause = SystemError.last(action)
        let code: HistoryError.Code = cause.errno == EACCES || cause.errno == EROFS ? .notWritable : .io
        return HistoryError(code, "Cannot \(action) \(path): \(cause.reason).", underlying: cause)
    }

    /// The disk (or the user's quota) ran out while writing `path`: said the way the database's own error says it.
    fileprivate func fullError(_ path: String) -> HistoryError {
        let cause = SystemError.last("write")
        return HistoryError(
            .full,
            "The disk holding \(directory.deletingLastPathComponent().path) is full: cannot write \(path) "
                + "(\(cause.reason)). Nothing was changed; free some space and retry.", underlying: cause)
    }
}

extension BlobFiles {
    /// Copies a file into the blob directory in chunks, hashing as it goes; returns its address and size.
    /// Memory stays bounded by the chunk size whatever the file's size.
    func copy(from source: URL) throws(HistoryError) -> (hash: Data, size: Int) {
        if mkdir(directory.path, 0o700) != 0 && errno != EEXIST { throw HistoryError(.notWritable, "Cannot create \(directory.path).") }
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        if input < 0 {
            let cause = SystemError.last("open")
            throw HistoryError(.invalidInput, "Cannot read \(source.path): \(cause.reason).", underlying: cause)
        }
        defer { close(input) }
        let temporary = directory.appendingPathComponent(".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        let output = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if output < 0 {
            let cause = SystemError.last("open")
            throw HistoryError(.notWritable, "Cannot create \(temporary.path): \(cause.reason).", underlying: cause)
        }
        var hasher = SHA256()
        var size = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failure: HistoryError?
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let cause = SystemError.last("read")
                failure = HistoryError(.io, "Cannot read \(source.path): \(cause.reason).", underlying: cause)
                break
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure =
                        errno == ENOSPC || errno == EDQUOT
                        ? fullError(temporary.path)
                        : HistoryError(
                            .io, "Cannot write \(temporary.path): \(SystemError.lastReason).",
                            underlying: SystemError.last("write"))
                    break copying
                }
                offset += written
            }
            size += count
        }
        if failure == nil && fsync(output) != 0 {
            failure =
                errno == ENOSPC || errno == EDQUOT
                ? fullError(temporary.path) : HistoryError(.io, "Cannot flush \(temporary.path).")
        }
        close(output)
        let hash = hasher.finalize().prefix(16)
        if failure == nil {
            let target = url(forHash: hash)
            if mkdir(target.deletingLastPathComponent().path, 0o700) != 0 && errno != EEXIST {
                failure = HistoryError(.notWritable, "Cannot create \(target.deletingLastPathComponent().path).")
            } else if rename(temporary.path, target.path) != 0 {
                let cause = SystemError.last("rename")
                failure = HistoryError(.io, "Cannot store \(target.path): \(cause.reason).", underlying: cause)
            }
        }
        if let failure {
            unlink(temporary.path)
            throw failure
        }
        return (Data(hash), size)
    }
}
