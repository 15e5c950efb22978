import ArgumentParsing
import FoundationEssentials
import PasteboardHistory
import PasteboardModel
import TextSupport

/// How item lists are printed: a table for people, dmenu lines for pickers, JSON for programs. Every preview goes
/// through `escapedForTerminal`, as `pb show` and `pb pick` do: a listing reaches a terminal or a launcher, and an
/// item's text must not be able to drive either (C1 controls, bidirectional overrides, zero-width characters).
enum ItemFormat: String {
    case table, dmenu, json

    static func from(json: Bool, format: String?) throws -> ItemFormat {
        if json { return .json }
        guard let format else { return .table }
        guard let value = ItemFormat(rawValue: format) else {
            throw CommandUsageError("Unknown format \(quoted(format)). Use table, dmenu or json.")
        }
        return value
    }

    func write(_ items: [HistoryItem], to output: Output, now: Date = Date()) {
        switch self {
        case .dmenu:
            for item in items { output.line("\(item.id)\t\(escapedForTerminal(item.preview))") }
        case .json:
            output.write("[")
            for (index, item) in items.enumerated() {
                output.write(index == 0 ? "\n  " : ",\n  ")
                output.write(JSONText.object(ItemFormat.jsonFields(item)))
            }
            output.line(items.isEmpty ? "]" : "\n]")
        case .table:
            for item in items {
                let pin = item.isPinned ? "*" : " "
                let id = String(item.id).leftPadded(to: 6)
                let kind = item.kind.rawValue.padded(to: 5)
                let age = Age.short(since: item.lastCopied, now: now).leftPadded(to: 4)
                output.line("\(id)\(pin) \(kind) \(age)  \(escapedForTerminal(String(item.preview.prefix(100))))")
            }
        }
    }

    static func jsonFields(_ item: HistoryItem) -> [(String, JSONText.Value)] {
        [
            ("id", .number(Double(item.id))),
            ("kind", .string(item.kind.rawValue)),
            ("preview", .string(escapedForTerminal(item.preview))),
            ("size", .number(Double(item.size))),
            ("types", .array(item.types.map { .string($0.identifier) })),
            ("created", .string(JSONText.date(item.created))),
            ("lastCopied", .string(JSONText.date(item.lastCopied))),
            ("copyCount", .number(Double(item.copyCount))),
            ("pinned", .bool(item.isPinned)),
            ("source", item.source.map { .string($0) } ?? .null),
            ("expiresAt", item.expiresAt.map { .string(JSONText.date($0)) } ?? .null),
        ]
    }
}

/// Short relative ages: `now`, `12s`, `5m`, `3h`, `2d`, `7w`, `1y`.
enum Age {
    /// `just now`, `5m ago`.
    static func ago(_ date: Date, now: Date = Date()) -> String {
        let text = short(since: date, now: now)
        return text == "now" ? "just now" : text + " ago"
    }

    static func short(since date: Date, now: Date) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<2: return "now"
        case ..<60: return "\(Int(seconds))s"
        case ..<3600: return "\(Int(seconds / 60))m"
        case ..<86400: return "\(Int(seconds / 3600))h"
        case ..<(86400 * 14): return "\(Int(seconds / 86400))d"
        case ..<(86400 * 365): return "\(Int(seconds / 604_800))w"
        default: return "\(Int(seconds / 31_536_000))y"
        }
    }
}

extension String {
    func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}

/// A small JSON writer that keeps key order and escapes exactly what JSON requires.
enum JSONText {
    indirect enum Value {
        case string(String), number(Double), bool(Bool), null, array([Value]), object([(String, Value)])
    }

    static func object(_ fields: [(String, Value)]) -> String { render(.object(fields)) }

    static func render(_ value: Value) -> String {
        switch value {
        case .string(let text): return quote(text)
        case .number(let number):
            if number == number.rounded() && abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array(let values): return "[" + values.map(render).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { quote($0.0) + ":" + render($0.1) }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A date as `pb` writes it everywhere (`2026-11-29T14:55:34.123Z`); see `DateText`.
    static func date(_ date: Date) -> String { DateText.string(date) }
}
