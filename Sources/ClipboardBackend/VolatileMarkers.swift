/// Private types that applications add to every copy and change each time, which say nothing about the content:
/// CopyQ's `application/x-copyq-owner` (its own session and a counter) and Chromium's
/// `chromium/x-internal-source-rfh-token` (the frame that copied, new on every page load).
///
/// They are never read or stored: kept, they would make every repeat of the same copy a new item (`copyq select
/// 0` three times made three identical items; so did Copy, reload, Copy in Chromium), and serving them back after
/// their application exits would be meaningless. The type names compare without case.
public enum VolatileMarkers {
    public static let types: Set<String> = [
        "application/x-copyq-owner",
        "chromium/x-internal-source-rfh-token",
    ]

    /// Whether `typeName` is one of them.
    public static func isVolatile(_ typeName: String) -> Bool {
        types.contains(typeName.lowercased())
    }
}
