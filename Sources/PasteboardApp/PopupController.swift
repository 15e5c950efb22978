import Foundation
import GtkSupport
import PasteboardHistory
import PasteboardSystem

/// `pasteboard-gtk --popup`: a compact list of the history near the pointer, for a global hotkey. Typing filters,
/// Up and Down move, Enter (or a click) copies the item and closes; with `--paste` it then types Ctrl+V into the
/// window that had the focus before (XTest). Escape closes without copying.
@MainActor
final class PopupController {
    static let title = "Pasteboard Popup"
    static let size = (width: 420, height: 360)

    private let rows: HistoryRows
    private let model: VirtualList
    private let worker: ClipboardWorker
    private let log: TestLog
    private let pastes: Bool
    private let window = Window(
        title: PopupController.title, width: PopupController.size.width, height: PopupController.size.height)
    private let search = SearchEntry(placeholder: "Type to filter, Enter to copy")
    private let listView: ListView
    private let status = Label()
    private let thumbnails: ThumbnailCache
    /// The window that had the focus before the popup opened, where `--paste` pastes (or why it cannot).
    private let pasteTarget: Result<any PasteTarget, ClipboardError>?
    private var isCopying = false

    init(store: HistoryStore, clipboard: SystemClipboard, environment: [String: String], log: TestLog, pastes: Bool) {
        self.log = log
        self.pastes = pastes
        pasteTarget = pastes ? Result { () throws(ClipboardError) in try PasteTargets.focused(environment: environment) } : nil
        worker = ClipboardWorker(clipboard: clipboard, location: store.location, environment: environment)
        thumbnails = ThumbnailCache(loader: ImageLoader(location: store.location), size: 48)
        let rows = HistoryRows(store: store, countsWholeHistory: false)
        self.rows = rows
        rows.reload(HistoryRows.Filter())
        log.note("rows counted")
        model = VirtualList(
            count: { [weak rows] in rows?.count ?? 0 },
            row: { [weak rows] position in rows?.item(at: position).map(RowPayload.init) })
        let thumbnails = self.thumbnails
        let factory = ListFactory(
            setup: { item in
                let view = HistoryRowView(layout: .list)
                item.setChild(view.root)
                item.attach(view)
            },
            bind: { item in
                guard let view = item.view as? HistoryRowView, let payload = item.payload as? RowPayload else { return }
                view.bind(payload.item, thumbnails: thumbnails) { _ in }
            })
        listView = ListView(model: model, factory: factory)
        listView.activatesOnSingleClick = true
        build()
        connect()
        log.note("window built")
    }

    private func build() {
        window.isDecorated = false
        window.isResizable = false
        let scroller = ScrolledWindow(listView)
        scroller.setScrolling(horizontal: false, vertical: true)
        scroller.expandsVertically = true
        search.expandsHorizontally = true
        status.addStyleClass("dim-label")
        status.textAlignment = 0
        let content = Box(.vertical, spacing: 6, [search, scroller, status])
        content.setMargins(8)
        content.addStyleClass("popup")
        window.setChild(content)
        window.setFocus(search)
    }

    private func connect() {
        rows.onGrow = { [weak self] position, added in
            self?.model.itemsChanged(at: position, removed: 0, added: added)
            self?.noteRows()
        }
        search.onSearch { [weak self] in self?.filter() }
        search.onActivate { [weak self] in self?.copy(at: self?.listView.selectedPosition ?? 0) }
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
        window.addShortcut("Escape", scope: .global) { [weak self] in
            self?.close(copied: false, why: "escape")
            return true
        }
        window.onCloseRequest { [weak self] in
            self?.close(copied: false, why: "window closed")
            return false
        }
    }

    /// Opens near the pointer, kept on screen.
    func start() {
        window.onFirstFrame { [log] in log.note("first frame") }
        window.present()
        if let pointer = X11Desktop.pointer {
            let screen = X11Desktop.screenSize ?? (pointer.x + Self.size.width, pointer.y + Self.size.height)
            let x = max(0, min(pointer.x, screen.width - Self.size.width))
            let y = max(0, min(pointer.y, screen.height - Self.size.height))
            X11Desktop.move(window, x: x, y: y)
            log.note("popup at \(x),\(y)")
        }
        log.note("window shown \(Self.title)")
        if rows.count > 0 { listView.selectedPosition = 0 }
        noteRows()
    }

    private func filter() {
        let old = rows.count
        rows.reload(HistoryRows.Filter(text: search.text))
        model.itemsChanged(at: 0, removed: old, added: rows.count)
        if rows.count > 0 { listView.selectedPosition = 0 }
        log.note("search \(search.text)")
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
        status.text = count == 0 ? "No matches." : "Enter copies · Escape closes"
        log.note("rows \(count)")
    }

    /// Copies the row's item with every representation, then closes (and pastes, with `--paste`).
    private func copy(at position: Int) {
        guard !isCopying, let item = rows.item(at: position) else { return }
        isCopying = true
        worker.restore(id: item.id) { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success:
                    self.log.note("restored \(item.id)")
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
        log.note("popup closed: \(why)")
        window.isVisible = false
        guard copied && pastes else {
            MainLoop.quit()
            return
        }
        // Once our window is gone, the one that had the focus gets it back and receives Ctrl+V.
        MainLoop.after(0.05) { [log, pasteTarget] in
            do throws(ClipboardError) {
                try pasteTarget?.get().paste(.ctrlV)
                log.note("pasted")
            } catch {
                log.note("paste unavailable")
                FileHandle.standardError.write(Data("pasteboard-gtk: \(error.message) Copied only.\n".utf8))
            }
            MainLoop.quit()
        }
    }
}
