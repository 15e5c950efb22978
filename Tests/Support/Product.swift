public import Foundation

/// A built executable the integration tests run: `pb` and the example programs.
///
/// The test runner and the executables share one build products directory: on Linux the runner is
/// `<products>/PasteboardPackageTests.xctest` (an executable), on macOS a bundle
/// `<products>/PasteboardPackageTests.xctest/Contents/MacOS/…`. The search walks up from the runner a few levels
/// and takes the first executable file of that name. `$PB_BINARY` wins for `pb`, and its directory is searched
/// first for the examples; `.build/debug` next to the package (found from `#filePath`) is the last resort.
/// Every product is located once per test run.
///
/// ```swift
/// let pb = try Product.pb.path()  // throws `Product.NotFound`, failing the test, when pb was not built
/// ```
public enum Product: String, Sendable, CaseIterable {
    case pb
    case profile
    case csvArchive = "csv-archive"
    case videoFile = "video-file"
    case clipboardText = "clipboard-text"
    case pasteboardGTK = "pasteboard-gtk"

    /// Why an executable could not be found, in words that say how to fix it.
    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    /// The executable's path, or an error that fails the calling test with a clear message.
    public func path() throws -> String {
        try Self.locations[self]!.get()  // every case is located up front
    }

    /// The executable's file URL, or an error that fails the calling test with a clear message.
    public func url() throws -> URL {
        URL(fileURLWithPath: try path())
    }

    private static let locations: [Product: Result<String, NotFound>] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0, locate($0)) })

    private static func locate(_ product: Product, filePath: String = #filePath) -> Result<String, NotFound> {
        let environment = ProcessInfo.processInfo.environment
        var directories: [URL] = []
        if let explicit = environment["PB_BINARY"], !explicit.isEmpty {
            if product == .pb {
                guard isExecutableFile(explicit) else {
                    return .failure(
                        NotFound(description: "PB_BINARY is set to '\(explicit)', which is not an executable file."))
                }
                return .success(explicit)
            }
            directories.append(URL(fileURLWithPath: explicit).deletingLastPathComponent())
        }
        var starts: [URL] = []
        if let runner = CommandLine.arguments.first, !runner.isEmpty {
            let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            starts.append(URL(fileURLWithPath: runner, relativeTo: cwd).standardizedFileURL.resolvingSymlinksInPath())
        }
        starts.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
        if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath()) }
        for start in starts {
            var directory = start.hasDirectoryPath ? start : start.deletingLastPathComponent()
            for _ in 0..<4 {
                directories.append(directory)
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        // Tests/Support/Product.swift → the package root.
        let packageRoot = URL(fileURLWithPath: filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        var searched: [String] = []
        for directory in directories {
            let candidate = directory.appendingPathComponent(product.rawValue).path
            if searched.contains(candidate) { continue }
            searched.append(candidate)
            if isExecutableFile(candidate) { return .success(candidate) }
        }
        let looked = searched.joined(separator: ", ")
        let override = product == .pb ? "set PB_BINARY to its path" : "set PB_BINARY to the built pb next to it"
        return .failure(
            NotFound(
                description: "The built '\(product.rawValue)' executable was not found (looked at: \(looked)). "
                    + "Build it with 'swift build --build-tests', or \(override)."))
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
