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
    func prepare() throws(DaemonError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            // The parent may be missing (a fallback under /tmp never is; $XDG_RUNTIME_DIR should exist).
            throw DaemonError("Cannot create the runtime directory \(path): \(String(cString: strerror(errno))).")
        }
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw DaemonError("\(path) is not a directory.")
        }
        guard info.st_uid == getuid() else {
            throw DaemonError("The runtime directory \(path) belongs to another user; refusing to use it.")
        }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            throw DaemonError("Cannot make \(path) private (mode 0700).")
        }
    }
}

/// A daemon failure with a message a user can act on.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
