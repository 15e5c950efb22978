/// A child process did not finish in time and was killed.
///
/// Thrown by ``ChildProcess/finish(timeout:)``; its description carries the end of the child's standard error.
public struct ProcessTimeout: Error, CustomStringConvertible {
    /// The command line, as ``ChildProcess/command`` shows it.
    public let command: String
    public let timeout: Duration
    /// What the process had written to standard error when it was killed.
    public let stderr: String

    public var description: String {
        "\(command) ran longer than \(timeout) and was killed; stderr: \(stderr.suffix(2000).debugDescription)"
    }
}
