/// Comparisons that ignore case, without Foundation's `caseInsensitiveCompare` and `range(of:options:)` (and the ICU
/// behind them): both sides are lowercased with the standard library's full Unicode mapping.
extension StringProtocol {
    /// Whether the two texts are the same but for case: `"Firefox"` and `"firefox"`.
    public func isEqualIgnoringCase(_ other: some StringProtocol) -> Bool {
        lowercased() == other.lowercased()
    }

    /// Whether `needle` occurs in the text, ignoring case: `"GitHub"` contains `"hub"`.
    public func containsIgnoringCase(_ needle: some StringProtocol) -> Bool {
        needle.isEmpty || lowercased().contains(needle.lowercased())
    }
}
