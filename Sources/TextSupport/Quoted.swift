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

/// `text` with every control character but those in `kept` written as an escape, and cut after about
/// `limit` UTF-8 bytes.
public func escapedForTerminal(_ text: String, limit: Int = .max, keeping kept: Set<Unicode.Scalar> = []) -> String {
    var result = ""
    var bytes = 0
    for scalar in text.unicodeScalars {
        let piece: String
        switch scalar {
        case _ where kept.contains(scalar): piece = String(scalar)
        case "\n": piece = "\\n"
        case "\t": piece = "\\t"
        case "\r": piece = "\\r"
        case "\u{1B}": piece = "\\e"
        default:
            // C0, DEL, C1 and the bidirectional overrides can all rewrite what a terminal shows.
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value)
            piece = isControl ? "\\u{" + String(value, radix: 16) + "}" : String(scalar)
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
