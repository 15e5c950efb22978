/// The two selections people copy with. X11 and Wayland both have them.
public enum Selection: String, Sendable, Hashable, CaseIterable, Codable {
    /// Ctrl-C / Ctrl-V.
    case clipboard = "CLIPBOARD"
    /// Select to copy, middle-click to paste.
    case primary = "PRIMARY"

    /// The lowercase name used in the store, in events and in messages.
    public var name: String { rawValue.lowercased() }

    /// The selection with this lowercase name (`clipboard`, `primary`).
    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }
}
