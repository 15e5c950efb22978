import PasteboardHistory

/// What the picker shows and what a key does to it, without a terminal: the list window, the filter, the
/// selection and the marks. `Picker` feeds it keys and draws it; the tests drive it directly too.
struct PickerModel {
    /// What ended the picker.
    enum Outcome: Equatable {
        /// Restore (or print) these items, in this order; `plainText`: only their text.
        case picked([Int64], plainText: Bool)
        /// A paste stack of these items, in this order: one per paste.
        case stacked([Int64])
        case cancelled
    }

    private(set) var filter = ""
    private(set) var mode: FilterMode
    private(set) var rows: [HistoryItem] = []
    /// Whether `rows` holds every match (no more to load).
    private(set) var isComplete = false
    private(set) var selection = 0
    /// The first row shown.
    private(set) var top = 0
    private(set) var marked: [Int64] = []
    /// A line for the status bar: an error, or what a key did.
    private(set) var message: String?
    private(set) var outcome: Outcome?
    /// Set by a first delete key: the item a second press deletes.
    private(set) var pendingDelete: Int64?

    /// How many list rows fit on the screen; set by the screen before each key.
    var visibleRows = 10
    /// The most rows loaded per query: a window, never the whole history. A screenful or two: every key that
    /// changes the filter queries again, and on a big history each row read costs (64 rows take a third of the
    /// time of 200 in bench/pick_bench.py); more are loaded as the selection nears the end.
    static let batch = 64
    /// Set while keys that arrived together are applied: the filter changed and the query waits for the last one.
    private var isReloadDeferred = false

    init(mode: FilterMode = .substring) {
        self.mode = mode
    }

    var selectedItem: HistoryItem? { rows.indices.contains(selection) ? rows[selection] : nil }

    // MARK: - Loading

    /// How many rows a new filter loads: the screenful and one more (whether there are more), no further. A filter
    /// the trigram index cannot narrow (one or two letters) scans the texts newest first until it has that many, so a
    /// smaller first window stops the scan sooner; scrolling loads `batch` more at a time (`loadMoreIfNeeded`).
    var firstWindow: Int { min(Self.batch, max(1, visibleRows) + 1) }

    /// The listing whose rows are awaited (the source's generation); older ones' updates are dropped.
    private var awaited: Int?
    /// Whether the source is still reading rows asked for.
    private(set) var isSearching = false
    /// Where the next rows start (below this position), when there are more.
    private var next: Int64?
    /// After a pin or a delete: the selection's place and the status line, restored when the rows come back.
    private var keptPlace: (selection: Int, message: String?)?
    /// After a change made elsewhere: the item to keep selected when the rows come back.
    private var keptItem: Int64?

    var historyFilter: HistoryFilter {
        let modes: [FilterMode: HistoryFilter.Mode] = [.substring: .substring, .regex: .regex, .fuzzy: .fuzzy]
        return HistoryFilter(text: filter, mode: modes[mode] ?? .substring)
    }

    /// Runs the filter again from the top; the rows arrive through `apply`.
    mutating func reload(from source: any PickerSource) {
        message = nil
        list(from: source, limit: firstWindow)
    }

    private mutating func list(from source: any PickerSource, limit: Int) {
        awaited = source.search(historyFilter, below: nil, start: 0, limit: limit)
        isSearching = true
        next = nil
    }

    private var filterChangedSinceLoad = false

    /// Takes rows the source read, if they belong to the listing asked for last.
    mutating func apply(_ update: HistoryListModel.Update, source: any PickerSource) {
        guard update.generation == awaited else { return }
        isSearching = update.isSearching
        next = update.next
        isComplete = update.isComplete
        if update.start == 0 {
            rows = update.items
            if filterChangedSinceLoad { selection = 0 }
            filterChangedSinceLoad = false
        } else if update.start == rows.count {
            rows += update.items
        } else {
            return
        }
        if let error = update.error {
            isComplete = true
            message = "\(error)"
        }
        selection = min(selection, max(0, rows.count - 1))
        if let kept = keptPlace, !isSearching {
            keptPlace = nil
            if !isComplete && rows.count <= kept.selection + visibleRows {
                keptPlace = kept
            } else {
                let place = keptItem.flatMap { id in rows.firstIndex { $0.id == id } } ?? kept.selection
                keptItem = nil
                move(to: min(place, max(0, rows.count - 1)))
                message = kept.message
            }
        }
        scrollToSelection()
        if !isSearching { loadMoreIfNeeded(from: source) }
        // The keys that waited for these rows.
        isReplaying = true
        while !isSearching, outcome == nil, !deferredKeys.isEmpty {
            handle(deferredKeys.removeFirst(), source: source)
        }
        isReplaying = false
    }

    /// Loads the next window when the selection comes near the end of what is loaded.
    mutating func loadMoreIfNeeded(from source: any PickerSource) {
        guard selection + visibleRows >= rows.count || keptPlace != nil else { return }
        loadMore(from: source)
    }

    /// Loads the next window of matches, unless every match is loaded or rows are on their way.
    private mutating func loadMore(from source: any PickerSource) {
        guard !isComplete, !isSearching, let next else { return }
        awaited = source.search(historyFilter, below: next, start: rows.count, limit: Self.batch)
        isSearching = true
    }

    // MARK: - Keys

    /// Applies keys that arrived together: typed (or pasted) text queries the store once, not once per key.
    mutating func handle(_ keys: [Key], source: any PickerSource) {
        for (index, key) in keys.enumerated() {
            let isLast = index == keys.count - 1
            let next = isLast ? nil : keys[index + 1]
            // Only a run of filter edits is coalesced: any other key sees the rows for the filter so far.
            isReloadDeferred = Self.editsFilter(key) && next.map(Self.editsFilter) == true
            handle(key, source: source)
            if outcome != nil { return }
        }
        isReloadDeferred = false
        // No key (a resize): a taller screen may show more than is loaded.
        if keys.isEmpty { loadMoreIfNeeded(from: source) }
    }

    /// Keys that wait for rows on their way (`handle`), in order.
    private var deferredKeys: [Key] = []
    /// Set while those keys are applied.
    private var isReplaying = false

    private static func quits(_ key: Key) -> Bool {
        switch key {
        case .escape, .control("c"), .control("g"), .control("q"): return true
        default: return false
        }
    }

    private static func editsFilter(_ key: Key) -> Bool {
        switch key {
        case .character, .backspace, .control("u"), .control("w"): return true
        default: return false
        }
    }

    /// Applies one key, querying `source` again when the filter changed.
    mutating func handle(_ key: Key, source: any PickerSource) {
        // While rows are on their way, keys that act on them wait for them (and every key after one that waits), so
        // each key sees the rows of the filter typed before it, as if the rows were read at once. Typing goes on (a
        // new filter cancels the search under way), and so does quitting.
        if !isReplaying, isSearching && !Self.editsFilter(key) || !deferredKeys.isEmpty, !Self.quits(key) {
            deferredKeys.append(key)
            return
        }
        if case .control("d") = key {} else if key != .delete { pendingDelete = nil }
        switch key {
        case .character(let character):
            filter.append(character)
            filterChanged(source)
        case .backspace:
            guard !filter.isEmpty else { return }
            filter.removeLast()
            filterChanged(source)
        case .control("u"):
            filter = ""
            filterChanged(source)
        case .control("w"):
            while filter.last == " " { filter.removeLast() }
            while let last = filter.last, last != " " { filter.removeLast() }
            filterChanged(source)
        case .control("r"):
            mode = mode.next
            message = "filter: \(mode.rawValue)"
            filterChanged(source)
        case .up, .control("p"): move(by: -1)
        case .down, .control("n"): move(by: 1)
        case .pageUp: move(by: -max(1, visibleRows - 1))
        case .pageDown: move(by: max(1, visibleRows - 1))
        case .home: move(to: 0)
        case .end: move(to: Int.max)
        case .tab:
            toggleMark()
            move(by: 1)
        case .backTab:
            toggleMark()
            move(by: -1)
        case .enter:
            pick(plainText: false)
        case .altEnter, .control("t"):
            pick(plainText: true)
        case .control("o"):
            if !marked.isEmpty { outcome = .stacked(marked) } else if let id = selectedItem?.id { outcome = .stacked([id]) }
        case .control("s"):
            togglePin(source)
        case .control("d"), .delete:
            delete(source)
        case .escape, .control("c"), .control("g"), .control("q"):
            outcome = .cancelled
        case .mouse(let button, _, let row):
            switch button {
            case 64: move(by: -3)
            case 65: move(by: 3)
            case 0:
                // Row 0 is the prompt; the list starts on row 1.
                let index = top + row - 1
                if row >= 1, row <= visibleRows, rows.indices.contains(index) { move(to: index) }
            default: break
            }
        default:
            break
        }
        if !isReloadDeferred { loadMoreIfNeeded(from: source) }
    }

    private mutating func filterChanged(_ source: any PickerSource) {
        filterChangedSinceLoad = true
        if !isReloadDeferred { reload(from: source) }
    }

    private mutating func move(by delta: Int) {
        move(to: selection + delta)
    }

    private mutating func move(to index: Int) {
        guard !rows.isEmpty else { return }
        selection = max(0, min(rows.count - 1, index))
        scrollToSelection()
    }

    private mutating func scrollToSelection() {
        if selection < top { top = selection }
        if selection >= top + visibleRows { top = selection - visibleRows + 1 }
        top = max(0, min(top, max(0, rows.count - visibleRows)))
    }

    private mutating func toggleMark() {
        guard let id = selectedItem?.id else { return }
        if let index = marked.firstIndex(of: id) { marked.remove(at: index) } else { marked.append(id) }
        message = marked.isEmpty ? nil : "\(marked.count) marked: Enter copies them joined by newlines · ^O one per paste"
    }

    private mutating func pick(plainText: Bool) {
        if !marked.isEmpty {
            outcome = .picked(marked, plainText: true)
        } else if let id = selectedItem?.id {
            outcome = .picked([id], plainText: plainText)
        }
    }

    /// The history changed elsewhere: lists the rows again, keeping the selected item selected when it is still
    /// among them (a copy on top moves it down a row), else its place.
    mutating func historyChanged(_ source: any PickerSource) {
        keptItem = selectedItem?.id
        reloadKeepingPlace(source)
    }

    /// Queries again after a change to the store, keeping the selection's place and the status line (restored when
    /// the rows are back, `apply`).
    private mutating func reloadKeepingPlace(_ source: any PickerSource) {
        keptPlace = (selection, message)
        list(from: source, limit: max(firstWindow, selection + visibleRows + 1))
    }

    private mutating func togglePin(_ source: any PickerSource) {
        guard let item = selectedItem else { return }
        do {
            try source.setPinned(!item.isPinned, id: item.id)
            message = item.isPinned ? "unpinned \(item.id)" : "pinned \(item.id)"
        } catch {
            message = "\(error)"
        }
        reloadKeepingPlace(source)
    }

    private mutating func delete(_ source: any PickerSource) {
        guard let item = selectedItem else { return }
        guard pendingDelete == item.id else {
            pendingDelete = item.id
            message = "press Ctrl-D again to delete \(item.id)"
            return
        }
        pendingDelete = nil
        do {
            try source.delete(id: item.id)
            marked.removeAll { $0 == item.id }
            message = "deleted \(item.id)"
        } catch {
            message = "\(error)"
        }
        reloadKeepingPlace(source)
    }
}
