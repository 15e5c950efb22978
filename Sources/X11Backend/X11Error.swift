/// An X11 failure with a message a user can act on.
public struct X11Error: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The two selections people copy with.
public enum Selection: String, Sendable, Hashable, CaseIterable {
    /// Ctrl-C / Ctrl-V.
    case clipboard = "CLIPBOARD"
    /// Select to copy, middle-click to paste.
    case primary = "PRIMARY"

    /// The lowercase name used in the store and in messages.
    public var name: String { rawValue.lowercased() }
}
