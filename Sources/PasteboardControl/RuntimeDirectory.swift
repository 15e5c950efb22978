public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The per-user runtime directory holding the daemon's lock and control socket:
/// `$XDG_RUNTIME_DIR/pasteboard` (mode 0700).
public struct RuntimeDirectory: Sendable, Equatable {
    public let path: String

    public init(path: String) { self.path = path }

    /// `$PB_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/pasteboard`, else `/tmp/pasteboard-UID`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> RuntimeDirectory {
        if let explicit = environment["PB_RUNTIME_DIR"], !explicit.isEmpty { return RuntimeDirectory(path: explicit) }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return RuntimeDirectory(path: runtime + "/pasteboard")
        }
        return RuntimeDirectory(path: "/tmp/pasteboard-\(getuid())")
    }

    public var socketPath: String { path + "/control.sock" }
    public var lockPath: String { path + "/daemon.lock" }

    /// Creates the directory (0700) and checks that it belongs to this user and nobody else can enter it.
    public func prepare() throws(ControlError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            // The parent may be missing (a fallback under /tmp never is; $XDG_RUNTIME_DIR should exist).
            let cause = SystemError.last("mkdir")
            throw ControlError("Cannot create the runtime directory \(path): \(cause.reason).", cause: cause)
        }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ControlError("\(path) is not a directory.")
        }
        guard info.st_uid == getuid() else {
            throw ControlError("The runtime directory \(path) belongs to another user; refusing to use it.")
        }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            let cause = SystemError.last("chmod")
            throw ControlError("Cannot make \(path) private (mode 0700): \(cause.reason).", cause: cause)
        }
    }
}
