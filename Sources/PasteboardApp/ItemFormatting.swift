import Foundation
import PasteboardHistory

/// How items are named and described on screen.
enum ItemFormatting {
    /// A themed icon for a kind of item.
    static func icon(for kind: HistoryItem.Kind) -> String {
        switch kind {
        case .text: "text-x-generic-symbolic"
        case .url: "web-browser-symbolic"
        case .html: "emblem-documents-symbolic"
        case .image: "image-x-generic-symbolic"
        case .file: "folder-symbolic"
        case .data: "application-x-executable-symbolic"
        }
    }

    /// Whether the row shows a link: a URL item whose text is the address (a page's text copied with its address
    /// is a URL item too, but reads as text).
    static func isLink(_ item: HistoryItem) -> Bool {
        item.kind == .url
            && item.preview.range(of: "^[A-Za-z][A-Za-z0-9+.-]*://\\S+$", options: .regularExpression) != nil
    }

    /// The kind in a word.
    static func name(of kind: HistoryItem.Kind) -> String {
        switch kind {
        case .text: "Text"
        case .url: "Link"
        case .html: "Web page"
        case .image: "Image"
        case .file: "File"
        case .data: "Data"
        }
    }

    /// The one line a row shows: the first line of text, a file's name, an image's description.
    static func title(of item: HistoryItem) -> String {
        let line = item.preview.trimmingCharacters(in: .whitespaces)
        if item.kind == .file {
            let names = line.split(separator: " ").compactMap { part -> String? in
                guard part.hasPrefix("file://"), let url = URL(string: String(part)) else { return nil }
                return url.lastPathComponent
            }
            if let first = names.first { return names.count > 1 ? "\(first) and \(names.count - 1) more" : first }
        }
        if item.kind == .image || item.kind == .data, let open = line.range(of: " (", options: .backwards) {
            // The store's preview of a binary item ends with its size, which the row shows beside it.
            return String(line[..<open.lowerBound])
        }
        return line.isEmpty ? name(of: item.kind) : line
    }

    /// "now", "5m", "3h", "2d", or the date for older items.
    static func age(of date: Date, now: Date = Date()) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "now"
        case ..<3600: return "\(Int(seconds / 60))m"
        case ..<86400: return "\(Int(seconds / 3600))h"
        case ..<(86400 * 30): return "\(Int(seconds / 86400))d"
        default:
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: date)
        }
    }

    /// A row's second line: age, size.
    static func meta(of item: HistoryItem) -> String {
        "\(age(of: item.lastCopied)) · \(ByteCountFormatting.string(item.size))"
    }

    /// The preview pane's details: type, size, source, times, copy count.
    static func details(of item: HistoryItem) -> String {
        let type = item.types.first.map { $0.localizedDescription } ?? name(of: item.kind)
        let kind = item.kind == .url && !isLink(item) ? HistoryItem.Kind.text : item.kind
        var parts = ["\(name(of: kind)) · \(type) · \(ByteCountFormatting.string(item.size))"]
        if let source = item.source, !source.isEmpty { parts.append("From \(source)") }
        let formatter = DateFormatter()
        formatter.dateStyle = .medium
        formatter.timeStyle = .short
        var times = "Copied \(formatter.string(from: item.lastCopied))"
        if item.copyCount > 1 {
            times += " · \(item.copyCount) copies, first \(formatter.string(from: item.created))"
        }
        parts.append(times)
        if item.isPinned { parts.append("Pinned") }
        if item.asksBeforePaste { parts.append("Asks before paste") }
        return parts.joined(separator: "\n")
    }

    /// The preview's paste log: "Pasted by xclip, 13:05 (allowed)", newest first.
    static func pasteLog(_ records: [PasteRecord]) -> String {
        guard !records.isEmpty else { return "" }
        let formatter = DateFormatter()
        formatter.dateStyle = .none
        formatter.timeStyle = .medium
        return records.map { record in
            let reader = record.reader ?? "an unknown application"
            let outcome = record.outcome == .served ? "" : " (\(outcome(record.outcome)))"
            return "Pasted by \(reader), \(formatter.string(from: record.date))\(outcome)"
        }.joined(separator: "\n")
    }

    static func outcome(_ outcome: PasteRecord.Outcome) -> String {
        switch outcome {
        case .served: "served"
        case .allowed: "allowed"
        case .refused: "refused"
        case .unanswered: "refused: no answer"
        case .noApprover: "refused: the app was not running"
        }
    }
}
