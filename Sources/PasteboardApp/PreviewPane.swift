import GtkSupport
import PasteboardHistory

/// The selected item, large: its text or its image scaled to fit, with type, size, source, time and copy count.
@MainActor
final class PreviewPane {
    let root: Box
    private let placeholder = Label("Select an item to preview")
    private let heading = Label()
    private let details = Label()
    /// Who pasted the item, and when.
    private let pasteLog = Label()
    /// An image's words, as the daemon's recognizer read them (see HistoryStore+RecognizedText.swift).
    private let recognized = Label()
    let textView = TextView()
    private let textScroller: ScrolledWindow
    private let picture = Picture()
    /// The item shown, nil for none.
    private(set) var itemID: Int64?
    /// Edit before paste: "Edit" makes the text editable; "Copy Edited" copies it as a new item, "Cancel" goes back.
    let editButton = Button(icon: "document-edit-symbolic", tooltip: "Edit a copy of this text (Ctrl+E)")
    let copyEditedButton = Button(label: "Copy _Edited")
    let cancelEditButton = Button(label: "Cancel")
    private let editBar: Box
    /// Whether the text is being edited.
    private(set) var isEditing = false

    init() {
        textScroller = ScrolledWindow(textView)
        textScroller.expandsVertically = true
        textScroller.expandsHorizontally = true
        textView.addStyleClass("preview-text")
        textView.setAccessibleLabel("Preview")
        textScroller.setAccessibleLabel("Preview", ofInner: .scrollbar)
        picture.setAccessibleLabel("Preview picture")
        picture.expandsVertically = true
        picture.expandsHorizontally = true
        picture.setSizeRequest(width: 120, height: 120)
        heading.addStyleClass("preview-heading")
        heading.textAlignment = 0
        heading.ellipsizeEnd()
        details.addStyleClass("dim-label")
        details.textAlignment = 0
        details.wrap()
        details.isSelectable = true
        pasteLog.addStyleClass("dim-label")
        pasteLog.textAlignment = 0
        pasteLog.wrap()
        placeholder.addStyleClass("dim-label")
        placeholder.addStyleClass("preview-placeholder")
        placeholder.expandsVertically = true
        placeholder.expandsHorizontally = true
        copyEditedButton.addStyleClass("suggested-action")
        copyEditedButton.tooltip = "Copy the edited text as a new item; the original stays (Ctrl+Enter)"
        cancelEditButton.tooltip = "Stop editing; nothing is copied (Escape)"
        let editHint = Label("Editing a copy: the original item stays as it is.")
        editHint.addStyleClass("dim-label")
        editHint.expandsHorizontally = true
        editHint.textAlignment = 0
        editBar = Box(.horizontal, spacing: 6, [editHint, cancelEditButton, copyEditedButton])
        editBar.isVisible = false
        heading.expandsHorizontally = true
        let header = Box(.horizontal, spacing: 6, [heading, editButton])
        recognized.textAlignment = 0
        recognized.wrap()
        recognized.isSelectable = true
        recognized.setAccessibleLabel("Words in the picture")
        root = Box(
            .vertical, spacing: 8, [placeholder, header, textScroller, editBar, picture, recognized, details, pasteLog])
        root.addStyleClass("preview")
        root.setMargins(8)
        showNothing()
    }

    /// "Select an item to preview".
    func showNothing() {
        itemID = nil
        placeholder.isVisible = true
        endEditing()
        for widget in [heading, editButton, textScroller, picture, recognized, details, pasteLog] as [Widget] {
            widget.isVisible = false
        }
        picture.setTexture(nil)
        textView.text = ""
    }

    /// Shows `item` with `text` (the first part of a long one).
    func show(_ item: HistoryItem, text: String) {
        endEditing()
        showFrame(of: item)
        editButton.isVisible = true
        picture.isVisible = false
        picture.setTexture(nil)
        textScroller.isVisible = true
        recognized.isVisible = false
        textView.text = text
        textScroller.scrollToStart()
    }

    /// Shows image `item`; the picture follows with `show(texture:for:)` once decoded.
    func showImage(_ item: HistoryItem) {
        endEditing()
        showFrame(of: item)
        editButton.isVisible = false
        textScroller.isVisible = false
        textView.text = ""
        picture.setTexture(nil)
        picture.isVisible = true
        recognized.isVisible = false
    }

    /// The words read in image `id` (nil or empty: none yet, or none in it), with the search's matches in bold, if it
    /// is still the one shown.
    func showRecognizedText(_ text: String?, for id: Int64, matcher: SearchMatcher?) {
        guard itemID == id, let text, !text.isEmpty else { return }
        let shown = text.count > Self.recognizedLimit ? String(text.prefix(Self.recognizedLimit)) + "…" : text
        let body = SearchHighlighter.markup(shown, matcher: matcher) ?? Label.escapeMarkup(shown)
        recognized.setMarkup("<b>Words in the picture:</b> " + body)
        recognized.isVisible = true
    }

    /// Characters of an image's words the preview shows, at most.
    static let recognizedLimit = 2_000

    /// The decoded picture of item `id`, if it is still the one shown.
    func show(texture: Texture, for id: Int64) {
        guard itemID == id else { return }
        picture.setTexture(texture)
    }

    /// Item `id`'s paste log, if it is still the one shown.
    func showPasteLog(_ records: [PasteRecord], for id: Int64) {
        guard itemID == id else { return }
        pasteLog.text = ItemFormatting.pasteLog(records)
        pasteLog.isVisible = !records.isEmpty
    }

    /// Makes the shown text, replaced by `text` (the whole of it), editable, with the cursor in it.
    func beginEditing(_ text: String) {
        isEditing = true
        textView.text = text
        textView.isEditable = true
        editBar.isVisible = true
        editButton.isVisible = false
        _ = textView.grabFocus()
    }

    /// The text as edited.
    var editedText: String { textView.text }

    /// Back to reading (the text stays as edited until another item is shown).
    func endEditing() {
        guard isEditing else { return }
        isEditing = false
        textView.isEditable = false
        editBar.isVisible = false
        editButton.isVisible = itemID != nil && textScroller.isVisible
    }

    private func showFrame(of item: HistoryItem) {
        itemID = item.id
        placeholder.isVisible = false
        heading.isVisible = true
        details.isVisible = true
        heading.text = ItemFormatting.title(of: item)
        details.text = ItemFormatting.details(of: item)
    }
}
