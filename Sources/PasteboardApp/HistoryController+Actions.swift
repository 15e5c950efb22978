import Foundation
import GtkSupport
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import SystemSupport
import URLFetching

extension HistoryController {
    // MARK: - Copying

    /// Copies the text field's contents to the clipboard and the history, then empties the field.
    func copyTypedText() {
        let text = ui.copyField.text
        guard !text.isEmpty else { return }
        ui.copyButton.isSensitive = false
        worker.copy(PasteboardItem(string: text), source: Self.source) { [weak self] result in
            MainLoop.post { self?.finishCopy(result, what: "text") }
        }
    }

    func finishCopy(_ result: Result<ClipboardWorker.Outcome, AppError>, what: String) {
        switch result {
        case .success(.recorded(let id)):
            clearError()
            if what == "text" { ui.copyField.text = "" }
            log.note("copied \(what) \(id)")
            refresh(after: nil)
        case .success(.unrecorded(let reason)):
            clearError()
            if what == "text" { ui.copyField.text = "" }
            showNotice("Copied, but not recorded in the history: \(reason) (see the configuration file).")
        case .failure(let error):
            ui.copyButton.isSensitive = !ui.copyField.text.isEmpty
            showError(error)
        }
        subscribeToDaemon()
    }

    /// Puts the row's item back on the clipboard with every representation (with `plain`, its text alone: Shift+Enter),
    /// and previews it.
    func restore(at position: Int, plain: Bool = false) {
        guard let item = rows.item(at: position) else { return }
        if ui.listView.selectedPosition != position { ui.listView.selectedPosition = position }
        showPreview(of: item)
        worker.restore(id: item.id, plain: plain) { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success:
                    self.clearError()
                    self.log.note("restored \(item.id)\(plain ? " as plain text" : "")")
                    self.refresh(after: nil)
                case .failure(let error):
                    self.showError(error)
                }
                self.subscribeToDaemon()
            }
        }
    }

    // MARK: - Copy from URL

    /// Downloads the address in the URL field and copies what it holds (see `URLFetching`), on a thread of its own.
    func copyFromURL() {
        guard fetch == nil else { return }
        let address: FetchAddress
        do {
            address = try FetchAddress.typed(ui.urlField.text)
        } catch {
            return showError(AppError(error.message))
        }
        var limits = URLFetcher.Limits()
        if let text = environment["PASTEBOARD_GTK_STALL_TIMEOUT"], let seconds = Double(text), seconds > 0 {
            limits.stallTimeout = seconds
        }
        ui.errorBox.isVisible = false
        ui.overlay.begin(address.text)
        log.note("fetch started \(address.text)")
        let fetcher = URLFetcher(address: address, limits: limits, userAgent: "Pasteboard (pasteboard-gtk)")
        self.fetch = fetcher
        do {
            try DetachedThread.start(name: "pb-fetch") { [weak self] in
                var shown = ContinuousClock.now
                let result = fetcher.run { received, expected in
                    // A few redraws a second are enough; the main loop need not see every piece.
                    guard ContinuousClock.now - shown > .milliseconds(100) else { return }
                    shown = ContinuousClock.now
                    MainLoop.post { self?.ui.overlay.update(received: received, expected: expected) }
                }
                if case .failure(let error) = result, error.kind == .cancelled {
                    return MainLoop.post {
                        guard let self else { return }
                        self.fetch = nil
                        self.ui.overlay.end()
                        self.showNotice("Download cancelled; nothing was copied.")
                        self.log.note("fetch cancelled")
                    }
                }
                // Classifying decodes an image: done here, off the main thread.
                let content = result.mapError { AppError($0.message) }.flatMap { download in
                    Result { () throws(AppError) in try AppFetchedContent.item(from: download) }
                }
                MainLoop.post { self?.finishFetch(content) }
            }
        } catch {
            fetch = nil
            ui.overlay.end()
            showError(AppError("Could not start the download: \(error.reason)"))
        }
    }

    private func finishFetch(_ result: Result<(item: PasteboardItem, summary: String), AppError>) {
        switch result {
        case .failure(let error):
            fetch = nil
            ui.overlay.end()
            showError(error)
            log.note("fetch failed")
        case .success(let content):
            worker.copy(content.item, source: Self.source) { [weak self] outcome in
                MainLoop.post {
                    guard let self else { return }
                    self.fetch = nil
                    self.ui.overlay.end()
                    if case .success = outcome {
                        self.ui.urlField.text = ""
                        self.showNotice("Copied \(content.summary) from the address.")
                    }
                    self.finishCopy(outcome, what: "url")
                }
            }
        }
    }

    // MARK: - Pins, deletion, clearing

    var selectedItem: HistoryItem? { ui.listView.selectedPosition.flatMap { rows.item(at: $0) } }

    func togglePin() {
        guard let item = selectedItem else { return }
        do {
            try store.setPinned(!item.isPinned, id: item.id)
        } catch {
            return showError(AppError(error.message))
        }
        // Watchers (other windows, pb watch) learn of it from the store's change feed, through the daemon.
        let event = ControlEvent(item.isPinned ? .unpinned : .pinned, id: item.id)
        log.note("\(event.event) \(item.id)")
        refresh(after: event)
    }

    func deleteSelected() {
        guard let position = ui.listView.selectedPosition, let item = rows.item(at: position) else { return }
        do {
            try store.delete(id: item.id)
        } catch {
            return showError(AppError(error.message))
        }
        let event = ControlEvent(.deleted, id: item.id)
        log.note("deleted \(item.id)")
        refresh(after: event)
        if rows.count > 0 { ui.listView.focusRow(at: min(position, rows.count - 1), focus: true) }
    }

    func confirmClear() {
        guard confirmation == nil else { return }
        let hasPinned: Bool
        do {
            hasPinned = try !store.items(HistoryQuery(pinnedOnly: true, limit: 1)).isEmpty
        } catch {
            return showError(AppError(error.message))
        }
        let message =
            "Delete every item from the history? "
            + (hasPinned ? "Pinned items are kept. " : "") + "This cannot be undone."
        let confirmation = ConfirmationWindow(
            parent: ui.window, title: "Clear History", message: message, action: "_Clear History"
        ) { [weak self] confirmed in
            guard let self else { return }
            self.confirmation = nil
            self.log.note(confirmed ? "clear confirmed" : "clear cancelled")
            if confirmed { self.clearHistory() }
        }
        // Kept while it is open: its buttons' handlers hold it only weakly.
        self.confirmation = confirmation
        confirmation.present()
        log.note("clear asked")
    }

    private func clearHistory() {
        let count: Int
        do {
            count = try store.clear(keepPinned: true)
        } catch {
            return showError(AppError(error.message))
        }
        var event = ControlEvent(.cleared)
        event.count = count
        event.keptPinned = true
        thumbnails.removeAll()
        clearError()
        log.note("cleared \(count)")
        refresh(after: event)
    }

    // MARK: - Layout

    func setLayout(_ layout: AppState.Layout) {
        guard layout != state.layout else { return }
        state.layout = layout
        ui.apply(layout)
        ui.listView.setFactory(factory(for: layout))
        do {
            try state.save(to: stateURL)
        } catch {
            showError(error)
        }
        log.note("layout \(layout.rawValue)")
    }
}
