/// A command the test ran to set something up exited unsuccessfully; its description is the command's result.
///
/// ```swift
/// let result = try await sandbox.run(xclip, arguments)
/// guard result.succeeded else { throw CommandFailed(result: result) }
/// ```
public struct CommandFailed: Error, CustomStringConvertible {
    public let result: ProcessResult

    public init(result: ProcessResult) { self.result = result }

    public var description: String { "\(result)" }
}
