import Foundation
import Testing

/// A file in `Tests/Fixtures/Golden/` holding the exact, whole output of one `pb` command line.
///
/// The files are read from the source tree (found from `#filePath`), not bundled as resources, and live outside the
/// test target's directory so that SwiftPM does not take them for unhandled target files. Run the tests with
/// `PB_UPDATE_GOLDEN=1` to write the current output into them instead of comparing (then review the diff):
///
/// ```sh
/// PB_UPDATE_GOLDEN=1 swift test --filter GoldenOutputTests
/// ```
struct GoldenFile: Sendable, CustomStringConvertible {
    /// The file name, such as `help-copy.txt`.
    let name: String

    /// The directory of golden files: `Tests/PasteboardCLITests/Support/GoldenFile.swift` → `Tests/Fixtures/Golden`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Golden", isDirectory: true)

    /// True when the run should rewrite the golden files from the current output.
    static var isUpdating: Bool { ProcessInfo.processInfo.environment["PB_UPDATE_GOLDEN"] == "1" }

    var url: URL { Self.directory.appendingPathComponent(name) }
    var description: String { name }

    /// The names of the golden files present, sorted.
    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".txt") }.sorted()
    }

    /// Compares `actual` with the file as a whole, recording an issue that points at the first differing line; with
    /// `PB_UPDATE_GOLDEN=1` writes `actual` into the file instead.
    func check(_ actual: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if Self.isUpdating {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record(
                "No golden file \(url.path). Create it with: PB_UPDATE_GOLDEN=1 swift test --filter GoldenOutputTests",
                sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        if actual == expected { return }
        let message =
            "The output differs from \(name): \(Self.firstDifference(expected: expected, actual: actual)). If the "
            + "change is intended, rewrite the golden files with PB_UPDATE_GOLDEN=1 swift test --filter "
            + "GoldenOutputTests and review the diff."
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }

    /// Where two texts first differ, line by line, in words.
    static func firstDifference(expected: String, actual: String) -> String {
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let wanted = index < expectedLines.count ? String(expectedLines[index]).debugDescription : "(end of file)"
            let got = index < actualLines.count ? String(actualLines[index]).debugDescription : "(end of output)"
            if wanted != got { return "line \(index + 1) is \(got), the golden file has \(wanted)" }
        }
        return "they differ only in line ends"
    }
}
