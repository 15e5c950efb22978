import FoundationEssentials
import PasteboardHistory
import TextSupport

/// Draws the picker into a terminal of a given size: the prompt, the list, the preview and a key line. Every
/// frame is whole (each line written to the full width), so a resize or a stray write never leaves garbage. No
/// line ends with erase-to-end-of-line: on a line that fills the row, xterm erases the last character with it.
struct PickerScreen {
    var columns: Int
    var rows: Int
    /// False under `NO_COLOR`: no colours (reverse video still marks the selection).
    var usesColor: Bool

    /// Where the preview goes: beside the list on wide terminals, under it on narrow ones.
    struct Layout: Equatable {
        var listRows: Int
        var listWidth: Int
        /// The preview's first row and column (0-based), and its size.
        var previewRow: Int
        var previewColumn: Int
        var previewWidth: Int
        var previewHeight: Int
    }

    var layout: Layout {
        let body = max(1, rows - 2)  // the prompt above, the key line below
        if columns >= 100 {
            let listWidth = columns * 45 / 100
            return Layout(
                listRows: body, listWidth: listWidth, previewRow: 1, previewColumn: listWidth + 1,
                previewWidth: columns - listWidth - 1, previewHeight: body)
        }
        let previewHeight = body >= 12 ? body * 2 / 5 : 0
        let listRows = body - previewHeight - (previewHeight > 0 ? 1 : 0)
        return Layout(
            listRows: max(1, listRows), listWidth: columns, previewRow: 1 + listRows + 1, previewColumn: 0,
            previewWidth: columns, previewHeight: previewHeight)
    }

    private func style(_ code: String, _ text: String) -> String {
        usesColor ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }

    /// The whole frame, ready to write; `preview` is the text shown for the selected item.
    func frame(_ model: PickerModel, preview: [String]) -> String {
        let layout = layout
        var out = "\u{1B}[H"
        // The prompt: filter text, mode and how many matched.
        let count = "\(model.rows.count)\(model.isComplete && !model.isSearching ? "" : "+") · \(model.mode.rawValue)"
        let prompt = "> " + Self.clean(model.filter)
        let promptWidth = max(1, columns - DisplayWidth.of(count) - 1)
        out += style("1", DisplayWidth.fitted(prompt, to: promptWidth)) + " " + style("2", count) + "\r\n"

        var listLines: [String] = []
        for offset in 0..<layout.listRows {
            let index = model.top + offset
            guard model.rows.indices.contains(index) else {
                listLines.append(index == 0 && model.rows.isEmpty ? style("2", DisplayWidth.fitted(model.isSearching ? "  (searching…)" : "  (no items match)", to: layout.listWidth)) : String(repeating: " ", count: layout.listWidth))
                continue
            }
            let item = model.rows[index]
            let mark = model.marked.contains(item.id) ? "+" : " "
            let pin = item.isPinned ? "*" : " "
            let head = "\(mark)\(pin)\(String(item.id).leftPadded(to: 7)) \(Self.fitted(item.kind.rawValue, width: 5)) "
            let text = DisplayWidth.fitted(head + Self.clean(item.preview), to: layout.listWidth)
            listLines.append(index == model.selection ? "\u{1B}[7m" + text + "\u{1B}[0m" : text)
        }

        let previewLines = (0..<layout.previewHeight).map { row in
            DisplayWidth.fitted(row < preview.count ? preview[row] : "", to: layout.previewWidth)
        }
        if layout.previewColumn > 0 {
            for row in 0..<layout.listRows {
                out += listLines[row] + style("2", "│") + (row < previewLines.count ? previewLines[row] : "") + "\r\n"
            }
        } else {
            for line in listLines { out += line + "\r\n" }
            if layout.previewHeight > 0 {
                out += style("2", String(repeating: "─", count: columns)) + "\r\n"
                for line in previewLines { out += line + "\r\n" }
            }
        }
        let keys = model.message ?? "Enter copy · Alt-Enter text only · Tab mark · ^R mode · ^S pin · ^D delete · Esc quit"
        out += style("2", DisplayWidth.fitted(Self.clean(keys), to: columns))
        return out
    }

    /// The preview for `item`: a header, then its text wrapped (or what it is, for an image or data).
    func previewLines(for item: HistoryItem?, text: String?, width: Int, height: Int) -> [String] {
        guard let item, height > 0 else { return height > 0 ? ["Select an item to preview"] : [] }
        var header = "\(item.kind.rawValue) · \(Self.byteCount(item.size))"
        if let source = item.source { header += " · from \(Self.clean(source))" }
        header += " · \(Self.age(item.lastCopied))"
        if item.copyCount > 1 { header += " · \(item.copyCount)×" }
        var lines = [header, ""]
        if let text {
            let cleaned = Self.clean(text, keepingNewlines: true)
            lines += DisplayWidth.wrapped(cleaned, width: width, maxLines: height - 2)
        } else {
            lines.append(item.types.map(\.identifier).joined(separator: ", "))
        }
        return lines
    }

    // MARK: - Text for the terminal

    /// Text safe to draw: tabs as spaces, every control character escaped, so an item cannot move the cursor
    /// or retitle the terminal.
    /// `text` cut or padded with spaces to `width` characters (a column of ASCII labels).
    static func fitted(_ text: String, width: Int) -> String {
        let cut = text.prefix(width)
        return cut + String(repeating: " ", count: width - cut.count)
    }

    static func clean(_ text: String, keepingNewlines: Bool = false) -> String {
        let spaced = text.replacingEvery("\t", with: "    ")
        return escapedForTerminal(keepingNewlines ? spaced : spaced.replacingEvery("\n", with: " "), keeping: keepingNewlines ? ["\n"] : [])
    }

    static func byteCount(_ bytes: Int) -> String { ByteCountFormatting.string(bytes) }

    static func age(_ date: Date) -> String {
        let seconds = max(0, Int(Date().timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60)m ago"
        case ..<86400: return "\(seconds / 3600)h ago"
        default: return "\(seconds / 86400)d ago"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
