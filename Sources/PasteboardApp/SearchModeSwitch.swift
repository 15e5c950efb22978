import GtkSupport
import PasteboardHistory

/// The search field's mode switch: substring, fuzzy or regex, as `pb pick` has them (Ctrl+R cycles through them
/// there and here), and the line under the field that says what is wrong with a pattern that is not one.
///
/// A pattern is checked here, on the main thread, before any search starts (compiling one is bounded: the regex
/// engine refuses sources above 4,096 bytes and programs above its cost limit), so a bad one shows its message
/// and the list stays as it was; it never reaches the store.
@MainActor
final class SearchModeSwitch {
    /// The modes, in the order of the list and of Ctrl+R.
    static let modes: [(label: String, mode: HistoryFilter.Mode)] = [
        ("Text", .substring), ("Fuzzy", .fuzzy), ("Regex", .regex),
    ]

    let dropDown = DropDown(choices: SearchModeSwitch.modes.map(\.label))
    /// What is wrong with the pattern typed, hidden while there is nothing wrong.
    let message = Label()

    init() {
        dropDown.tooltip = "Search mode: text, fuzzy or regular expression (Ctrl+R)"
        dropDown.setAccessibleLabel("Search mode")
        dropDown.setAccessibleLabel("Search mode", ofInner: .toggleButton)
        dropDown.setAccessibleLabel("Search mode", ofInner: .listItem)
        message.addStyleClass("error")
        message.textAlignment = 0
        message.wrap()
        message.isSelectable = true
        message.setAccessibleLabel("Search problem")
        message.isVisible = false
    }

    /// The mode chosen.
    var mode: HistoryFilter.Mode {
        get {
            let index = dropDown.selectedIndex
            return Self.modes.indices.contains(index) ? Self.modes[index].mode : .substring
        }
        set { dropDown.selectedIndex = Self.modes.firstIndex { $0.mode == newValue } ?? 0 }
    }

    /// Chooses the next mode (Ctrl+R); the drop-down then says so (`onSelect`).
    func cycle() {
        dropDown.selectedIndex = (dropDown.selectedIndex + 1) % Self.modes.count
    }

    /// Whether `text` can be searched for in the chosen mode; if not, the message says why (and goes once it can).
    func check(_ text: String) -> Bool {
        guard mode == .regex, !text.isEmpty else {
            message.isVisible = false
            return true
        }
        do {
            _ = try SearchMatcher(text, mode: .regex)
            message.isVisible = false
            return true
        } catch {
            message.text = error.message
            message.isVisible = true
            return false
        }
    }
}

/// The search the rows shown are the matches of, for highlighting in them (one per list: the window's, the popup's).
@MainActor
final class SearchHighlighter {
    /// Nil when the rows are not a search's.
    private(set) var matcher: SearchMatcher?

    /// The rows are now those of `text` in `mode`.
    func show(_ text: String, mode: HistoryFilter.Mode) {
        if text.isEmpty {
            matcher = nil
        } else if matcher?.text != text || matcher?.mode != mode {
            matcher = try? SearchMatcher(text, mode: mode)  // a bad pattern lists nothing: nothing to highlight
        }
    }

    /// A row title with its matches in bold, as Pango markup (every piece of the text escaped); nil when nothing
    /// in it matches.
    static func markup(_ text: String, matcher: SearchMatcher?) -> String? {
        guard let matcher else { return nil }
        let ranges = matcher.ranges(in: text)
        guard !ranges.isEmpty else { return nil }
        var markup = ""
        var from = text.startIndex
        for range in ranges {
            markup += Label.escapeMarkup(String(text.unicodeScalars[from..<range.lowerBound]))
            markup += "<b>" + Label.escapeMarkup(String(text.unicodeScalars[range])) + "</b>"
            from = range.upperBound
        }
        return markup + Label.escapeMarkup(String(text.unicodeScalars[from...]))
    }
}
