/// Something a test needs could not be set up: a missing tool, a server that would not start.
///
/// Thrown, not recorded, so the test fails (never skips) with a message that says what is missing and how to
/// install it:
///
/// ```swift
/// guard let xclip = executableOnPath("xclip") else {
///     throw SetupFailure("xclip is needed: apt-get install -y xclip")
/// }
/// ```
public struct SetupFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
