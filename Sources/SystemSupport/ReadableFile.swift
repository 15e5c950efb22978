public import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A file opened for reading (close-on-exec), closed when the value goes away.
public final class ReadableFile {
    public let path: String
    private let descriptor: Int32

    /// Opens the file at `path`.
    ///
    /// - Throws: `SystemError` of `open` (`ENOENT`, `EACCES`, …).
    public init(path: String) throws(SystemError) {
        self.path = path
        var result: Int32
        repeat {
            result = open(path, O_RDONLY | O_CLOEXEC)
        } while result < 0 && errno == EINTR
        guard result >= 0 else { throw SystemError.last("open") }
        descriptor = result
    }

    deinit {
        // Read-only: a failed close loses nothing.
        close(descriptor)
    }

    /// The next at most `count` bytes; fewer only at the end of the file.
    public func read(upToCount count: Int) throws(SystemError) -> Data {
        try FileDescriptor.read(descriptor, upToCount: count)
    }

    /// The rest of the file.
    public func readToEnd() throws(SystemError) -> Data {
        try FileDescriptor.readToEnd(descriptor)
    }
}
