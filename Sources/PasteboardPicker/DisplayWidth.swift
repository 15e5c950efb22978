/// How many terminal cells text takes: East Asian wide characters and emoji take two, combining marks none.
/// An approximation of `wcwidth` that needs no locale.
enum DisplayWidth {
    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return value < 0x20 || (0x7F..<0xA0).contains(value) ? 0 : 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    static func of(_ text: some StringProtocol) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    /// `text` cut to at most `width` cells (with `…` when cut), then padded with spaces to exactly `width`.
    static func fitted(_ text: some StringProtocol, to width: Int) -> String {
        guard width > 0 else { return "" }
        var out = ""
        var used = 0
        let total = of(text)
        let budget = total > width ? width - 1 : width
        for scalar in text.unicodeScalars {
            let cells = of(scalar)
            if used + cells > budget { break }
            out.unicodeScalars.append(scalar)
            used += cells
        }
        if total > width {
            out += "…"
            used += 1
        }
        return out + String(repeating: " ", count: max(0, width - used))
    }

    /// `text` broken into lines of at most `width` cells (hard breaks kept, long lines wrapped).
    static func wrapped(_ text: String, width: Int, maxLines: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            for scalar in paragraph.unicodeScalars {
                let cells = of(scalar)
                if used + cells > width {
                    lines.append(line)
                    if lines.count >= maxLines { return lines }
                    line = ""
                    used = 0
                }
                line.unicodeScalars.append(scalar)
                used += cells
            }
            lines.append(line)
            if lines.count >= maxLines { return lines }
        }
        return lines
    }
}
