import GtkSupport
import PasteboardHistory

/// The history as the list shows it, read from the store in pages of rows as the list asks for them: only the
/// pages around what is visible are in memory, so a million items open as fast as ten.
///
/// Unfiltered, the number of rows is the store's count and any page can be read directly. Searching or filtering
/// by kind (and before the history is counted), the list starts with a screenful (`firstWindow`) and more rows
/// are read when the view comes near the end of those (`loadMore()`, from the scroller), as the terminal picker
/// does: GTK 4.8's list view makes and binds a widget for up to 200 rows of its model, so a model of a screenful
/// is what keeps a key in the search field cheap.
@MainActor
final class HistoryRows {
    /// What the list shows.
    struct Filter: Equatable {
        /// Substring to find (empty: everything).
        var text = ""
        /// Only these kinds (nil: every kind).
        var kinds: Set<HistoryItem.Kind>?

        var isEmpty: Bool { text.isEmpty && kinds == nil }
    }

    static let pageSize = 100
    /// Rows read when a filter changes, before the view asks for more: more than a screenful of the window as it
    /// opens (about 6 rows of the list, 5 chips of the strip); a taller window asks for more after the frame.
    static let defaultFirstWindow = 16
    /// Rows added each time the view comes near the end of those read: a few at a time, each read at idle
    /// priority, so a key pressed meanwhile waits for one small step at most.
    static let growth = 16
    /// Pages kept at most (a few screens of the longest layout).
    static let cachedPages = 20

    private let store: HistoryStore
    private(set) var filter = Filter()
    /// Rows the list has now.
    private(set) var count = 0
    /// Whether `count` is the store's total (unfiltered) rather than the matches found so far.
    private var isCounted = true
    /// Whether a search may have more matches than found so far.
    private var hasMore = false
    private var isGrowing = false
    private var pages: [Int: [HistoryItem]] = [:]
    private var recentPages: [Int] = []

    /// More matches were found: `added` rows at `position` (tell the list).
    var onGrow: (@MainActor (_ position: Int, _ added: Int) -> Void)?
    /// Reading the store failed.
    var onError: (@MainActor (AppError) -> Void)?

    /// Whether the whole history is counted when nothing filters it; without, it is paged in as it scrolls like a
    /// search (the window and the popup: a list model of a million rows has GTK 4.8 make and bind 200 row widgets
    /// on each reload; the window's status line shows `total` instead, and End counts with `completeCount()`).
    var countsWholeHistory: Bool
    /// Rows read first for a list that is paged in (a filtered one, or one not counted yet).
    var firstWindow = HistoryRows.defaultFirstWindow

    init(store: HistoryStore, countsWholeHistory: Bool = true) {
        self.store = store
        self.countsWholeHistory = countsWholeHistory
    }

    /// The number of items in the whole history, once counted (`countTotal()`, or a counted reload).
    private(set) var total: Int?

    /// Whether every row is known: counted, or paged in to the last match.
    var isComplete: Bool { isCounted || !hasMore }

    /// Forgets what was read and counts again, for `filter`. Returns the new count. A paged-in list reads at least
    /// `atLeast` rows (at most `cachedPages` pages of them), so a list refreshed after a change keeps the rows it
    /// had read; with `keepingCount`, a list counted by `completeCount()` stays counted.
    @discardableResult
    func reload(_ filter: Filter, atLeast: Int = 0, keepingCount: Bool = false) -> Int {
        let wasCounted = isCounted && self.filter == filter
        self.filter = filter
        pages = [:]
        recentPages = []
        isGrowing = false
        isCounted = filter.isEmpty && (countsWholeHistory || (keepingCount && wasCounted))
        if isCounted {
            do {
                count = try store.count()
            } catch {
                count = 0
                onError?(AppError(error.message))
            }
            total = count
            hasMore = false
        } else {
            let limit = max(1, firstWindow, min(atLeast, Self.cachedPages * Self.pageSize))
            let first = read(offset: 0, limit: limit) ?? []
            keep(first, from: 0)
            count = first.count
            hasMore = first.count == limit
            if filter.isEmpty && !hasMore { total = count }
        }
        return count
    }

    /// Counts the whole history for `total` (the status line), without changing the rows the list has.
    func countTotal() {
        if isCounted && filter.isEmpty {
            total = count
            return
        }
        do {
            total = try store.count()
        } catch {
            onError?(AppError(error.message))
        }
    }

    /// Reads the next rows of a paged-in list at the loop's next turn, unless every row is known or a read is
    /// under way. The list calls it when its view nears the end of the rows it has.
    func loadMore() {
        guard !isCounted, hasMore else { return }
        growSoon()
    }

    /// Counts the whole history now, for an unfiltered list that was paged in uncounted, until the next reload (End:
    /// the oldest item is a row the list can move to); the rows beyond those read so far are announced through
    /// `onGrow`.
    func completeCount() {
        guard filter.isEmpty, !isCounted else { return }
        let total: Int
        do {
            total = try store.count()
        } catch {
            onError?(AppError(error.message))
            return
        }
        isCounted = true
        hasMore = false
        isGrowing = false
        self.total = total
        let old = count
        count = max(total, old)
        if count > old { onGrow?(old, count - old) }
    }

    /// The row at `position`, read from the store when its page is not in memory.
    func item(at position: Int) -> HistoryItem? {
        guard position >= 0, position < count else { return nil }
        let number = position / Self.pageSize
        guard let rows = page(number) else { return nil }
        let index = position - number * Self.pageSize
        return index < rows.count ? rows[index] : nil
    }

    /// The position of item `id` among the rows in memory.
    func position(of id: Int64) -> Int? {
        for (number, rows) in pages {
            if let index = rows.firstIndex(where: { $0.id == id }) { return number * Self.pageSize + index }
        }
        return nil
    }

    /// The row at `position` if its page is in memory (no store access).
    func cachedItem(at position: Int) -> HistoryItem? {
        let number = position / Self.pageSize
        guard let rows = pages[number] else { return nil }
        let index = position - number * Self.pageSize
        return index < rows.count ? rows[index] : nil
    }

    // MARK: - Pages

    private func page(_ number: Int) -> [HistoryItem]? {
        // A page filled only as far as the list had grown is read whole once the list reaches past it (End counted
        // the history): GTK must get a row for every position below the count.
        if let rows = pages[number], rows.count >= min(Self.pageSize, count - number * Self.pageSize) {
            touch(number)
            return rows
        }
        guard let rows = read(offset: number * Self.pageSize, limit: Self.pageSize) else { return nil }
        pages[number] = rows
        touch(number)
        while recentPages.count > Self.cachedPages { pages[recentPages.removeFirst()] = nil }
        return rows
    }

    private func touch(_ number: Int) {
        if let index = recentPages.lastIndex(of: number) { recentPages.remove(at: index) }
        recentPages.append(number)
    }

    /// `limit` rows of the filtered list from `offset`; nil (and `onError`) when the store fails.
    private func read(offset: Int, limit: Int) -> [HistoryItem]? {
        let query = HistoryQuery(
            text: filter.text.isEmpty ? nil : filter.text, limit: limit, offset: offset, kinds: filter.kinds)
        do {
            return try store.items(query)
        } catch {
            onError?(AppError(error.message))
            return nil
        }
    }

    /// Keeps `rows`, read from `start`, in the pages they belong to. A page evicted meanwhile is not made again
    /// (it is read whole when asked for); a page read whole already holds them.
    private func keep(_ rows: [HistoryItem], from start: Int) {
        for (offset, row) in rows.enumerated() {
            let position = start + offset
            let number = position / Self.pageSize
            let index = position - number * Self.pageSize
            if index == 0 && pages[number] == nil {
                pages[number] = []
                touch(number)
            }
            if pages[number]?.count == index { pages[number]?.append(row) }
        }
        while recentPages.count > Self.cachedPages { pages[recentPages.removeFirst()] = nil }
    }

    /// Reads the next `growth` rows at the loop's next turn (not while GTK is asking for a row).
    private func growSoon() {
        guard !isGrowing else { return }
        isGrowing = true
        let filter = self.filter
        // After the frame being drawn: the rows on screen are drawn before more are read.
        MainLoop.after(0, whenIdle: true) { [weak self] in
            guard let self, self.isGrowing, self.filter == filter else { return }
            self.grow()
        }
    }

    /// Reads the next `growth` rows now and announces them through `onGrow`.
    func grow() {
        isGrowing = false
        guard !isCounted, hasMore else { return }
        let start = count
        guard let rows = read(offset: start, limit: Self.growth) else { return }
        keep(rows, from: start)
        hasMore = rows.count == Self.growth
        count = start + rows.count
        if !rows.isEmpty { onGrow?(start, rows.count) }
    }
}
