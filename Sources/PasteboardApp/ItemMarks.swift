/// The items the user marked, in the order marked: what a paste stack serves, one per paste, and what "Copy Joined"
/// joins. Held by item id, so marks stay on their items across re-sorts, live updates, searches and filters.
@MainActor
final class ItemMarks {
    private(set) var ids: [Int64] = []

    var isEmpty: Bool { ids.isEmpty }
    var count: Int { ids.count }

    /// The place of `id` among the marked items, from 1; nil when it is not marked.
    func number(of id: Int64) -> Int? { ids.firstIndex(of: id).map { $0 + 1 } }

    /// Marks `id` (at the end), or unmarks it.
    func toggle(_ id: Int64) {
        if let index = ids.firstIndex(of: id) { ids.remove(at: index) } else { ids.append(id) }
    }

    /// Marks `id` at the end unless it is marked already.
    func mark(_ id: Int64) {
        if !ids.contains(id) { ids.append(id) }
    }

    func unmark(_ ids: some Sequence<Int64>) {
        let gone = Set(ids)
        self.ids.removeAll(where: gone.contains)
    }

    func removeAll() { ids.removeAll() }
}
