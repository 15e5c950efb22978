import GtkSupport

/// The bar shown while items are marked (Ctrl+click, Shift+click, Shift+arrows, Ctrl+Space): how many, and what to
/// do with them: a paste stack (one item per paste, in the order marked), or one copy of their texts joined with a
/// separator the user types.
@MainActor
final class MarksBar {
    let root: Box
    let count = Label()
    let stackButton = Button(label: "Paste One by One")
    let separatorField = Entry(placeholder: "\\n")
    let joinButton = Button(label: "Copy Joined")
    let clearButton = Button(label: "Unmark All")

    /// The separator a new bar starts with: a line break, written as the CLI's `--joined` takes it.
    static let defaultSeparator = "\\n"

    init() {
        count.textAlignment = 0
        count.expandsHorizontally = true
        stackButton.tooltip = "Put the marked items on the clipboard one per paste, in the order marked (Enter)"
        joinButton.tooltip = "Copy the marked items' texts as one text, joined with the separator (Ctrl+Enter)"
        clearButton.tooltip = "Unmark every item (Escape)"
        separatorField.text = Self.defaultSeparator
        separatorField.setSizeRequest(width: 70)
        separatorField.tooltip = "Separator: \\n is a line break, \\t a tab"
        let joinLabel = Label("Join with")
        joinLabel.addStyleClass("dim-label")
        stackButton.addStyleClass("suggested-action")
        separatorField.setAccessibleLabel("Separator for joined copy")
        root = Box(.horizontal, spacing: 6, [count, stackButton, joinLabel, separatorField, joinButton, clearButton])
        root.addStyleClass("marks-bar")
        root.isVisible = false
    }

    /// Shows the bar for `marked` items, or hides it for none.
    func show(marked: Int) {
        root.isVisible = marked > 0
        count.text = marked == 1 ? "1 item marked" : "\(marked) items marked"
    }
}
