/// The history row views alive, held weakly (GTK owns them through their list slots), to find the one showing an
/// item, for moving the keyboard focus to it.
@MainActor
final class RowViewRegistry {
    private struct Entry {
        weak var view: HistoryRowView?
    }

    private var entries: [Entry] = []

    func add(_ view: HistoryRowView) {
        entries.removeAll { $0.view == nil }
        entries.append(Entry(view: view))
    }

    /// Every row view laid out now.
    var views: [HistoryRowView] { entries.compactMap(\.view) }

    /// The view of `layout` showing item `id`, if one is laid out.
    func view(showing id: Int64, layout: AppState.Layout) -> HistoryRowView? {
        entries.lazy.compactMap(\.view).first { $0.itemID == id && $0.layout == layout }
    }
}
