public import Foundation

/// How a child process ended, and what it wrote.
///
/// ```swift
/// let paste = try await sandbox.run(xclip, ["-selection", "clipboard", "-o"])
/// #expect(paste.succeeded && paste.lines == ["copied"], "\(paste)")
/// ```
public struct ProcessResult: Sendable, CustomStringConvertible {
    /// The command line, as ``ChildProcess/command`` shows it.
    public let command: String
    /// The exit status, or the signal number when `wasSignalled`.
    public let status: Int32
    public let wasSignalled: Bool
    public let stdout: Data
    public let stderr: String

    /// True when the process exited with status 0.
    public var succeeded: Bool { !wasSignalled && status == 0 }
    /// Standard output decoded as UTF-8 (lossily).
    public var output: String { String(decoding: stdout, as: UTF8.self) }

    /// Standard output split into lines, without the line ends.
    public var lines: [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    public var description: String {
        "\(command): exit \(wasSignalled ? "by signal " : "")\(status), stdout \(stdout.count) bytes "
            + "\(output.prefix(300).debugDescription), stderr \(stderr.suffix(2000).debugDescription)"
    }
}
