/// An argument as an error message shows it: in single quotes, control characters escaped (`\e`, `\n`,
/// `\u{7f}`), and cut to about 200 bytes with an ellipsis, so that a hostile or mistaken argument can
/// neither flood the terminal nor send it escape sequences.
///
/// ```swift
/// throw UsageError("Unknown option \(quoted(argument)).")   // Unknown option '--colour\e[31m'.
/// ```
public func quoted(_ value: some CustomStringConvertible, limit: Int = 200) -> String {
    "'" + escapedForTerminal(value.description, limit: limit) + "'"
}

/// `text` with every character that can change what a terminal or a launcher shows written as an escape (but those
/// in `kept`), and cut after about `limit` UTF-8 bytes: the one escaping every listing and `pb show` use.
///
/// Escaped: C0 controls, DEL and C1 controls (U+0080–U+009F: U+009B is a one-byte CSI, U+009D a one-byte OSC on
/// terminals that take 8-bit controls), the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069), which reorder what follows them, and the zero-width characters (U+200B–U+200F, U+2060, U+FEFF),
/// which hide text or make two different texts look alike. A zero-width joiner between two emoji stays: it is how
/// one emoji is built of several (a family, the rainbow flag).
///
/// ```swift
/// escapedForTerminal("evil\u{202E}txt.exe")   // evil\u{202e}txt.exe
/// ```
public func escapedForTerminal(_ text: String, limit: Int = .max, keeping kept: Set<Unicode.Scalar> = []) -> String {
    var result = ""
    var bytes = 0
    let scalars = text.unicodeScalars
    var previous: Unicode.Scalar?
    var index = scalars.startIndex
    while index < scalars.endIndex {
        let scalar = scalars[index]
        let next = scalars.index(after: index)
        defer {
            previous = scalar
            index = next
        }
        let piece: String
        switch scalar {
        case _ where kept.contains(scalar): piece = String(scalar)
        case "\n": piece = "\\n"
        case "\t": piece = "\\t"
        case "\r": piece = "\\r"
        case "\u{1B}": piece = "\\e"
        case "\u{200D}" where next < scalars.endIndex && previous.map({ joinsEmoji($0, scalars[next]) }) == true:
            piece = String(scalar)
        default:
            piece = isHiddenControl(scalar) ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
        }
        if bytes + piece.utf8.count > limit {
            result += "…"
            break
        }
        result += piece
        bytes += piece.utf8.count
    }
    return result
}

/// Whether `scalar` is one `escapedForTerminal` writes as an escape (see there).
public func isHiddenControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F: return true  // C0, DEL, C1
    case 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional embeddings, overrides, isolates
    case 0x200B...0x200F, 0x2060, 0xFEFF: return true  // zero-width characters and marks
    default: return false
    }
}

/// Whether a zero-width joiner between `before` and `after` builds one emoji of two (`before` may be the emoji's
/// variation selector).
private func joinsEmoji(_ before: Unicode.Scalar, _ after: Unicode.Scalar) -> Bool {
    func isEmoji(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x80 && scalar.properties.isEmoji }
    return (isEmoji(before) || before == "\u{FE0F}") && isEmoji(after)
}
