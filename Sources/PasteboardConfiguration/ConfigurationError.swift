public import TextSupport

/// A mistake in the configuration file, or a file that cannot be read: the message names the file and line.
public struct ConfigurationError: ActionableError {
    /// The configuration file.
    public let path: String
    /// The 1-based line, or nil when the whole file is at fault (it cannot be read).
    public let line: Int?
    /// What is wrong and how to fix it, without the place.
    public let problem: String
    /// What made the file unreadable, when that is the problem.
    public let cause: (any Error & Sendable)?

    public init(path: String, line: Int?, problem: String, cause: (any Error & Sendable)? = nil) {
        self.path = path
        self.line = line
        self.problem = problem
        self.cause = cause
    }

    /// `path:line: problem`, as compilers say it.
    public var message: String { line.map { "\(path):\($0): \(problem)" } ?? "\(path): \(problem)" }
}
