extension StringProtocol {
    /// The text with every occurrence of `target` replaced by `replacement`, matching Unicode scalars literally (as
    /// Foundation's `replacingOccurrences(of:with:)` does for the plain texts pb replaces): `"\n"` is found inside a
    /// `"\r\n"`, which the standard library's `replacing(_:with:)`, matching whole characters, would skip.
    public func replacingEvery(_ target: String, with replacement: String) -> String {
        let pattern = Array(target.unicodeScalars)
        guard !pattern.isEmpty else { return String(self) }
        let scalars = Array(unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == pattern[0], index + pattern.count <= scalars.count,
                scalars[index..<index + pattern.count].elementsEqual(pattern)
            {
                result.append(contentsOf: replacement.unicodeScalars)
                index += pattern.count
            } else {
                result.append(scalars[index])
                index += 1
            }
        }
        return String(result)
    }
}
