import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Something the tests need could not be set up (a missing tool, a server that would not start).
struct SetupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The executable named `name` on `PATH`, or nil.
func executableOnPath(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
    let directories = (path ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin", "/usr/local/bin"]
    for directory in directories {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}
