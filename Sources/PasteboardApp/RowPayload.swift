import PasteboardHistory

/// The object behind one row of the history list: the item as listed.
final class RowPayload {
    let item: HistoryItem

    init(_ item: HistoryItem) { self.item = item }
}
