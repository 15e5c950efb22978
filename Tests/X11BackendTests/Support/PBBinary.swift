import Foundation

/// Finds the built `pb` executable the end-to-end tests run.
///
/// `$PB_BINARY` wins when set. Otherwise the test runner and `pb` share one build products directory:
/// on Linux the runner is `<products>/PasteboardPackageTests.xctest` (an executable), on macOS a bundle
/// `<products>/PasteboardPackageTests.xctest/Contents/MacOS/…`. The search walks up from the runner a few
/// levels and takes the first `pb` that is an executable file; `.build/debug/pb` next to the package
/// (found from `#filePath`) is the last resort.
enum PBBinary {
    /// Why the executable could not be found, in words that say how to fix it.
    struct NotFound: Error, CustomStringConvertible {
        let description: String
    }

    /// The executable, located once per test run.
    static let location: Result<URL, NotFound> = locate()

    /// The executable, or an error that fails the calling test with a clear message.
    static func url() throws -> URL {
        try location.get()
    }

    private static func locate(filePath: String = #filePath) -> Result<URL, NotFound> {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["PB_BINARY"], !explicit.isEmpty {
            guard isExecutableFile(explicit) else {
                return .failure(
                    NotFound(description: "PB_BINARY is set to '\(explicit)', which is not an executable file."))
            }
            return .success(URL(fileURLWithPath: explicit))
        }
        var starts: [URL] = []
        if let runner = CommandLine.arguments.first, !runner.isEmpty {
            let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            starts.append(URL(fileURLWithPath: runner, relativeTo: cwd).standardizedFileURL.resolvingSymlinksInPath())
        }
        starts.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
        if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath()) }
        var searched: [String] = []
        for start in starts {
            var directory = start.hasDirectoryPath ? start : start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("pb")
                if !searched.contains(candidate.path) { searched.append(candidate.path) }
                if isExecutableFile(candidate.path) { return .success(candidate) }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        // Tests/X11BackendTests/Support/PBBinary.swift → the package root.
        let packageRoot = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let fallback = packageRoot.appendingPathComponent(".build/debug/pb")
        searched.append(fallback.path)
        if isExecutableFile(fallback.path) { return .success(fallback) }
        return .failure(
            NotFound(
                description:
                    "The built 'pb' executable was not found (looked at: \(searched.joined(separator: ", "))). "
                    + "Build it with 'swift build --build-tests', or set PB_BINARY to its path."))
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
