import Foundation
import GtkSupport
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PasteboardSystem
import URLFetching

/// The "Pasteboard History" window's behaviour: the history list over the store, the preview, copying, search,
/// filters, pins, deletion, Copy from URL, and live updates from the daemon.
@MainActor
final class HistoryController {
    let environment: [String: String]
    let store: HistoryStore
    let worker: ClipboardWorker
    let loader: ImageLoader
    let thumbnails: ThumbnailCache
    let rows: HistoryRows
    let model: VirtualList
    let ui: HistoryWindow
    let events: DaemonEvents
    let log: TestLog
    let stateURL: URL
    var state: AppState
    var filter = HistoryRows.Filter()
    /// The download under way, if any.
    var fetch: URLFetcher?
    /// While the rows are being replaced: selection changes then are passing states.
    var isRefreshing = false
    /// The item selected when a search was asked for, to select again among its rows when they come.
    var selectedBeforeSearch: Int64?
    /// The "Clear History" question while it is asked.
    var confirmation: ConfirmationWindow?
    /// The "Allow Paste" questions on screen, by the daemon's number.
    var approvals: [Int: PasteApprovalWindow] = [:]
    /// The items marked for a paste stack or a joined copy, in the order marked, and the row a Shift+click extends from.
    let marks = ItemMarks()
    var markAnchor: Int?
    /// Whether closing the window hides it (a background instance keeps running for its popup) instead of quitting.
    var closeHides = false
    private let colorScheme = ColorScheme()
    private var factories: [AppState.Layout: ListFactory] = [:]
    /// The row views alive, to find the one showing an item.
    let rowViews = RowViewRegistry()

    /// The size preview images are decoded at, at most.
    static let previewImageSize = 1600
    /// What this app's copies are recorded as coming from.
    static let source = "pasteboard-gtk"

    init(store: HistoryStore, clipboard: SystemClipboard, environment: [String: String], log: TestLog) {
        self.environment = environment
        self.store = store
        self.log = log
        worker = ClipboardWorker(clipboard: clipboard, location: store.location, environment: environment)
        loader = ImageLoader(location: store.location)
        thumbnails = ThumbnailCache(loader: loader, size: 160)
        // Paged in as it scrolls, a screenful first; counted for the status line once the first frame is drawn
        // (see `start()`): a million rows take a while to count.
        let rows = HistoryRows(store: store, countsWholeHistory: false, searching: true)
        self.rows = rows
        rows.reload(filter)
        log.note("rows counted")
        let payloads = RowPayloads()
        model = VirtualList(
            count: { [weak rows] in rows?.count ?? 0 },
            row: { [weak rows] position in rows?.item(at: position).map(payloads.payload(for:)) })
        stateURL = AppState.url(environment: environment)
        state = AppState.load(from: stateURL)
        events = DaemonEvents(client: clipboard.daemon, approving: true)
        let thumbnails = self.thumbnails
        let log = self.log
        let registry = rowViews
        let marks = self.marks
        let drag: @MainActor (Int64) -> [DragRepresentation]? = { [store, log] id in
            Self.dragRepresentations(of: id, store: store, log: log)
        }
        factories = [
            .strip: Self.factory(
                for: .strip, thumbnails: thumbnails, log: log, registry: registry, marks: marks,
                highlighter: rows.highlighter, drag: drag),
            .list: Self.factory(
                for: .list, thumbnails: thumbnails, log: log, registry: registry, marks: marks,
                highlighter: rows.highlighter, drag: drag),
        ]
        ui = HistoryWindow(model: model, factory: factories[state.layout]!)
        ui.apply(state.layout)
        connect()
        log.note("window built")
    }

    /// Brings the window to the front (a second `pasteboard-gtk` asked).
    func present() {
        ui.window.present()
        log.note("window presented")
    }

    /// Shows the window and starts listening to the daemon.
    func start() {
        colorScheme.follow { [log] dark in log.note("theme \(dark ? "dark" : "light")") }
        ui.window.onFirstFrame { [log, rows] in
            log.note("first frame")
            MainLoop.after(0, whenIdle: true) { [weak self] in
                rows.countTotal()
                self?.noteRows()
            }
        }
        ui.window.present()
        log.note("window shown \(HistoryWindow.title)")
        log.note("layout \(state.layout.rawValue)")
        noteRows()
        subscribeToDaemon()
    }

    var preview: PreviewPane { ui.preview }

    /// The row factory of `layout`.
    func factory(for layout: AppState.Layout) -> ListFactory { factories[layout]! }

    /// Row factories: chips for the strip, lines for the list.
    private static func factory(
        for layout: AppState.Layout, thumbnails: ThumbnailCache, log: TestLog, registry: RowViewRegistry,
        marks: ItemMarks, highlighter: SearchHighlighter,
        drag: @escaping @MainActor (Int64) -> [DragRepresentation]?
    ) -> ListFactory {
        ListFactory(
            setup: { item in
                let view = HistoryRowView(layout: layout)
                // Dragged out, a row carries every representation of the item it shows.
                view.root.onDragPrepare { [weak view] in view?.itemID.flatMap(drag) }
                item.setChild(view.root)
                item.attach(view)
                registry.add(view)
            },
            bind: { item in
                guard let view = item.view as? HistoryRowView, let payload = item.payload as? RowPayload else { return }
                view.highlight = highlighter.matcher
                let marked = view.titleMarkup
                // Logged only when the row's widgets change (not when GTK binds a row to the item it shows).
                if view.bind(payload.item, thumbnails: thumbnails, shown: { id in log.note("thumbnail \(id)") }) {
                    log.note("row shown \(payload.item.id)")
                }
                view.setMark(marks.number(of: payload.item.id))
                if let markup = view.titleMarkup, markup != marked { log.note("row marked \(markup)") }
            })
    }

    // MARK: - Wiring

    private func connect() {
        ui.listView.rowContent = { [weak self] position in
            guard let self, let id = self.rows.cachedItem(at: position)?.id else { return nil }
            return self.rowViews.view(showing: id, layout: self.state.layout)?.root
        }
        rows.onGrow = { [weak self] position, added in
            self?.model.itemsChanged(at: position, removed: 0, added: added)
            self?.noteRows()
        }
        rows.onReplace = { [weak self] removed, added, isReload in
            self?.rowsReplaced(removed: removed, added: added, isReload: isReload)
        }
        rows.onSearchEnd = { [weak self] in
            guard let self else { return }
            self.noteRows()
            self.log.note("search done \(self.rows.filter.text)")
        }
        rows.onError = { [weak self] error in self?.showError(error) }
        // A search, or the history before it is counted, is read a screenful at a time as the list nears its end.
        ui.listScroller.onNearEnd { [weak rows] in rows?.loadMore() }
        ui.copyField.onChange { [weak self] in
            guard let self else { return }
            self.ui.copyButton.isSensitive = !self.ui.copyField.text.isEmpty
        }
        ui.copyField.onActivate { [weak self] in self?.copyTypedText() }
        ui.copyButton.onClick { [weak self] in self?.copyTypedText() }
        ui.urlField.onChange { [weak self] in
            guard let self else { return }
            self.ui.urlButton.isSensitive = !self.ui.urlField.text.trimmingCharacters(in: .whitespaces).isEmpty
        }
        ui.urlField.onActivate { [weak self] in self?.copyFromURL() }
        ui.urlButton.onClick { [weak self] in self?.copyFromURL() }
        ui.overlay.cancelButton.onClick { [weak self] in self?.fetch?.cancel() }
        // Each key starts its search at once, as the key is handled, on the list model's thread (a first page of
        // matches takes 0.5–6 ms in a million items, a letter few items hold seconds: that one shows what it found
        // after `HistoryListModel.firstSlice` and goes on in the background). Not GTK's `search-changed`: it comes
        // from a timeout after the key, even with no delay (3–12 ms measured at 1,000,000 items).
        ui.searchField.onChange { [weak self] in self?.searchChanged() }
        ui.searchField.onStop { [weak self] in
            guard let self else { return }
            if self.ui.searchField.text.isEmpty { self.focusList() } else { self.ui.searchField.text = "" }
        }
        ui.searchField.addShortcut("Down") { [weak self] in
            self?.focusList()
            return true
        }
        ui.kindFilter.onSelect { [weak self] in self?.kindChanged() }
        connectSearchModes()
        ui.layoutToggle.onToggle { [weak self] in
            guard let self else { return }
            self.setLayout(self.ui.layoutToggle.isActive ? .list : .strip)
        }
        ui.pinButton.onClick { [weak self] in self?.togglePin() }
        ui.askButton.onClick { [weak self] in self?.toggleAskBeforePaste() }
        ui.deleteButton.onClick { [weak self] in self?.deleteSelected() }
        ui.clearButton.onClick { [weak self] in self?.confirmClear() }
        ui.dismissError.onClick { [weak self] in self?.ui.errorBox.isVisible = false }
        ui.listView.onActivate { [weak self] position in self?.restore(at: position) }
        ui.listView.onSelectionChange { [weak self] in self?.selectionChanged() }
        // End: the oldest item, which a list paged in as it scrolls has not read yet. Counted first, then GTK's own
        // End (the key goes on) moves there, as it lays the list out (a scroll asked for before that, to a row not
        // laid out yet, is refused: "GtkListView failed to scroll to given position").
        ui.listView.addShortcut("End", capturing: true) { [weak self] in
            self?.rows.completeCount()
            return false
        }
        ui.listView.addShortcut("<Shift>Return") { [weak self] in
            guard let self, let position = self.ui.listView.selectedPosition else { return false }
            self.restore(at: position, plain: true)
            return true
        }
        ui.listView.addShortcut("Delete") { [weak self] in
            self?.deleteSelected()
            return true
        }
        ui.window.addShortcut("<Control>f", scope: .global) { [weak self] in
            self?.ui.searchField.grabFocus()
            return true
        }
        ui.window.addShortcut("<Control>p", scope: .global) { [weak self] in
            self?.togglePin()
            return true
        }
        ui.window.addShortcut("<Control>k", scope: .global) { [weak self] in
            self?.toggleAskBeforePaste()
            return true
        }
        ui.window.addShortcut("Escape", scope: .global) { [weak self] in
            guard let self else { return false }
            if let fetch = self.fetch {
                fetch.cancel()
                return true
            }
            if self.preview.isEditing {
                self.cancelEditing()
                return true
            }
            guard !self.marks.isEmpty else { return false }
            self.clearMarks()
            return true
        }
        ui.window.addShortcut("<Control>t", scope: .global) { [weak self] in
            guard let self else { return true }
            self.setLayout(self.state.layout == .list ? .strip : .list)
            return true
        }
        ui.window.addShortcut("<Control>w", scope: .global) { [weak self] in
            self?.ui.window.close()
            return true
        }
        ui.window.addShortcut("<Control>question", scope: .global) { [weak self] in
            self?.showShortcuts()
            return true
        }
        ui.settingsButton.onClick { [weak self] in self?.openSettings() }
        ui.window.addShortcut("<Control>comma", scope: .global) { [weak self] in
            self?.openSettings()
            return true
        }
        ui.window.addShortcut("<Control>l", scope: .global) { [weak self] in
            self?.ui.urlField.grabFocus()
            return true
        }
        connectMarks()
        connectEditing()
        ui.onSplitSettled = { [log] position, length in log.note("split \(position) of \(length)") }
        ui.window.onCloseRequest { [weak self] in
            guard self?.closeHides == true else {
                MainLoop.quit()
                return false
            }
            self?.ui.window.isVisible = false
            return true
        }
        ui.window.onActiveChange { [log] active in if active { log.note("window active") } }
        ui.window.onDrop { [weak self] content in self?.addDropped(content) ?? false }
        events.onEvent = { [weak self] event in
            guard let self, !self.handlePasteEvent(event) else { return }
            if event.event == .pasteStack { return self.pasteStackMoved(event) }
            self.refresh(after: event)
        }
        events.onEnd = { [weak self] reason in
            self?.showDaemonMissing(
                "The daemon stopped (\(reason)). The history still refreshes after this window's own changes.")
            self?.log.note("daemon lost")
        }
        events.onReturn = { [weak self] in
            guard let self else { return }
            self.ui.daemonBanner.isVisible = false
            self.log.note("daemon connected")
            self.refresh(after: nil)  // what changed meanwhile follows as events too, when the feed still has it
        }
    }

    /// The keyboard shortcuts window (Ctrl+?).
    func showShortcuts() {
        let shortcuts = ShortcutsWindow(title: "Keyboard Shortcuts", groups: ShortcutsHelp.groups, parent: ui.window)
        shortcuts.present()
        log.note("shortcuts shown")
    }

    // MARK: - Daemon

    func subscribeToDaemon() {
        if events.isSubscribed { return }
        if events.subscribe() {
            ui.daemonBanner.isVisible = false
            log.note("daemon connected")
        } else if !ui.daemonBanner.isVisible {
            showDaemonMissing(
                "No daemon is running: copies made in other applications appear after 'pb daemon' starts; "
                    + "this window refreshes after its own changes.")
            log.note("daemon missing")
        }
    }

    private func showDaemonMissing(_ text: String) {
        ui.daemonBanner.text = text
        ui.daemonBanner.isVisible = true
    }

    // MARK: - Messages

    func showError(_ error: AppError) {
        ui.errorBanner.text = error.message
        ui.errorBox.isVisible = true
        log.note("error \(error.message)")
    }

    /// Hides the error banner once an action of the user's succeeded: an old failure must not read as the newest news.
    func clearError() {
        guard ui.errorBox.isVisible else { return }
        ui.errorBox.isVisible = false
        log.note("error cleared")
    }

    func showNotice(_ text: String) {
        ui.status.text = text
        log.note("notice \(text)")
    }

    /// `number` with its thousands separated by commas, "1,000,000" (by hand: the first number ICU formats costs
    /// its start-up, before the window's first frame).
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = number < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    func noteRows() {
        let count = rows.count
        let what: String
        if filter.isEmpty {
            let total = rows.total ?? count
            what = total == 0 ? "No items yet: copy something." : "\(Self.grouped(total)) item\(total == 1 ? "" : "s")"
        } else {
            let more = rows.isComplete && !rows.isSearching ? "" : "+"
            what = count == 0 ? "No matches." : "\(Self.grouped(count))\(more) match\(count == 1 && more.isEmpty ? "" : "es")"
        }
        ui.status.text = what
        log.note("rows \(count)")
    }
}
