/// What a pasteboard holds at one moment: its items and the change count that produced them.
public struct PasteboardContents: Sendable, Equatable {
    public var items: [PasteboardItem]
    public var changeCount: Int

    public init(items: [PasteboardItem], changeCount: Int) {
        self.items = items
        self.changeCount = changeCount
    }
}

/// Where named pasteboards live: in this process, in the history store, or on a display server.
///
/// Every method may be called from any thread.
public protocol PasteboardServer: Sendable {
    /// The current contents of the pasteboard `name`; throws `noSuchPasteboard` if it does not exist.
    func contents(of name: String) throws -> PasteboardContents
    /// The current change count, cheaper than reading the contents.
    func changeCount(of name: String) throws -> Int
    /// Replaces the contents (creating the pasteboard if needed) and returns the new change count.
    func write(_ items: [PasteboardItem], to name: String) throws -> Int
    /// Creates the pasteboard if it does not exist. A non-persistent one disappears with this process.
    func create(_ name: String, persistent: Bool) throws
    /// Whether the pasteboard exists.
    func exists(_ name: String) throws -> Bool
    /// Whether the pasteboard survives the process that created it.
    func isPersistent(_ name: String) throws -> Bool
    /// Removes the pasteboard and its contents.
    func remove(_ name: String) throws
    /// Change counts as they change, starting after the current one.
    func changes(of name: String) -> AsyncStream<Int>
}
