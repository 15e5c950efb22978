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
    private let textView = TextView()
    private let textScroller: ScrolledWindow
    private let picture = Picture()
    /// The item shown, nil for none.
    private(set) var itemID: Int64?

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
        root = Box(.vertical, spacing: 8, [placeholder, heading, textScroller, picture, details, pasteLog])
        root.addStyleClass("preview")
        root.setMargins(8)
        showNothing()
    }

    /// "Select an item to preview".
    func showNothing() {
        itemID = nil
        placeholder.isVisible = true
        for widget in [heading, textScroller, picture, details, pasteLog] as [Widget] { widget.isVisible = false }
        picture.setTexture(nil)
        textView.text = ""
    }

    /// Shows `item` with `text` (the first part of a long one).
    func show(_ item: HistoryItem, text: String) {
        showFrame(of: item)
        picture.isVisible = false
        picture.setTexture(nil)
        textScroller.isVisible = true
        textView.text = text
        textScroller.scrollToStart()
    }

    /// Shows image `item`; the picture follows with `show(texture:for:)` once decoded.
    func showImage(_ item: HistoryItem) {
        showFrame(of: item)
        textScroller.isVisible = false
        textView.text = ""
        picture.setTexture(nil)
        picture.isVisible = true
    }

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

    private func showFrame(of item: HistoryItem) {
        itemID = item.id
        placeholder.isVisible = false
        heading.isVisible = true
        details.isVisible = true
        heading.text = ItemFormatting.title(of: item)
        details.text = ItemFormatting.details(of: item)
    }
}
