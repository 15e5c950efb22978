import GtkSupport

/// The "Keyboard Shortcuts" window's contents (Ctrl+?): every key the history window and the popup answer.
enum ShortcutsHelp {
    static let groups: [ShortcutsWindow.Group] = [
        .init(
            "History",
            [
                ("Return", "Copy the selected item with every representation"),
                ("<Shift>Return", "Copy its text alone (paste as plain text)"),
                ("<Control>p", "Pin or unpin the selected item"),
                ("Delete", "Delete the selected item"),
                ("<Control>k", "Ask before pasting it, or stop asking"),
                ("Home End", "The newest item, the oldest"),
                ("<Control>e", "Edit a copy of the selected text; Ctrl+Enter copies it as a new item, Esc cancels"),
            ]),
        .init(
            "Several items",
            [
                ("<Control>space", "Mark or unmark the selected item (also Ctrl+click)"),
                ("<Shift>Left <Shift>Right", "Mark as you move (Shift+Up and Shift+Down in the list; also Shift+click)"),
                ("Return", "With marks: paste them one by one, in the order marked"),
                ("<Control>Return", "With marks: copy their texts joined with the separator"),
                ("Escape", "Unmark every item"),
            ]),
        .init(
            "Window",
            [
                ("<Control>f", "Search the history"),
                ("<Control>r", "Search as text, fuzzy or regex (accents and case are ignored)"),
                ("<Control>l", "Copy from a web address"),
                ("<Control>t", "Show as a strip or as a list"),
                ("<Control>question", "Keyboard shortcuts"),
                ("<Control>comma", "Settings"),
                ("<Control>w", "Close the window"),
            ]),
        .init(
            "Popup",
            [
                ("Return", "Copy (and paste, with --paste); with marks, a paste stack"),
                ("<Shift>Return", "Copy the text alone"),
                ("<Control>space", "Mark or unmark"),
                ("<Control>Return", "Copy the marked items joined by line breaks"),
                ("Escape", "Close"),
            ]),
    ]

    /// The same, as text for `--help`: "KEYS", then each group and its keys.
    static var text: String {
        var lines = ["KEYS (Ctrl+? in the window shows them too)"]
        for group in groups {
            lines.append("  \(group.title):")
            for shortcut in group.shortcuts {
                let keys = label(of: shortcut.accelerator)
                lines.append("    " + keys.padding(toLength: max(keys.count, 24), withPad: " ", startingAt: 0) + " " + shortcut.title)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// "<Control><Shift>Return" as a person writes it, "Ctrl+Shift+Enter"; several accelerators (space-separated)
    /// joined with commas.
    static func label(of accelerators: String) -> String {
        accelerators.split(separator: " ").map { accelerator in
            var rest = Substring(accelerator)
            var parts: [String] = []
            while rest.hasPrefix("<"), let end = rest.firstIndex(of: ">") {
                let modifier = rest[rest.index(after: rest.startIndex)..<end]
                parts.append(modifier == "Control" ? "Ctrl" : String(modifier))
                rest = rest[rest.index(after: end)...]
            }
            let names = ["Return": "Enter", "space": "Space", "question": "?", "comma": ",", "Escape": "Esc"]
            parts.append(names[String(rest)] ?? (rest.count == 1 ? rest.uppercased() : String(rest)))
            return parts.joined(separator: "+")
        }.joined(separator: ", ")
    }
}
