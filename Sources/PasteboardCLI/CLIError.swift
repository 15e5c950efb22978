import ArgumentParsing

/// A command failed: exit with `status` after printing `message` (prefixed `Error: `) to standard error.
struct CommandFailure: Error {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }
}

/// A usage mistake inside a command (after parsing): reported like a parse error, exit 64.
struct CommandUsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
