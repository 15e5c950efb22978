public import PasteboardHistory

/// The picker's rows from the history store. `onChange` hears of each pin and delete, so the caller can tell
/// the daemon's watchers.
public final class StorePickerSource: PickerSource {
    let store: HistoryStore
    let onChange: (_ event: String, _ id: Int64) -> Void

    public init(store: HistoryStore, onChange: @escaping (_ event: String, _ id: Int64) -> Void = { _, _ in }) {
        self.store = store
        self.onChange = onChange
    }

    public func items(filter: String, mode: FilterMode, offset: Int, limit: Int) throws -> [HistoryItem] {
        var query = HistoryQuery(limit: limit, offset: offset)
        if !filter.isEmpty {
            query.text = filter
            query.isRegex = mode == .regex
            query.isFuzzy = mode == .fuzzy
        }
        return try store.items(query)
    }

    public func text(of id: Int64, limit: Int) throws -> String? {
        try store.textPrefix(id: id, limit: limit)
    }

    public func image(of id: Int64, limit: Int) throws -> [UInt8]? {
        let item = try store.item(id: id)
        guard item.kind == .image, item.size <= limit else { return nil }
        let payload = try store.pasteboardItem(id: id)
        guard let type = payload.types.first(where: { $0.conforms(to: .image) }), let data = payload.data(forType: type)
        else { return nil }
        return Array(data)
    }

    public func setPinned(_ isPinned: Bool, id: Int64) throws {
        try store.setPinned(isPinned, id: id)
        onChange(isPinned ? "pinned" : "unpinned", id)
    }

    public func delete(id: Int64) throws {
        try store.delete(id: id)
        onChange("deleted", id)
    }
}
