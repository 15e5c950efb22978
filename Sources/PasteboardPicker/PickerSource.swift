public import PasteboardHistory

/// Where the picker's rows come from: windows of the history, filtered, never the whole of it, read off the picker's
/// loop (a `HistoryListModel`): a key is never held up by the search it starts.
public protocol PickerSource {
    /// Starts listing `filter` newest first: its first `limit` rows (`below` nil, `start` 0), or `limit` more below
    /// position `below`, the list's row `start - 1`. Cancels the listing under way; returns the new one's generation.
    /// Its rows come through `takeUpdates()`.
    func search(_ filter: HistoryFilter, below: Int64?, start: Int, limit: Int) -> Int
    /// The updates that arrived since the last call, in order.
    func takeUpdates() -> [HistoryListModel.Update]
    /// A descriptor that is readable while updates wait (for `poll`); `takeUpdates()` empties it.
    var wakeDescriptor: Int32 { get }
    /// The first `limit` bytes of the item's text, for the preview; nil for an item without text.
    func text(of id: Int64, limit: Int) throws -> String?
    /// The item's image bytes (PNG, JPEG, …) for the preview, at most `limit` of them; nil when it has none.
    func image(of id: Int64, limit: Int) throws -> [UInt8]?
    /// The words read in the item's picture (see the daemon's text recognition); nil when none were.
    func recognizedText(of id: Int64) throws -> String?
    func setPinned(_ isPinned: Bool, id: Int64) throws
    func delete(id: Int64) throws
}

/// News that the history changed while the picker is open (the daemon's events, from the store's change feed).
public protocol HistoryChangeSignal: AnyObject {
    /// Readable when news may have come (for `poll`); -1 for none.
    var fileDescriptor: Int32 { get }
    /// Reads what came; returns whether the history changed. After it returns, `fileDescriptor` is not readable
    /// until more news comes (or the signal ended, when it stays -1 from then on).
    func take() -> Bool
}
