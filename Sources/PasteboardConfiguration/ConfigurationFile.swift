import FoundationEssentials
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// Reading the configuration file without trusting what stands at its path: opened non-blocking (a named pipe
/// there would otherwise block every `pb` command until someone writes to it), and refused unless it is a regular
/// file (a pipe, a device or a socket is never a configuration).
enum ConfigurationFile {
    /// The first `count` bytes of the regular file at `path`, or nil when nothing is there.
    static func read(_ path: String, upToCount count: Int) throws(ConfigurationError) -> Data? {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            let cause = SystemError.last("open")
            if cause.errno == ENOENT || cause.errno == ENOTDIR { return nil }  // as before: no file, the defaults
            throw ConfigurationError(path: path, line: nil, problem: "cannot be read (\(cause.reason)).", cause: cause)
        }
        defer { close(descriptor) }  // read-only: a failed close loses nothing
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let cause = SystemError.last("fstat")
            throw ConfigurationError(path: path, line: nil, problem: "cannot be read (\(cause.reason)).", cause: cause)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigurationError(
                path: path, line: nil,
                problem: "is \(Self.kindName(info.st_mode)), not a regular file; pb reads its configuration only "
                    + "from a regular file. Move it aside (or set PB_CONFIG to the file you mean).")
        }
        do throws(SystemError) {
            return try FileDescriptor.read(descriptor, upToCount: count)
        } catch {
            throw ConfigurationError(path: path, line: nil, problem: "cannot be read (\(error.reason)).", cause: error)
        }
    }

    /// "a named pipe", "a directory", … for an error message.
    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}
