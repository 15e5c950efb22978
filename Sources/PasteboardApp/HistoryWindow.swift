import GtkSupport
import PasteboardHistory

/// The widgets of the "Pasteboard History" window, laid out; `HistoryController` gives them behaviour.
///
/// ```
///  [ text to copy …                  ] [Copy]
///  [ https://… to copy from a URL    ] [Copy from URL]
///  [ search …  ] [Text ▾] [All ▾]   [list/strip] [pin] [delete] [Clear History…]
///  (daemon / error banners)
///  history (strip of chips, or a list)  |  preview
///  status line
/// ```
@MainActor
final class HistoryWindow {
    static let title = "Pasteboard History"

    let window = Window(title: HistoryWindow.title, width: 980, height: 640)
    let copyField = Entry(placeholder: "Type or paste text to copy")
    let copyButton = Button(label: "_Copy")
    let urlField = Entry(placeholder: "https://… an image or page to copy")
    let urlButton = Button(label: "Copy from _URL")
    let searchField = SearchEntry(placeholder: "Search history (Ctrl+F)")
    let kindFilter = DropDown(choices: HistoryWindow.kindChoices.map(\.label))
    let searchMode = SearchModeSwitch()
    let layoutToggle = ToggleButton(icon: "view-list-symbolic", tooltip: "Show as a list (Ctrl+T)")
    let pinButton = Button(icon: "view-pin-symbolic", tooltip: "Pin or unpin (Ctrl+P)")
    let deleteButton = Button(icon: "user-trash-symbolic", tooltip: "Delete (Delete)")
    let askButton = Button(icon: "dialog-password-symbolic", tooltip: "Ask before paste, or stop asking (Ctrl+K)")
    let clearButton = Button(label: "Clear History…")
    let settingsButton = Button(icon: "preferences-system-symbolic", tooltip: "Settings (Ctrl+,)")
    let daemonBanner = Label()
    let errorBanner = Label()
    let errorBox: Box
    let dismissError = Button(icon: "window-close-symbolic", tooltip: "Dismiss")
    let listView: ListView
    let listScroller: ScrolledWindow
    let marksBar = MarksBar()
    let preview = PreviewPane()
    let overlay = DownloadOverlay()
    let status = Label()
    let split: Paned
    /// Told where the split settled after a layout change: its position and the paned's length.
    var onSplitSettled: (@MainActor (Int, Int) -> Void)?

    /// The type filter's entries, in order.
    static let kindChoices: [(label: String, kinds: Set<HistoryItem.Kind>?)] = [
        ("All types", nil), ("Text", [.text, .html]), ("Images", [.image]), ("Links", [.url]), ("Files", [.file]),
    ]

    init(model: VirtualList, factory: ListFactory) {
        listView = ListView(model: model, factory: factory)
        listView.activatesOnSingleClick = true
        listScroller = ScrolledWindow(listView)
        listScroller.expandsHorizontally = true
        listScroller.expandsVertically = true
        copyField.expandsHorizontally = true
        urlField.expandsHorizontally = true
        copyButton.addStyleClass("suggested-action")
        copyButton.isSensitive = false
        urlButton.isSensitive = false
        searchField.expandsHorizontally = true
        // Enough of the placeholder to say what the field is, however narrow the window.
        searchField.setSizeRequest(width: 150)
        daemonBanner.addStyleClass("banner")
        daemonBanner.textAlignment = 0
        daemonBanner.wrap()
        daemonBanner.isVisible = false
        errorBanner.textAlignment = 0
        errorBanner.wrap()
        errorBanner.expandsHorizontally = true
        errorBanner.isSelectable = true
        dismissError.makeFlat()
        errorBox = Box(.horizontal, spacing: 6, [errorBanner, dismissError])
        errorBox.addStyleClass("banner")
        errorBox.addStyleClass("error")
        errorBox.isVisible = false
        status.addStyleClass("dim-label")
        status.textAlignment = 0
        split = Paned(.vertical, start: listScroller, end: preview.root)
        split.expandsVertically = true
        // Names for screen readers where GTK would give a class name or none (checked by Tests/Apps/a11y.py).
        copyField.setAccessibleLabel("Text to copy")
        urlField.setAccessibleLabel("Web address to copy from")
        searchField.setAccessibleLabel("Search history")
        kindFilter.setAccessibleLabel("Show types")
        kindFilter.setAccessibleLabel("Show types", ofInner: .toggleButton)
        kindFilter.setAccessibleLabel("Show types", ofInner: .listItem)
        listScroller.setAccessibleLabel("History")
        listView.setAccessibleLabel("History")
        listScroller.setAccessibleLabel("History", ofInner: .scrollbar)
        split.setAccessibleLabel("History and preview")
        daemonBanner.setAccessibleLabel("Daemon status")
        errorBanner.setAccessibleLabel("Error")
        status.setAccessibleLabel("Status")

        let copyRow = Box(.horizontal, spacing: 6, [copyField, copyButton])
        let urlRow = Box(.horizontal, spacing: 6, [urlField, urlButton])
        let spacer = Box(.horizontal)
        spacer.expandsHorizontally = true
        let tools = Box(
            .horizontal, spacing: 6,
            [
                searchField, searchMode.dropDown, kindFilter, spacer, layoutToggle, pinButton, askButton, deleteButton,
                clearButton, settingsButton,
            ])
        // The marks bar goes below the history, so rows do not move under the pointer as it comes and goes.
        let content = Box(
            .vertical, spacing: 8,
            [copyRow, urlRow, tools, searchMode.message, daemonBanner, errorBox, split, marksBar.root, status])
        content.setMargins(10)
        let layered = Overlay(content)
        layered.addOverlay(overlay.root)
        window.setChild(layered)
        window.setFocus(copyField)
    }

    /// Lays the history out as a strip of chips above the preview, or as a list beside it.
    func apply(_ layout: AppState.Layout) {
        switch layout {
        case .strip:
            split.orientation = .vertical
            listView.orientation = .horizontal
            listView.addStyleClass("strip")
            listScroller.setScrolling(horizontal: true, vertical: false)
            listScroller.setSizeRequest(height: 132)
            setSplit(resizing: false) { _ in 140 }
        case .list:
            split.orientation = .horizontal
            listView.orientation = .vertical
            listView.removeStyleClass("strip")
            listScroller.setScrolling(horizontal: false, vertical: true)
            listScroller.setSizeRequest(height: -1)
            // The list takes two fifths of the width and the preview the rest, as the window grows or shrinks (a
            // fixed list width left a narrow window's preview 80–190 px).
            setSplit(resizing: true) { width in max(240, width * 2 / 5) }
        }
        layoutToggle.isActive = layout == .list
        layoutToggle.tooltip = layout == .list ? "Show as a strip (Ctrl+T)" : "Show as a list (Ctrl+T)"
    }

    /// Moves the split once the new orientation is laid out (set at once, GTK keeps the old side's size): `position`
    /// from the paned's length along its new orientation (the window's default width before it is laid out). With
    /// `resizing`, both sides then grow and shrink with the window; only after a frame in the new orientation, since
    /// GTK scales a set position by the new length over the last one, which was the other orientation's.
    private func setSplit(resizing: Bool, _ position: @escaping @MainActor (Int) -> Int) {
        split.resizesStart = false
        let place: @MainActor () -> Void = { [split] in
            let length = split.length
            split.position = position(length > 0 ? length : 960)
        }
        place()
        MainLoop.after(0) { [window, split] in
            place()
            window.onNextFrame {
                place()
                if resizing { MainLoop.after(0) { split.resizesStart = true } }
                // Where it settled, once laid out (for tests).
                MainLoop.after(0.2) { [weak self] in self?.onSplitSettled?(split.position, split.length) }
            }
        }
    }
}
