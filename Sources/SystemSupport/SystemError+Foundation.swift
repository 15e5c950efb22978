import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension SystemError {
    /// A short explanation of a failed file operation for a message to the user ("No such file or directory").
    ///
    /// FoundationEssentials has no `localizedDescription`: its file errors are `CocoaError`s that keep the system
    /// call's `errno` as their underlying `POSIXError`, so the text comes from `strerror` like every other system
    /// failure's. An error without one is described as it describes itself.
    public static func reason(of error: any Error) -> String {
        if let code = errorNumber(of: error) { return reason(errno: code) }
        if let cocoa = error as? CocoaError { return reason(of: cocoa.code) }
        return String(describing: error)
    }

    /// The `errno` behind `error`: its own code for a `SystemError` or `POSIXError`, the underlying `POSIXError`'s
    /// for a `CocoaError`.
    public static func errorNumber(of error: any Error) -> Int32? {
        switch error {
        case let system as SystemError: return system.errno
        case let posix as POSIXError: return posix.code.rawValue
        case let cocoa as CocoaError:
            return cocoa.underlying.flatMap(errorNumber(of:))
        default: return nil
        }
    }

    private static func reason(of code: CocoaError.Code) -> String {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return reason(errno: ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return reason(errno: EACCES)
        case .fileWriteOutOfSpace: return reason(errno: ENOSPC)
        case .fileWriteVolumeReadOnly: return reason(errno: EROFS)
        case .fileReadTooLarge: return reason(errno: EFBIG)
        case .fileWriteFileExists: return reason(errno: EEXIST)
        default: return "file operation failed (error \(code.rawValue))"
        }
    }
}
