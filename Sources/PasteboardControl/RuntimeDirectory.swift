public import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
import TextSupport
#endif

/// The per-user runtime directory holding the daemon's lock and control socket:
/// `$XDG_RUNTIME_DIR/pasteboard` (mode 0700).
///
/// Without `XDG_RUNTIME_DIR` it is `/tmp/pasteboard-UID`, in a directory every user can write: another user may
/// have made it first, with a socket of their own inside, to receive what this user copies. So it is trusted only
/// when it is a real directory (no symbolic link), this user's, and mode 0700; otherwise the daemon refuses to
/// start there and clients refuse to connect (see `checkOwnership`), and a client also checks that the process
/// answering on the socket runs as this user.
public struct RuntimeDirectory: Sendable, Equatable {
    public let path: String
    /// Whether this is the `/tmp` fallback, which is refused rather than repaired when its mode lets others in.
    public let isSharedFallback: Bool

    public init(path: String, isSharedFallback: Bool = false) {
        self.path = path
        self.isSharedFallback = isSharedFallback
    }

    /// `$PB_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/pasteboard`, else `/tmp/pasteboard-UID`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> RuntimeDirectory {
        if let explicit = environment["PB_RUNTIME_DIR"], !explicit.isEmpty { return RuntimeDirectory(path: explicit) }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return RuntimeDirectory(path: runtime + "/pasteboard")
        }
        return RuntimeDirectory(path: "/tmp/pasteboard-\(getuid())", isSharedFallback: true)
    }

    public var socketPath: String { path + "/control.sock" }
    public var lockPath: String { path + "/daemon.lock" }
    /// What the process typing a deferred paste (`pb pick --paste` on Wayland) last wrote on standard error.
    public var pasteLogPath: String { path + "/paste.log" }

    /// Creates the directory (0700) and checks that it belongs to this user and nobody else can enter it.
    public func prepare() throws(ControlError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            // The parent may be missing (a fallback under /tmp never is; $XDG_RUNTIME_DIR should exist).
            let cause = SystemError.last("mkdir")
            throw ControlError("Cannot create the runtime directory \(path): \(cause.reason).", cause: cause)
        }
        try checkOwnership()
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let cause = SystemError.last("lstat")
            throw ControlError("Cannot use the runtime directory \(path): \(cause.reason).", cause: cause)
        }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            let cause = SystemError.last("chmod")
            throw ControlError("Cannot make \(path) private (mode 0700): \(cause.reason).", cause: cause)
        }
    }

    /// Refuses the directory, if it exists, unless this user can trust what is in it: a directory (a symbolic link
    /// is never followed), owned by this user, and for the `/tmp` fallback mode 0700. Clients check it before they
    /// connect, so that `pb copy` never hands an item to a socket another user planted.
    /// - Throws: `untrusted`, saying what is wrong and what to do.
    public func checkOwnership() throws(ControlError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }  // missing: nothing listens there, and `prepare` creates it
        let advice = "Set XDG_RUNTIME_DIR (or PB_RUNTIME_DIR) to a directory of your own"
        let kind = info.st_mode & S_IFMT
        guard kind != S_IFLNK else {
            throw ControlError(
                "The runtime directory \(path) is a symbolic link, which pb does not follow (another user may have "
                    + "planted it). \(advice), or remove the link.", code: .untrusted)
        }
        guard kind == S_IFDIR else {
            throw ControlError(
                "\(path) is not a directory, so pb cannot use it as its runtime directory. Move it aside.",
                code: .untrusted)
        }
        guard info.st_uid == getuid() else {
            throw ControlError(
                "The runtime directory \(path) belongs to another user (uid \(info.st_uid)), who could pose as the "
                    + "daemon; refusing to use it. \(advice).", code: .untrusted)
        }
        if isSharedFallback && info.st_mode & 0o077 != 0 {
            throw ControlError(
                "The runtime directory \(path) lets other users in (mode \(String(info.st_mode & 0o777, radix: 8))), "
                    + "so a socket in it may not be the daemon's; refusing to use it. \(advice), or run "
                    + "'chmod 700 \(path)' if nobody else could have used it.", code: .untrusted)
        }
    }

    /// Checks, without creating or changing anything, that a daemon could start here: `prepare()` would succeed
    /// and the socket path fits. For `pb doctor`.
    public func check() throws(ControlError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else {
                let cause = SystemError.last("lstat")
                throw ControlError("Cannot use the runtime directory \(path): \(cause.reason).", cause: cause)
            }
            let parent = Self.parentDirectory(of: path)
            var parentInfo = stat()
            guard stat(parent, &parentInfo) == 0, parentInfo.st_mode & S_IFMT == S_IFDIR else {
                throw ControlError(
                    "The runtime directory \(path) cannot be created: \(parent) is not a directory. Set "
                        + "XDG_RUNTIME_DIR (or PB_RUNTIME_DIR) to a directory of your own.")
            }
            guard access(parent, W_OK | X_OK) == 0 else {
                let cause = SystemError.last("access")
                throw ControlError(
                    "The runtime directory \(path) cannot be created in \(parent) (\(cause.reason)). Set "
                        + "XDG_RUNTIME_DIR (or PB_RUNTIME_DIR) to a directory of your own.", cause: cause)
            }
        } else {
            try checkOwnership()
        }
        // sun_path holds 108 bytes, the last one NUL.
        if socketPath.utf8.count >= 108 {
            throw ControlError("The socket path \(socketPath) is too long; set XDG_RUNTIME_DIR to a shorter directory.")
        }
    }

    /// The process holding the daemon's lock (`flock` on `daemon.lock`), from `/proc/locks`: read, never taken, so
    /// that asking cannot get in the way of a daemon starting.
    public func lockHolder() -> Int32? {
        var info = stat()
        guard stat(lockPath, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
            return nil  // no lock file, or no /proc: nobody can be shown to hold it
        }
        // The pid the last daemon wrote; on overlay file systems /proc/locks names the inode underneath, so a lock
        // held by that pid counts too.
        let written = (try? String(contentsOfFile: lockPath, encoding: .utf8)).flatMap {
            Int32($0.trimmingWhitespaceAndNewlines())
        }
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF": pid, then major:minor (hexadecimal):inode.
        // glibc's dev_t layout (gnu_dev_major/gnu_dev_minor, macros Swift does not import).
        let dev = UInt64(info.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        let device =
            String(major, radix: 16).leftPadded2 + ":" + String(minor, radix: 16).leftPadded2 + ":" + String(info.st_ino)
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            if fields[5] == device || pid == written { return pid }
        }
        return nil
    }

    /// The directory holding `path`, as `NSString.deletingLastPathComponent` gives it: `/run/user` for
    /// `/run/user/1000/`, `/` for `/run`, empty for a bare name.
    static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}

extension String {
    /// At least two characters, zero-padded on the left (`%02x`).
    fileprivate var leftPadded2: String { count >= 2 ? self : String(repeating: "0", count: 2 - count) + self }
}
