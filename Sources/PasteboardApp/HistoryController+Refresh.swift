import GtkSupport
import PasteboardControl
import PasteboardHistory
import PasteboardModel

extension HistoryController {
    // MARK: - Search and filters

    func searchChanged() {
        // GTK also says so when nothing changed (once as the window opens): a reload then would cost the first frame.
        guard ui.searchField.text != filter.text else { return }
        filter.text = ui.searchField.text
        applyFilter()
    }

    func kindChanged() {
        let index = ui.kindFilter.selectedIndex
        filter.kinds = HistoryWindow.kindChoices.indices.contains(index) ? HistoryWindow.kindChoices[index].kinds : nil
        applyFilter()
        log.note(
            "filter \(HistoryWindow.kindChoices.indices.contains(index) ? HistoryWindow.kindChoices[index].label : "?")"
        )
    }

    /// Asks for the rows of the new filter: they are read on the list model's thread (a newer key cancels the
    /// search), and replace the list when they come (`rowsReplaced`); meanwhile the window goes on drawing.
    func applyFilter() {
        filter.mode = ui.searchMode.mode
        // A pattern that is not one shows what is wrong under the field; the list stays that of the last search
        // (which a change in the history reads again), until the pattern or the mode changes.
        guard ui.searchMode.check(filter.text) else {
            log.note("search problem \(ui.searchMode.message.text)")
            filter = rows.filter
            return
        }
        if selectedBeforeSearch == nil {
            selectedBeforeSearch = ui.listView.selectedPosition.flatMap { rows.cachedItem(at: $0)?.id }
        }
        rows.search(filter)
    }

    /// The rows of the filter asked for last arrived (its first ones, or all of them); a reload's after a change.
    func rowsReplaced(removed: Int, added: Int, isReload: Bool) {
        let selected = selectedBeforeSearch
        selectedBeforeSearch = nil
        // The selection is lost with the rows and found again below: the preview follows only the final state (a
        // preview shown, cleared and shown again cost more than the search itself).
        isRefreshing = true
        defer {
            isRefreshing = false
            selectionChanged()
        }
        model.itemsChanged(at: 0, removed: removed, added: added)
        if isReload {
            reselect(selected)
            noteRows()
            log.note("search refreshed \(rows.filter.text)")
            return
        }
        ui.listScroller.scrollToStart()
        reselect(selected)
        noteRows()
        let text = rows.filter.text
        log.note("search \(text)")
        ui.window.onNextFrame { [log] in log.note("search drawn \(text)") }
    }

    // MARK: - Live updates

    /// Reads the store again after `event` (from the daemon) or after this window's own change (nil), telling the
    /// list only what changed where that is known: a new item at the top, a row pinned or deleted.
    func refresh(after event: ControlEvent?) {
        // A deleted item is no longer marked.
        if let event, [.deleted, .expired, .pruned].contains(event.event), let id = event.id { unmark([id]) }
        if event?.event == .cleared { clearMarks() }
        // GTK moves the focus by itself as rows are replaced; the selection stays the user's.
        ui.listView.holdFocusSelection()
        // A search or a kind filter is read again off the main thread (a letter few items hold reads the whole
        // history), keeping the selection; the unfiltered list's first rows are read now, each change in its place.
        if !filter.isEmpty, rows.searchesInBackground {
            if selectedBeforeSearch == nil {
                selectedBeforeSearch = ui.listView.selectedPosition.flatMap { rows.cachedItem(at: $0)?.id }
            }
            rows.refreshInBackground()
            if event?.id == preview.itemID { selectionChanged(force: true) }
            return
        }
        let oldCount = rows.count
        let oldHead = rows.cachedItem(at: 0)?.id
        // The ids of the rows in memory, to tell an item moved to the top (a restore, a copy again) from a new one.
        let oldIDs = (0..<min(oldCount, HistoryRows.cachedPages * HistoryRows.pageSize)).map {
            rows.cachedItem(at: $0)?.id
        }
        let selectedPosition = ui.listView.selectedPosition
        let selected = selectedPosition.flatMap { rows.cachedItem(at: $0)?.id }
        let name = event?.event
        let knownPosition = event?.id.flatMap { rows.position(of: $0) }
        let hadFocus = ui.listView.containsFocus
        // As many rows as before, give or take the item the event added or removed, so the precise updates below
        // apply to a list that is paged in as to a counted one.
        let removesOne = (name == .deleted || name == .expired || name == .pruned) && event?.count == nil
        let changesOne = name == .pinned || name == .unpinned || name == .changed
        let change = removesOne ? -1 : (changesOne ? 0 : 1)
        rows.reload(filter, atLeast: oldCount + change, keepingCount: true)
        if filter.isEmpty { rows.countTotal() }
        // Replacing rows drops their selection for a moment: the preview follows only the final state.
        isRefreshing = true
        defer {
            // A replaced row takes the keyboard focus with it: give it back, so the arrows keep working.
            if hadFocus && !ui.listView.containsFocus, rows.count > 0 {
                ui.listView.focusRow(at: min(ui.listView.selectedPosition ?? 0, rows.count - 1), focus: true)
            }
            isRefreshing = false
            selectionChanged(force: event?.id == nil || event?.id == preview.itemID)
            noteRows()
        }
        if let position = knownPosition, changesOne, rows.count == oldCount {
            model.itemsChanged(at: position, removed: 1, added: 1)
            if selectedPosition == position { ui.listView.selectedPosition = position }
            return
        }
        if let position = knownPosition, removesOne, rows.count == oldCount - 1 {
            model.itemsChanged(at: position, removed: 1, added: 0)
            return
        }
        let newHead = rows.item(at: 0)?.id
        let movedFrom = newHead.flatMap { oldIDs.firstIndex(of: $0) }
        if oldHead != nil, movedFrom == nil, rows.count == oldCount + 1, rows.item(at: 1)?.id == oldHead {
            // GTK keeps the first row shown where it was, so a new row at the top lands just before the view: a view
            // at the start stays at the start, showing it.
            let wasAtStart = ui.listScroller.isAtStart
            model.itemsChanged(at: 0, removed: 0, added: 1)
            if wasAtStart { keepAtStart() }
            return
        }
        if let from = movedFrom, from > 0, rows.count == oldCount {
            // An item moved to the top (restored, copied again): the rows above its old place moved down one, those
            // below did not. Told as a new item at the top, the list kept the selection on the position below it,
            // the neighbour; the selection follows the item instead.
            model.itemsChanged(at: 0, removed: from + 1, added: from + 1)
            reselect(selected)
            return
        }
        if oldHead != nil, rows.count == oldCount, newHead == oldHead, name != .cleared {
            // The same item on top: it may have been copied again (time, count).
            model.itemsChanged(at: 0, removed: 1, added: 1)
            if selectedPosition == 0 { ui.listView.selectedPosition = 0 }
            return
        }
        model.itemsChanged(at: 0, removed: oldCount, added: rows.count)
        reselect(selected)
    }

    /// Scrolls back to the start once the rows just added are laid out, and says where the view is (for tests).
    func keepAtStart() {
        MainLoop.after(0) { [weak self] in
            guard let self else { return }
            self.ui.listView.scroll(to: 0)
            MainLoop.after(0.1) { [weak self] in
                guard let self else { return }
                self.log.note("view at start \(self.ui.listScroller.isAtStart)")
            }
        }
    }

    /// Selects item `id` again after the rows were replaced, when it is among the first rows.
    func reselect(_ id: Int64?) {
        guard let id else { return }
        _ = rows.item(at: 0)
        // With the focus in the list, the focus goes with it (a row that takes the focus is selected: left where the
        // replaced rows put it, it would select a neighbour).
        if let position = rows.position(of: id) {
            ui.listView.focusRow(at: position, focus: ui.listView.containsFocus)
        }
    }

    func focusList() {
        guard rows.count > 0 else { return }
        ui.listView.focusRow(at: ui.listView.selectedPosition ?? 0, focus: true)
    }

    // MARK: - Preview

    /// Shows the selected item in the preview (again with `force`, as its details may have changed).
    func selectionChanged(force: Bool = false) {
        guard !isRefreshing else { return }
        guard let position = ui.listView.selectedPosition, let item = rows.item(at: position) else {
            if preview.itemID != nil {
                preview.showNothing()
                log.note("preview none")
            }
            return
        }
        if force || preview.itemID != item.id { showPreview(of: item) }
    }

    /// The text a preview shows: the plain text (else the URL, the file list, the HTML), at most 64 KiB of it.
    static func previewText(of item: PasteboardItem) -> String? {
        let order: [ContentType] = [.utf8PlainText, .plainText, .url, .uriList, .fileURL, .html, .text]
        guard let type = item.bestType(among: order), let representation = item.representation(forType: type) else {
            return nil
        }
        let head = representation.prefix(64 * 1024)
        var text = String(decoding: head, as: UTF8.self)
        if representation.byteCount > head.count { text += "\n…" }
        return text
    }

    /// Shows `item` in the preview pane: its text (the first 64 KiB), or its image decoded to fit.
    func showPreview(of item: HistoryItem) {
        // A live update while the user edits this item's text leaves the edit alone.
        if preview.isEditing && preview.itemID == item.id { return }
        if item.kind == .image {
            preview.showImage(item)
            showPasteLog(of: item.id)
            let id = item.id
            do {
                let words = try store.recognizedText(id: id)
                preview.showRecognizedText(words, for: id, matcher: rows.highlighter.matcher)
                if let words, !words.isEmpty { log.note("preview words \(id): \(words.prefix(80))") }
            } catch {
                showError(AppError(error.message))
            }
            loader.load(.init(id: id, maxSize: Self.previewImageSize)) { [weak self] result in
                MainLoop.post {
                    guard let self else { return }
                    switch result {
                    case .success(let texture):
                        self.preview.show(texture: texture, for: id)
                        self.log.note("preview image \(id) \(texture.width)x\(texture.height)")
                    case .failure(let error):
                        if self.preview.itemID == id { self.showError(error) }
                    }
                }
            }
            return
        }
        // Read (and its payload checked against its hash) on the loader's thread; shown if still selected.
        let id = item.id
        loader.loadText(id: id) { [weak self] result in
            MainLoop.post {
                guard let self, self.ui.listView.selectedPosition.flatMap({ self.rows.cachedItem(at: $0)?.id }) == id
                else { return }
                let text: String
                switch result {
                case .success(let full): text = Self.previewText(of: full) ?? item.preview
                case .failure(let error):
                    text = item.preview
                    self.showError(error)
                }
                self.preview.show(item, text: text)
                self.showPasteLog(of: id)
                self.log.note("preview text \(id) \(text.prefix(80))")
            }
        }
    }
}
