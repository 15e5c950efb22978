/// A pasteboard's name: `general` (the system clipboard), `find`, or any other.
public struct PasteboardName: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The system clipboard.
    public static let general = PasteboardName("general")
    /// The shared find (search text) pasteboard.
    public static let find = PasteboardName("find")

    /// Whether `name` is one of the pasteboards that always exist.
    public static func isSystem(_ name: String) -> Bool { name == general.rawValue || name == find.rawValue }
}
