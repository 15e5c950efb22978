import DisplayBackends
import DisplayPaste
import Foundation
import GtkSupport
import PasteboardHistory
import PasteboardSystem

/// `pasteboard-gtk --popup`: a compact list of the history near the pointer, for a global hotkey. Typing filters,
/// Up and Down move, Enter (or a click) copies the item and closes; with `--paste` it then types Ctrl+V into the
/// window that had the focus before (`PasteTargets`). Escape closes without copying. Ctrl+Space, Shift+Up/Down,
/// Ctrl+click and Shift+click mark several items: Enter then puts them on a paste stack (one per paste, in the order
/// marked), Ctrl+Enter copies their texts joined by line breaks.
///
/// It lives once (`.once`: the process ends when it closes) or resident (`.resident`: built at start-up and kept
/// hidden between shows in a process that keeps GTK running, refreshed from the daemon's events while hidden).
@MainActor
final class PopupController {
    /// Whether closing ends the process or only hides the popup.
    enum Residence {
        case once, resident
    }

    static let title = "Pasteboard Popup"
    static let size = (width: 420, height: 360)

    private let rows: HistoryRows
    private let model: VirtualList
    private let worker: ClipboardWorker
    private let log: TestLog
    private let residence: Residence
    private let environment: [String: String]
    /// The daemon's events, for a resident popup (nil for one shown once).
    private let events: DaemonEvents?
    /// Whether the popup is shown (between `show` and closing).
    private(set) var isShown = false
    /// Whether this showing pastes after copying.
    private var pastes = false
    private let window = Window(
        title: PopupController.title, width: PopupController.size.width, height: PopupController.size.height)
    private let search = SearchEntry(placeholder: "Type to filter, Enter to copy")
    private let listView: ListView
    private let status = Label()
    private let thumbnails: ThumbnailCache
    /// The window that had the focus before the popup opened, where `--paste` pastes (or why it cannot).
    private var pasteTarget: Result<any PasteTarget, ClipboardError>?
    private var isCopying = false
    /// Whether a `layOutWhileHidden` waits for the loop to be idle.
    private var isLayoutPending = false
    /// The window's content (search, list, status line).
    private var content: Box?
    /// The items marked, in the order marked, and the row views that show them.
    private let marks = ItemMarks()
    private let rowViews = RowViewRegistry()

    init(
        store: HistoryStore, clipboard: SystemClipboard, environment: [String: String], log: TestLog,
        residence: Residence
    ) {
        self.log = log
        self.residence = residence
        self.environment = environment
        events = residence == .resident ? DaemonEvents(client: clipboard.daemon, approving: false) : nil
        worker = ClipboardWorker(clipboard: clipboard, location: store.location, environment: environment)
        thumbnails = ThumbnailCache(loader: ImageLoader(location: store.location), size: 48)
        let rows = HistoryRows(store: store, countsWholeHistory: false, searching: true)
        self.rows = rows
        rows.reload(HistoryRows.Filter())
        log.note("rows counted")
        let payloads = RowPayloads()
        model = VirtualList(
            count: { [weak rows] in rows?.count ?? 0 },
            row: { [weak rows] position in rows?.item(at: position).map(payloads.payload(for:)) })
        let thumbnails = self.thumbnails
        let marks = self.marks
        let registry = rowViews
        let factory = ListFactory(
            setup: { item in
                let view = HistoryRowView(layout: .list)
                item.setChild(view.root)
                item.attach(view)
                registry.add(view)
            },
            bind: { [highlighter = rows.highlighter] item in
                guard let view = item.view as? HistoryRowView, let payload = item.payload as? RowPayload else { return }
                view.highlight = highlighter.matcher
                view.bind(payload.item, thumbnails: thumbnails) { _ in }
                view.setMark(marks.number(of: payload.item.id))
            })
        listView = ListView(model: model, factory: factory)
        listView.activatesOnSingleClick = true
        build()
        connect()
        log.note("window built")
    }

    private func build() {
        // For tests and benchmarks: keys typed before the window is active would go elsewhere.
        window.onActiveChange { [log] active in if active { log.note("popup active") } }
        window.isDecorated = false
        window.isResizable = false
        let scroller = ScrolledWindow(listView)
        scroller.setScrolling(horizontal: false, vertical: true)
        scroller.expandsVertically = true
        // The rows past the first screenful are read as the list nears their end.
        scroller.onNearEnd { [weak rows] in rows?.loadMore() }
        search.expandsHorizontally = true
        search.setAccessibleLabel("Filter history")
        listView.setAccessibleLabel("History")
        scroller.setAccessibleLabel("History", ofInner: .scrollbar)
        status.setAccessibleLabel("Status")
        status.addStyleClass("dim-label")
        status.textAlignment = 0
        let content = Box(.vertical, spacing: 6, [search, scroller, status])
        content.setMargins(8)
        content.addStyleClass("popup")
        window.setChild(content)
        self.content = content
        window.setFocus(search)
    }

    private func connect() {
        rows.onGrow = { [weak self] position, added in
            self?.model.itemsChanged(at: position, removed: 0, added: added)
            self?.noteRows()
        }
        rows.onReplace = { [weak self] removed, added, _ in self?.rowsReplaced(removed: removed, added: added) }
        rows.onSearchEnd = { [weak self] in self?.noteRows() }
        // On each key as it is handled, as the window's search does (on the list model's thread).
        search.onChange { [weak self] in
            guard let self, self.isShown, self.search.text != self.rows.filter.text else { return }
            self.filter()
        }
        events?.onEvent = { [weak self] event in self?.historyChanged(event.event.rawValue) }
        events?.onEnd = { [weak self] reason in self?.log.note("popup lost the daemon: \(reason)") }
        events?.onReturn = { [weak self] in self?.historyChanged("the daemon is back") }
        search.onActivate { [weak self] in
            guard let self else { return }
            if self.marks.isEmpty { self.copy(at: self.listView.selectedPosition ?? 0) } else { self.copyMarked(joined: false) }
        }
        window.addShortcut("<Control>Return", scope: .global) { [weak self] in
            guard let self, !self.marks.isEmpty else { return false }
            self.copyMarked(joined: true)
            return true
        }
        window.addShortcut("<Control>space", scope: .global) { [weak self] in
            guard let self, let position = self.listView.selectedPosition else { return false }
            self.toggleMark(at: position)
            return true
        }
        for (key, step) in [("<Shift>Down", 1), ("<Shift>Up", -1)] {
            search.addShortcut(key) { [weak self] in
                guard let self, let position = self.listView.selectedPosition else { return false }
                self.mark(position)
                self.move(by: step)
                if let next = self.listView.selectedPosition { self.mark(next) }
                return true
            }
        }
        listView.onModifiedClick { [weak self] position, extend, _ in
            guard let self else { return }
            if extend, let from = self.listView.selectedPosition {
                for index in stride(from: from, through: position, by: position >= from ? 1 : -1) { self.mark(index) }
                self.listView.selectedPosition = position
            } else {
                self.toggleMark(at: position)
            }
            self.search.grabFocus()
        }
        // Not the search entry's stop-search: GTK 4.8 emitted it by itself when the popup opened over another of
        // its windows. Escape is the window's shortcut.
        search.addShortcut("Escape") { [weak self] in
            self?.close(copied: false, why: "escape")
            return true
        }
        search.addShortcut("Down") { [weak self] in
            self?.move(by: 1)
            return true
        }
        search.addShortcut("Up") { [weak self] in
            self?.move(by: -1)
            return true
        }
        listView.onActivate { [weak self] position in self?.copy(at: position) }
        // Shift+Enter: the item's text alone (paste as plain text), from the search field or the list.
        window.addShortcut("<Shift>Return", scope: .global) { [weak self] in
            guard let self else { return false }
            self.copy(at: self.listView.selectedPosition ?? 0, plain: true)
            return true
        }
        window.addShortcut("Escape", scope: .global) { [weak self] in
            self?.close(copied: false, why: "escape")
            return true
        }
        window.onCloseRequest { [weak self] in
            guard let self else { return false }
            self.close(copied: false, why: "window closed")
            // Resident, the window stays (hidden) for the next show instead of being destroyed.
            return self.residence == .resident
        }
    }

    /// Makes the window's surface and starts following the daemon, so that a later `show` only maps it.
    func prepare() {
        window.realize()
        // Styles, fonts and the first rows' widgets now, not at the first show (measured: most of that show's time).
        content?.layOut(width: Self.size.width, height: Self.size.height)
        subscribe()
        log.note("popup ready")
    }

    /// Opens near the pointer, kept on screen, or (shown already) takes the focus; "opened" or "focused". With
    /// `pastes`, copying then pastes into the window that has the focus now.
    @discardableResult
    func show(pastes: Bool) -> String {
        if isShown {
            window.present()
            log.note("popup focused")
            return "focused"
        }
        self.pastes = pastes
        pasteTarget =
            pastes ? Result { () throws(ClipboardError) in try PasteTargets.focused(environment: environment) } : nil
        isShown = true
        isCopying = false
        if residence == .resident && subscribe() {
            // No daemon to follow while hidden: read the store now instead.
            reloadRows()
        }
        let frame = window.isRealized ? window.onNextFrame : window.onFirstFrame
        frame { [log] in
            log.note("first frame")
            log.note("popup drawn")
        }
        let place = placement()
        if let place, window.isRealized { X11Desktop.move(window, x: place.x, y: place.y) }
        window.present()
        if let place {
            X11Desktop.move(window, x: place.x, y: place.y)
            log.note("popup at \(place.x),\(place.y)")
        }
        log.note("window shown \(Self.title)")
        if rows.count > 0 { listView.selectedPosition = 0 }
        noteRows()
        return "opened"
    }

    /// Where the popup goes: at the pointer, kept on screen (X11 only; nil elsewhere).
    private func placement() -> (x: Int, y: Int)? {
        guard let pointer = X11Desktop.pointer else { return nil }
        let screen = X11Desktop.screenSize ?? (pointer.x + Self.size.width, pointer.y + Self.size.height)
        return (
            max(0, min(pointer.x, screen.width - Self.size.width)),
            max(0, min(pointer.y, screen.height - Self.size.height))
        )
    }

    /// Follows the daemon unless already following; returns true when no daemon answers (the rows may be stale).
    @discardableResult
    private func subscribe() -> Bool {
        guard let events else { return false }
        if events.isSubscribed { return false }
        if events.subscribe() {
            log.note("popup follows the daemon")
            return false
        }
        return true
    }

    /// The history changed (a daemon event): read the rows again, hidden or not, so that the next show is current.
    private func historyChanged(_ what: String) {
        reloadRows()
        log.note("popup refreshed: \(what)")
    }

    /// Reads the first rows again with the current filter (none while hidden).
    private func reloadRows() {
        if isShown && !search.text.isEmpty {
            // A search is read again off the main thread; its rows replace these when they come.
            rows.search(HistoryRows.Filter(text: search.text))
            return
        }
        let old = rows.count
        rows.reload(HistoryRows.Filter(text: isShown ? search.text : ""))
        model.itemsChanged(at: 0, removed: old, added: rows.count)
        if isShown {
            if rows.count > 0 { listView.selectedPosition = 0 }
            noteRows()
        } else {
            layOutWhileHidden()
        }
    }

    /// Lays the hidden popup out again once the loop is idle, so that the new rows' widgets are made and bound now
    /// rather than at the next show (measured: without, a show after a change took 150–280 ms instead of 40).
    private func layOutWhileHidden() {
        guard !isLayoutPending else { return }
        isLayoutPending = true
        MainLoop.after(0, whenIdle: true) { [weak self] in
            guard let self else { return }
            self.isLayoutPending = false
            guard !self.isShown else { return }
            if self.rows.count > 0 { self.listView.selectedPosition = 0 }
            self.content?.layOut(width: Self.size.width, height: Self.size.height)
        }
    }

    private func filter() {
        rows.search(HistoryRows.Filter(text: search.text))
    }

    /// The rows of the search asked for last arrived.
    private func rowsReplaced(removed: Int, added: Int) {
        model.itemsChanged(at: 0, removed: removed, added: added)
        if rows.count > 0 { listView.selectedPosition = 0 }
        log.note("search \(rows.filter.text)")
        noteRows()
    }

    private func move(by step: Int) {
        guard rows.count > 0 else { return }
        let next = max(0, min(rows.count - 1, (listView.selectedPosition ?? -step) + step))
        listView.selectedPosition = next
        listView.focusRow(at: next)
        search.grabFocus()
    }

    private func noteRows() {
        let count = rows.count
        if !marks.isEmpty {
            status.text = "\(marks.count) marked · Enter: one per paste · Ctrl+Enter: joined"
        } else {
            status.text = count == 0 ? "No matches." : "Enter copies · Ctrl+Space marks · Escape closes"
        }
        log.note("rows \(count)")
    }

    // MARK: - Marks

    private func mark(_ position: Int) {
        guard let item = rows.item(at: position) else { return }
        marks.mark(item.id)
        marksChanged()
    }

    private func toggleMark(at position: Int) {
        guard let item = rows.item(at: position) else { return }
        marks.toggle(item.id)
        listView.selectedPosition = position
        marksChanged()
    }

    private func marksChanged() {
        for view in rowViews.views { view.setMark(view.itemID.flatMap(marks.number(of:))) }
        noteRows()
        log.note("marked \(marks.ids.map(String.init).joined(separator: ","))")
    }

    /// The marked items: a paste stack (one per paste, in the order marked), or with `joined` one copy of their
    /// texts joined by line breaks; then closes (and pastes the first, with `--paste`).
    private func copyMarked(joined: Bool) {
        guard !isCopying, !marks.isEmpty else { return }
        isCopying = true
        let ids = marks.ids
        let done: @Sendable (Result<Void, AppError>) -> Void = { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success:
                    self.log.note("\(joined ? "joined" : "stacked") \(ids.map(String.init).joined(separator: ","))")
                    self.marks.removeAll()
                    self.marksChanged()
                    self.close(copied: true, why: "copied")
                case .failure(let error):
                    self.isCopying = false
                    self.status.text = error.message
                    self.log.note("error \(error.message)")
                }
            }
        }
        guard joined else { return worker.stack(ids: ids, completion: done) }
        worker.copyJoined(ids: ids, separator: "\n", source: HistoryController.source) { result in
            done(result.map { _ in () })
        }
    }

    /// Copies the row's item with every representation, then closes (and pastes, with `--paste`).
    private func copy(at position: Int, plain: Bool = false) {
        guard !isCopying, let item = rows.item(at: position) else { return }
        isCopying = true
        worker.restore(id: item.id, plain: plain) { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success:
                    self.log.note("restored \(item.id)\(plain ? " as plain text" : "")")
                    self.close(copied: true, why: "copied")
                case .failure(let error):
                    self.isCopying = false
                    self.status.text = error.message
                    self.log.note("error \(error.message)")
                }
            }
        }
    }

    private func close(copied: Bool, why: String) {
        guard isShown else { return }
        log.note("popup closed: \(why)")
        window.isVisible = false
        isShown = false
        if residence == .resident {
            // Ready for the next show: no filter, no marks, the newest item first.
            if !marks.isEmpty {
                marks.removeAll()
                marksChanged()
            }
            search.text = ""
            reloadRows()
        }
        guard copied && pastes else {
            if residence == .once { MainLoop.quit() }
            return
        }
        // Once our window is gone, the one that had the focus gets it back and receives Ctrl+V.
        MainLoop.after(0.05) { [log, pasteTarget, residence] in
            do throws(ClipboardError) {
                try pasteTarget?.get().paste(.ctrlV)
                log.note("pasted")
            } catch {
                log.note("paste unavailable")
                FileHandle.standardError.write(Data("pasteboard-gtk: \(error.message) Copied only.\n".utf8))
            }
            if residence == .once { MainLoop.quit() }
        }
    }
}
