public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The executable named `name` on `path` (the test process's `PATH` by default), or nil.
///
/// `/usr/bin` and `/usr/local/bin` are searched last even when `PATH` leaves them out.
///
/// ```swift
/// let xvfb = executableOnPath("Xvfb")  // "/usr/bin/Xvfb", or nil when not installed
/// ```
public func executableOnPath(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
    // Spelled out as [String]: `split(...) + [literals]` once type-checked as arrays of characters, so every
    // directory of the search path was tried as "[\"/\", \"u\", …]/name" and only the two fallbacks worked.
    let searched: [String] = (path ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
    let directories = searched + ["/usr/bin", "/usr/local/bin"]
    for directory in directories {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}
