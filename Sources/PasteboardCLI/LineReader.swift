import FoundationEssentials
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a file or standard input one line at a time into a single buffer that grows only to the longest line,
/// so that memory is bounded by the largest item, never by the file.
///
/// The buffer grows with `realloc`, which for large blocks moves pages instead of copying them: a 200 MB line
/// costs about 200 MB, not twice that. Each line is handed out as mutable bytes (for decoding in place), valid
/// until the next call.
///
/// ```swift
/// let reader = try LineReader(path: "backup.jsonl")
/// while let line = try reader.nextLine() { … }
/// ```
final class LineReader {
    /// Reading failed; the message names the file.
    struct Failure: Error {
        let message: String
    }

    private let fd: Int32
    private let ownsDescriptor: Bool
    private let name: String
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    /// Unread bytes are `start..<end`; a line feed is known not to occur in `start..<scanned`.
    private var start = 0
    private var end = 0
    private var scanned = 0
    private var atEndOfInput = false
    /// Bytes read so far.
    private(set) var bytesRead: Int64 = 0
    /// The input's size when it is a regular file (for progress), else nil.
    let totalBytes: Int64?

    static let chunkSize = 1 << 20

    /// Reads the file at `path`.
    convenience init(path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let reason = errno == ENOENT ? "no such file" : SystemError.lastReason
            throw Failure(message: "Cannot read \(path): \(reason).")
        }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw Failure(message: "Cannot read \(path): it is a directory.")
        }
        self.init(descriptor: fd, name: path, owning: true)
    }

    /// Reads an open descriptor (standard input), which stays open.
    init(descriptor: Int32, name: String, owning: Bool = false) {
        fd = descriptor
        ownsDescriptor = owning
        self.name = name
        capacity = Self.chunkSize
        // malloc, so that realloc can grow it. Out of memory traps, as any Swift allocation does.
        guard let block = malloc(Self.chunkSize) else { preconditionFailure("out of memory") }
        buffer = block
        var info = stat()
        totalBytes = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
    }

    deinit {
        free(buffer)
        if ownsDescriptor { close(fd) }
    }

    /// The next line without its line feed, or nil at the end of the input. A last line without a line feed counts.
    func nextLine() throws(Failure) -> UnsafeMutableRawBufferPointer? {
        while true {
            if scanned < end, let found = memchr(buffer + scanned, 0x0A, end - scanned) {
                let newline = buffer.distance(to: found)
                let line = UnsafeMutableRawBufferPointer(start: buffer + start, count: newline - start)
                start = newline + 1
                scanned = start
                return line
            }
            scanned = end
            if atEndOfInput {
                guard start < end else { return nil }
                let line = UnsafeMutableRawBufferPointer(start: buffer + start, count: end - start)
                start = end
                return line
            }
            try fill()
        }
    }

    /// Reads more input after the unread bytes, moving them to the front and growing the buffer as needed.
    private func fill() throws(Failure) {
        if start > 0 {
            memmove(buffer, buffer + start, end - start)
            end -= start
            scanned -= start
            start = 0
        }
        if capacity - end < Self.chunkSize / 2 {
            let grown = capacity * 2
            guard let block = realloc(buffer, grown) else {
                throw Failure(message: "A line of \(name) is too long to hold in memory (\(capacity) bytes so far).")
            }
            buffer = block
            capacity = grown
        }
        while true {
            let count = read(fd, buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(message: "Cannot read \(name): \(SystemError.lastReason).")
            }
            if count == 0 { atEndOfInput = true }
            end += count
            bytesRead += Int64(count)
            return
        }
    }
}
