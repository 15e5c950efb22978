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
///
/// Pages are read by position (keyset: the rows below the last one read, `HistoryStore.page`), never by `OFFSET`.
/// A search typed into a field goes through `search(_:)`: it runs on the list model's thread
/// (`HistoryListModel`), a newer key cancels it, and the rows it finds replace the list when they arrive
/// (`onReplace`); so does `loadMore()`. `reload` reads on the calling thread, for a change the list must show now.
@MainActor
final class HistoryRows {
    /// What the list shows.
    struct Filter: Equatable {
        /// Text to find (empty: everything).
        var text = ""
        /// Only these kinds (nil: every kind).
        var kinds: Set<HistoryItem.Kind>?
        /// How `text` is matched (the search field's mode switch).
        var mode: HistoryFilter.Mode = .substring

        var isEmpty: Bool { text.isEmpty && kinds == nil }

        var history: HistoryFilter { HistoryFilter(text: text, mode: mode, kinds: kinds) }
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
    /// The filter asked for last (the rows may still be those of an earlier one, `listed`, until its search is done).
    private(set) var filter = Filter()
    /// The filter the rows are of.
    private(set) var listed = Filter()
    /// The search the rows are the matches of, for the rows to highlight them.
    let highlighter = SearchHighlighter()
    /// Rows the list has now.
    private(set) var count = 0
    /// Whether `count` is the store's total (unfiltered) rather than the matches found so far.
    private var isCounted = true
    /// Whether a search may have more matches than found so far.
    private var hasMore = false
    private var isGrowing = false
    /// Whether the list model's search for `filter` is still looking for its first window.
    private(set) var isSearching = false
    private var pages: [Int: [HistoryItem]] = [:]
    private var recentPages: [Int] = []
    /// Where each page read so far starts: the position its rows are below (keyset), by page number.
    private var pageStarts: [Int: Int64] = [:]
    /// The position of the last row read (the next rows are below it).
    private var lastPosition: Int64?
    /// The searches and more rows, off the main thread; nil: everything is read on the main thread (tests).
    private var list: HistoryListModel?
    /// The generation of the list model's query whose rows this list takes (older ones are dropped).
    private var awaited: Int?

    /// More matches were found: `added` rows at `position` (tell the list).
    var onGrow: (@MainActor (_ position: Int, _ added: Int) -> Void)?
    /// A search asked for with `search(_:)` replaced the rows: `removed` old, `added` new (tell the list).
    var onReplace: (@MainActor (_ removed: Int, _ added: Int, _ isReload: Bool) -> Void)?
    /// The search asked for last has found all the rows it looks for (its first window, or the rows `loadMore()`
    /// asked for), or every match.
    var onSearchEnd: (@MainActor () -> Void)?
    /// Reading the store failed.
    var onError: (@MainActor (AppError) -> Void)?

    /// Whether the whole history is counted when nothing filters it; without, it is paged in as it scrolls like a
    /// search (the window and the popup: a list model of a million rows has GTK 4.8 make and bind 200 row widgets
    /// on each reload; the window's status line shows `total` instead, and End counts with `completeCount()`).
    var countsWholeHistory: Bool
    /// Rows read first for a list that is paged in (a filtered one, or one not counted yet).
    var firstWindow = HistoryRows.defaultFirstWindow

    /// - Parameter searching: whether searches and more rows are read on a list model's thread (the app); without,
    ///   every read is done on the calling thread.
    init(store: HistoryStore, countsWholeHistory: Bool = true, searching: Bool = false) {
        self.store = store
        self.countsWholeHistory = countsWholeHistory
        if searching {
            // The updates come on the model's thread; the list takes them on the main loop.
            list = HistoryListModel(location: store.location, label: "pasteboard-gtk.list") { [weak self] update in
                MainLoop.post { self?.apply(update) }
            }
        }
    }

    /// The number of items in the whole history, once counted (`countTotal()`, or a counted reload).
    private(set) var total: Int?

    /// Whether every row is known: counted, or paged in to the last match.
    var isComplete: Bool { isCounted || !hasMore }

    /// Forgets what was read and counts again, for `filter`, on this thread. Returns the new count. A paged-in list
    /// reads at least `atLeast` rows (at most `cachedPages` pages of them), so a list refreshed after a change keeps
    /// the rows it had read; with `keepingCount`, a list counted by `completeCount()` stays counted. A search under
    /// way on the list model's thread is dropped.
    @discardableResult
    func reload(_ filter: Filter, atLeast: Int = 0, keepingCount: Bool = false) -> Int {
        let wasCounted = isCounted && self.filter == filter
        if awaited != nil {
            list?.cancel()
            awaited = nil
        }
        self.filter = filter
        forget(listing: filter)
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
            let first = read(below: nil, limit: limit)
            keep(first?.items ?? [], from: 0)
            count = first?.items.count ?? 0
            hasMore = first?.next != nil
            if filter.isEmpty && !hasMore { total = count }
        }
        return count
    }

    /// Starts listing `filter` on the list model's thread, cancelling the search under way; the rows stay those
    /// of the last filter until the first of the new ones arrive (`onReplace`). Without a list model, reads now.
    func search(_ filter: Filter) {
        guard let list else {
            let old = count
            reload(filter)
            onReplace?(old, count, false)
            onSearchEnd?()
            return
        }
        self.filter = filter
        isGrowing = false
        isSearching = true
        awaited = list.search(filter.history, limit: max(1, firstWindow))
    }

    /// Whether searches run on a list model's thread (`search`, `refreshInBackground`).
    var searchesInBackground: Bool { list != nil }

    /// Reads the rows of the listed filter again on the list model's thread, as many as the list has (a first window at
    /// least, `cachedPages` pages at most): the history changed under a search. They replace the rows when they come
    /// (`onReplace`, a reload). Without a list model, reads now.
    func refreshInBackground() {
        guard let list else {
            let old = count
            reload(filter, atLeast: count)
            onReplace?(old, count, true)
            onSearchEnd?()
            return
        }
        isGrowing = false
        isSearching = true
        awaited = list.reload(
            limit: max(firstWindow, min(count, Self.cachedPages * Self.pageSize)), filter: filter.history)
    }

    /// Takes an update of the list model, if it belongs to the query asked for last.
    func apply(_ update: HistoryListModel.Update) {
        guard update.generation == awaited else { return }
        if let error = update.error { onError?(AppError(error.message)) }
        isSearching = update.isSearching
        if !update.isSearching { isGrowing = false }
        hasMore = !update.isComplete
        if update.start == 0 {
            let old = count
            forget(listing: filter)
            isCounted = false
            keep(update.items, from: 0)
            count = update.items.count
            if filter.isEmpty && update.isComplete { total = count }
            onReplace?(old, count, update.isReload)
        } else {
            guard update.start == count, listed == filter else { return }
            keep(update.items, from: count)
            count += update.items.count
            if !update.items.isEmpty { onGrow?(update.start, update.items.count) }
        }
        if !update.isSearching { onSearchEnd?() }
    }

    /// Drops every row read, for rows of `filter` to come.
    private func forget(listing filter: Filter) {
        listed = filter
        highlighter.show(filter.text, mode: filter.mode)
        pages = [:]
        recentPages = []
        pageStarts = [:]
        lastPosition = nil
        isGrowing = false
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

    /// Reads the next rows of a paged-in list (on the list model's thread, or at the loop's next turn), unless every
    /// row is known or a read is under way. The list calls it when its view nears the end of the rows it has.
    func loadMore() {
        guard !isCounted, hasMore, !isSearching, listed == filter else { return }
        guard let list else {
            growSoon()
            return
        }
        guard !isGrowing, let lastPosition else { return }
        isGrowing = true
        isSearching = true
        awaited = list.search(listed.history, below: lastPosition, start: count, limit: Self.growth)
    }

    /// Counts the whole history now, for an unfiltered list that was paged in uncounted, until the next reload (End:
    /// the oldest item is a row the list can move to); the rows beyond those read so far are announced through
    /// `onGrow`.
    func completeCount() {
        guard filter.isEmpty, listed == filter, !isCounted else { return }
        let total: Int
        do {
            total = try store.count()
        } catch {
            onError?(AppError(error.message))
            return
        }
        if awaited != nil {
            list?.cancel()
            awaited = nil
        }
        isCounted = true
        hasMore = false
        isGrowing = false
        isSearching = false
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
        let rows: [HistoryItem]
        if number == 0 || pageStarts[number] != nil {
            // Where the page starts is known (a page read before): read from there, by position.
            guard let read = read(below: pageStarts[number], limit: Self.pageSize) else { return nil }
            rows = read.items
        } else {
            // A page never reached by reading down (End, in a counted list): by its offset in the position index.
            guard let read = read(offset: number * Self.pageSize, limit: Self.pageSize) else { return nil }
            rows = read
        }
        pages[number] = rows
        if let last = rows.last, rows.count == Self.pageSize { pageStarts[number + 1] = last.position }
        touch(number)
        while recentPages.count > Self.cachedPages { pages[recentPages.removeFirst()] = nil }
        return rows
    }

    private func touch(_ number: Int) {
        if let index = recentPages.lastIndex(of: number) { recentPages.remove(at: index) }
        recentPages.append(number)
    }

    /// `limit` rows of the listed filter below `position`; nil (and `onError`) when the store fails.
    private func read(below position: Int64?, limit: Int) -> HistoryPage? {
        do {
            return try store.page(listed.history, below: position, limit: limit)
        } catch {
            onError?(AppError(error.message))
            return nil
        }
    }

    /// `limit` rows of the unfiltered history from `offset` (a counted list only: the position index alone finds
    /// where they start).
    private func read(offset: Int, limit: Int) -> [HistoryItem]? {
        do {
            return try store.items(HistoryQuery(limit: limit, offset: offset, kinds: listed.kinds))
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
            if index == Self.pageSize - 1 { pageStarts[number + 1] = row.position }
        }
        if let last = rows.last { lastPosition = last.position }
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

    /// Reads the next `growth` rows now, on this thread, and announces them through `onGrow`.
    func grow() {
        isGrowing = false
        guard !isCounted, hasMore, let lastPosition else { return }
        let start = count
        guard let read = read(below: lastPosition, limit: Self.growth) else { return }
        keep(read.items, from: start)
        hasMore = read.next != nil
        count = start + read.items.count
        if !read.items.isEmpty { onGrow?(start, read.items.count) }
    }
}
