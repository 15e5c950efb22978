// Prints the ten newest clipboard history items.
import PasteboardHistory

do {
    let store = try HistoryStore(location: .standard(), readOnly: true)
    for item in try store.items(limit: 10) {
        print(item.id, item.kind.rawValue, item.preview, separator: "\t")
    }
} catch {
    print("Error: \(error)")
}
