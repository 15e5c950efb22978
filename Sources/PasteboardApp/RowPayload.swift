import GtkSupport
import PasteboardHistory

/// The object behind one row of the history list: the item as listed.
final class RowPayload {
    let item: HistoryItem

    init(_ item: HistoryItem) { self.item = item }
}

/// The payloads of the rows listed last, by item: an item that is listed again unchanged (a search that still
/// matches it, a refresh) gets the same payload object, so the list view keeps the row widget that shows it
/// instead of binding and laying out another (see `VirtualList`).
@MainActor
final class RowPayloads {
    /// Payloads kept at most (as many as `VirtualList` keeps rows for).
    static let limit = VirtualList.rowCacheLimit
    private var payloads: [Int64: RowPayload] = [:]
    private var order: [Int64] = []

    /// The payload of `item`: the one made before when it showed the same item (same details), else a new one.
    func payload(for item: HistoryItem) -> RowPayload {
        if let payload = payloads[item.id], payload.item == item { return payload }
        let payload = RowPayload(item)
        if payloads.updateValue(payload, forKey: item.id) == nil {
            order.append(item.id)
            if order.count > Self.limit { payloads[order.removeFirst()] = nil }
        }
        return payload
    }
}
