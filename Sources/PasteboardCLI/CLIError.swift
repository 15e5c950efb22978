import ArgumentParsing
import TextSupport

/// A command failed: exit with `status` after printing `message` (prefixed `Error: `) to standard error. `cause` keeps
/// the error the message was made from, where there was one.
struct CommandFailure: ActionableError {
    let message: String
    let status: Int32
    let cause: (any Error)?

    init(_ message: String, status: Int32 = 1, cause: (any Error)? = nil) {
        self.message = message
        self.status = status
        self.cause = cause
    }
}

/// A usage mistake inside a command (after parsing): reported like a parse error, exit 64.
struct CommandUsageError: ActionableError {
    let message: String
    init(_ message: String) { self.message = message }
}
