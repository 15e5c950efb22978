import GtkSupport
import PasteboardControl
import PasteboardHistory

/// Marking several items (issue 26, the paste stack): Ctrl+click or Ctrl+Space marks or unmarks one, Shift+click
/// marks every row from the selected one to the clicked one, Shift+arrows mark as they move. Enter then puts the
/// marked items on the clipboard one per paste, in the order marked (through the daemon); Ctrl+Enter copies their
/// texts joined with the separator in the marks bar; Escape unmarks them all.
extension HistoryController {
    func connectMarks() {
        ui.listView.onModifiedClick { [weak self] position, extend, toggle in
            guard let self else { return }
            if extend && !toggle {
                self.markRange(to: position)
            } else {
                self.toggleMark(at: position)
            }
        }
        // Before GTK's own: Enter activates the focused row, which with marks is not what the user asked for.
        ui.listView.addShortcut("Return", capturing: true) { [weak self] in
            guard let self, !self.marks.isEmpty else { return false }
            self.pasteMarkedOneByOne()
            return true
        }
        ui.window.addShortcut("<Control>Return", scope: .global) { [weak self] in
            guard let self else { return false }
            if self.preview.isEditing {
                self.copyEdited()
                return true
            }
            guard !self.marks.isEmpty else { return false }
            self.copyMarkedJoined()
            return true
        }
        ui.listView.addShortcut("<Control>space", capturing: true) { [weak self] in
            guard let self, let position = self.ui.listView.selectedPosition else { return false }
            self.toggleMark(at: position)
            return true
        }
        for (key, delta) in [("Up", -1), ("Down", 1), ("Left", -1), ("Right", 1)] {
            ui.listView.addShortcut("<Shift>\(key)", capturing: true) { [weak self] in
                guard let self else { return false }
                let vertical = key == "Up" || key == "Down"
                guard vertical == (self.state.layout == .list) else { return false }
                self.markStep(by: delta)
                return true
            }
        }
        ui.marksBar.stackButton.onClick { [weak self] in self?.pasteMarkedOneByOne() }
        ui.marksBar.joinButton.onClick { [weak self] in self?.copyMarkedJoined() }
        ui.marksBar.separatorField.onActivate { [weak self] in self?.copyMarkedJoined() }
        ui.marksBar.clearButton.onClick { [weak self] in self?.clearMarks() }
    }

    /// Marks or unmarks the item at `position`, and selects it.
    func toggleMark(at position: Int) {
        guard let item = rows.item(at: position) else { return }
        marks.toggle(item.id)
        markAnchor = position
        select(position)
        marksChanged()
    }

    /// Marks every row from the anchor (the last row marked, else the selected one) to `position`, in that order.
    func markRange(to position: Int) {
        let anchor = markAnchor ?? ui.listView.selectedPosition ?? position
        let step = position >= anchor ? 1 : -1
        for index in stride(from: anchor, through: position, by: step) {
            if let item = rows.item(at: index) { marks.mark(item.id) }
        }
        select(position)
        marksChanged()
    }

    /// Shift+arrow: marks the selected row, moves one row, and marks that one too.
    func markStep(by delta: Int) {
        guard let position = ui.listView.selectedPosition, let item = rows.item(at: position) else { return }
        marks.mark(item.id)
        let next = position + delta
        if next >= 0, next < rows.count, let nextItem = rows.item(at: next) {
            marks.mark(nextItem.id)
            markAnchor = next
            ui.listView.focusRow(at: next, focus: true)
        }
        marksChanged()
    }

    func clearMarks() {
        guard !marks.isEmpty else { return }
        marks.removeAll()
        markAnchor = nil
        marksChanged()
    }

    private func select(_ position: Int) {
        if ui.listView.selectedPosition != position { ui.listView.focusRow(at: position, focus: true) }
    }

    /// Shows the marks on the rows laid out, and the bar.
    func marksChanged() {
        for view in rowViews.views {
            view.setMark(view.itemID.flatMap(marks.number(of:)))
        }
        ui.marksBar.show(marked: marks.count)
        log.note("marked \(marks.ids.map(String.init).joined(separator: ","))")
    }

    /// Items were deleted: they are no longer marked.
    func unmark(_ ids: [Int64]) {
        let before = marks.count
        marks.unmark(ids)
        if marks.count != before { marksChanged() }
    }

    /// A paste stack of the marked items, in the order marked: each paste gets the next one.
    func pasteMarkedOneByOne() {
        let ids = marks.ids
        guard !ids.isEmpty else { return }
        worker.stack(ids: ids) { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success:
                    self.clearError()
                    self.clearMarks()
                    self.showNotice(
                        ids.count == 1
                            ? "On the clipboard." : "Paste stack: \(ids.count) items, one per paste, in the order marked.")
                    self.log.note("stacked \(ids.map(String.init).joined(separator: ","))")
                case .failure(let error):
                    self.showError(error)
                }
            }
        }
    }

    /// The marked items' texts, in the order marked, joined with the bar's separator, copied as one new item.
    func copyMarkedJoined() {
        let ids = marks.ids
        guard !ids.isEmpty else { return }
        let separator = HistoryStore.unescapedSeparator(ui.marksBar.separatorField.text)
        worker.copyJoined(ids: ids, separator: separator, source: Self.source) { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success:
                    self.clearError()
                    self.clearMarks()
                    self.showNotice("Copied \(ids.count) items joined.")
                    self.log.note("joined \(ids.map(String.init).joined(separator: ","))")
                    self.refresh(after: nil)
                case .failure(let error):
                    self.showError(error)
                }
            }
        }
    }

    /// A `paste-stack` event: the daemon moved to the next item, or the stack ended.
    func pasteStackMoved(_ event: ControlEvent) {
        guard let remaining = event.remaining else { return }
        showNotice(remaining == 0 ? "Paste stack: the last item is on the clipboard." : "Paste stack: \(remaining) more to paste.")
    }
}
