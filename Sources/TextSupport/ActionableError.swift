/// An error that says in one message what went wrong and, where it can, what to do: the shape of every module's error
/// struct (`HistoryError`, `DaemonError`, `SyncError`, `ClipboardError`, …), whose text is its message and nothing
/// else. Most also keep the error that led to them as `cause`; that is not a requirement here, since their causes
/// differ in type (`SystemError?`, `(any Error & Sendable)?`), and a default `nil` would silently stand in for a
/// cause whose type does not match.
public protocol ActionableError: Error, CustomStringConvertible {
    /// What went wrong, for a user to act on: the whole of `description`.
    var message: String { get }
}

extension ActionableError {
    public var description: String { message }
}
