public import PasteboardHistory

/// Where the picker's rows come from: windows of the history, filtered, never the whole of it.
public protocol PickerSource {
    /// At most `limit` items after the first `offset`, newest first, that `filter` accepts in `mode`.
    func items(filter: String, mode: FilterMode, offset: Int, limit: Int) throws -> [HistoryItem]
    /// The first `limit` bytes of the item's text, for the preview; nil for an item without text.
    func text(of id: Int64, limit: Int) throws -> String?
    /// The item's image bytes (PNG, JPEG, …) for the preview, at most `limit` of them; nil when it has none.
    func image(of id: Int64, limit: Int) throws -> [UInt8]?
    func setPinned(_ isPinned: Bool, id: Int64) throws
    func delete(id: Int64) throws
}
