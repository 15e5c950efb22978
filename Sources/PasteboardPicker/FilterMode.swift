/// How the typed text filters the history.
public enum FilterMode: String, Sendable, CaseIterable {
    /// The text appears in the item, ignoring case (the store's trigram index).
    case substring
    /// The text's characters appear in the item in order, ignoring case (`gh` finds "GitHub").
    case fuzzy
    /// The text is a regular expression, run by the store's bounded, linear-time engine.
    case regex

    /// The next mode, for the key that cycles through them.
    var next: FilterMode {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}
