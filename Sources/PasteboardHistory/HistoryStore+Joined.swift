public import PasteboardModel

extension HistoryStore {
    /// The texts of items `ids`, in the order given, joined with `separator`, as one new text item (what `pb
    /// restore --joined`, `pb pick`'s marks and the app's "Copy Joined" copy). Refused, before anything changes,
    /// when an item has no text.
    public func joinedText(of ids: [Int64], separator: String) throws(HistoryError) -> PasteboardItem {
        var texts: [String] = []
        for id in ids {
            guard let text = try pasteboardItem(id: id).string else {
                throw HistoryError(.invalidInput, "Item \(id) has no text to join; nothing was copied.", itemID: id)
            }
            texts.append(text)
        }
        return PasteboardItem(string: texts.joined(separator: separator))
    }

    /// A separator as typed: `\n` is a line break, `\t` a tab, and a backslash before anything else is left out.
    public static func unescapedSeparator(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }
}
