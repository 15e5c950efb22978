/// Trimming as Foundation's `trimmingCharacters(in:)` does it with `.whitespaces` and `.whitespacesAndNewlines`,
/// which FoundationEssentials lacks.
extension StringProtocol {
    /// The text without the characters at either end for which `isTrimmed` holds.
    public func trimming(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = lastIndex(where: { !isTrimmed($0) })!  // some character is kept: `first` is one
        return String(self[first...last])
    }

    /// Without spaces and tabs at either end (`.whitespaces`: tab and the Unicode space separators); line breaks stay.
    public func trimmingWhitespace() -> String {
        trimming(where: { $0.unicodeScalars.allSatisfy(Self.isSpaceOrTab) })
    }

    /// Without white space or line breaks at either end (`.whitespacesAndNewlines`).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimming(where: \.isWhitespace)
    }

    private static func isSpaceOrTab(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
    }
}
