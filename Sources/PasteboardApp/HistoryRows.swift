import GtkSupport
import PasteboardHistory

/// The history as the list shows it, read from the store in pages of rows as the list asks for them: only the
/// pages around what is visible are in memory, so a million items open as fast as ten.
///
/// Unfiltered, the number of rows is the store's count and any page can be read directly. Searching or filtering
/// by kind, the matches are found page by page as the list scrolls towards the end of what is known.
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

    /// Whether the whole history is counted when nothing filters it (the window's status line shows the count);
    /// without, it is paged in as it scrolls like a search (counting a million rows costs start-up: the popup never
    /// counts, the window counts once its first frame is drawn, with `completeCount()`).
    var countsWholeHistory: Bool

    init(store: HistoryStore, countsWholeHistory: Bool = true) {
        self.store = store
        self.countsWholeHistory = countsWholeHistory
    }

    /// Forgets what was read and counts again, for `filter`. Returns the new count.
    @discardableResult
    func reload(_ filter: Filter) -> Int {
        self.filter = filter
        pages = [:]
        recentPages = []
        isGrowing = false
        isCounted = filter.isEmpty && countsWholeHistory
        if isCounted {
            do {
                count = try store.count()
            } catch {
                count = 0
                onError?(AppError(error.message))
            }
            hasMore = false
        } else {
            let first = page(0) ?? []
            count = first.count
            hasMore = first.count == Self.pageSize
        }
        return count
    }

    /// Counts the whole history now, for an unfiltered list that was paged in uncounted, and counts from now on;
    /// the rows beyond those read so far are announced through `onGrow`.
    func completeCount() {
        countsWholeHistory = true
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
        let old = count
        count = max(total, old)
        if count > old { onGrow?(old, count - old) }
    }

    /// The row at `position`, read from the store when its page is not in memory.
    func item(at position: Int) -> HistoryItem? {
        guard position >= 0, position < count else { return nil }
        let number = position / Self.pageSize
        if !isCounted && hasMore && position >= count - Self.pageSize / 4 { growSoon() }
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
        if let rows = pages[number] {
            touch(number)
            return rows
        }
        let query = HistoryQuery(
            text: filter.text.isEmpty ? nil : filter.text, limit: Self.pageSize, offset: number * Self.pageSize,
            kinds: filter.kinds)
        let rows: [HistoryItem]
        do {
            rows = try store.items(query)
        } catch {
            onError?(AppError(error.message))
            return nil
        }
        pages[number] = rows
        touch(number)
        while recentPages.count > Self.cachedPages { pages[recentPages.removeFirst()] = nil }
        return rows
    }

    private func touch(_ number: Int) {
        if let index = recentPages.lastIndex(of: number) { recentPages.remove(at: index) }
        recentPages.append(number)
    }

    /// Finds the next page of matches at the loop's next turn (not while GTK is asking for a row).
    private func growSoon() {
        guard !isGrowing else { return }
        isGrowing = true
        let filter = self.filter
        // After the frame being drawn: the first page is on screen before the next is read.
        MainLoop.after(0, whenIdle: true) { [weak self] in
            guard let self, self.isGrowing, self.filter == filter else { return }
            self.isGrowing = false
            let start = self.count
            let number = start / Self.pageSize
            // Pages are whole while growing: `count` is a multiple of the page size whenever `hasMore` holds.
            guard let rows = self.page(number) else { return }
            self.hasMore = rows.count == Self.pageSize
            self.count = start + rows.count
            if !rows.isEmpty { self.onGrow?(start, rows.count) }
        }
    }
}
