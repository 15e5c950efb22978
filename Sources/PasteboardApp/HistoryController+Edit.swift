import GtkSupport
import PasteboardHistory
import PasteboardModel

/// Edit before paste (issue 26, item 7): Ctrl+E (or the preview's pencil) makes a text item's whole text editable in
/// the preview; Ctrl+Enter (or "Copy Edited") copies the result as a new item, on the clipboard; the original stays.
/// Escape or "Cancel" stops editing.
extension HistoryController {
    /// The longest text edited here: a bigger one is for an editor (`pb show --raw ID | $EDITOR`).
    static let editLimit = 1 << 20

    func connectEditing() {
        preview.editButton.onClick { [weak self] in self?.beginEditing() }
        preview.copyEditedButton.onClick { [weak self] in self?.copyEdited() }
        preview.cancelEditButton.onClick { [weak self] in self?.cancelEditing() }
        // Before the text view's own keys: it would take Ctrl+Enter as a line break.
        preview.textView.addShortcut("<Control>Return", capturing: true) { [weak self] in
            guard let self, self.preview.isEditing else { return false }
            self.copyEdited()
            return true
        }
        ui.window.addShortcut("<Control>e", scope: .global) { [weak self] in
            guard let self, !self.preview.isEditing else { return false }
            self.beginEditing()
            return true
        }
    }

    /// Starts editing the selected item's whole text, if it has text and is not too long for a text field.
    func beginEditing() {
        guard let id = preview.itemID else { return }
        let item: PasteboardItem
        do {
            item = try store.pasteboardItem(id: id)
        } catch {
            return showError(AppError(error.message))
        }
        guard let text = item.string else {
            return showError(AppError("Item \(id) has no text to edit."))
        }
        guard text.utf8.count <= Self.editLimit else {
            return showError(
                AppError(
                    "Item \(id) is too long to edit here (\(text.utf8.count / 1024) KiB; at most 1 MiB): use "
                        + "'pb show --raw \(id)' with an editor."))
        }
        preview.beginEditing(text)
        log.note("editing \(id)")
    }

    func cancelEditing() {
        guard preview.isEditing else { return }
        preview.endEditing()
        log.note("editing cancelled")
        selectionChanged(force: true)  // the original text again
    }

    /// Copies the edited text as a new item (the original stays), and stops editing.
    func copyEdited() {
        guard preview.isEditing else { return }
        let text = preview.editedText
        guard !text.isEmpty else { return showError(AppError("The edited text is empty: nothing to copy.")) }
        preview.endEditing()
        worker.copy(PasteboardItem(string: text), source: Self.source) { [weak self] result in
            MainLoop.post {
                guard let self else { return }
                switch result {
                case .success(.recorded(let id)):
                    self.clearError()
                    self.log.note("copied edited \(id)")
                    self.refresh(after: nil)
                case .success(.unrecorded(let reason)):
                    self.clearError()
                    self.showNotice("Copied, but not recorded in the history: \(reason)")
                case .failure(let error):
                    self.showError(error)
                }
            }
        }
    }
}
