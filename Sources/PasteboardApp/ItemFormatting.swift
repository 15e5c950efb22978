import Foundation
import PasteboardHistory
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

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
        item.kind == .url && isAddress(item.preview)
    }

    /// Whether `text` is one address, `scheme://rest` with no white space (checked by hand: each row asks, and a
    /// regular expression compiled per row cost a visible share of drawing the list).
    static func isAddress(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        guard let separator = scalars.firstRange(of: "://".unicodeScalars) else { return false }
        let scheme = scalars[..<separator.lowerBound]
        let rest = scalars[separator.upperBound...]
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = scheme.first, isLetter(first) else { return false }
        guard scheme.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "." || $0 == "-" })
        else { return false }
        return !rest.isEmpty && !rest.contains(where: \.properties.isWhitespace)
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
        default: return day(of: date)
        }
    }

    /// The local date `yyyy-MM-dd`, from the C library: a DateFormatter per row (ICU behind it) cost more than the
    /// rest of binding the row.
    static func day(of date: Date) -> String { localTime(date, format: "%Y-%m-%d") }

    /// A row's second line: age, size.
    /// The item's kind in words, for a screen reader: "Image", "Link", "Text" …
    static func kindName(of item: HistoryItem) -> String {
        switch item.kind {
        case .text: "Text"
        case .url: isLink(item) ? "Link" : "Text"
        case .html: "Formatted text"
        case .image: "Image"
        case .file: "File"
        case .data: "Data"
        }
    }

    static func meta(of item: HistoryItem) -> String {
        "\(age(of: item.lastCopied)) · \(ByteCountFormatting.string(item.size))"
    }

    /// `date` in local time through the C library's `strftime` with `format`, in the user's locale (GTK sets
    /// it from the environment at start-up). Not a DateFormatter: its ICU formatter brings in about 4 MB of ICU's
    /// locale data the first time a preview shows a time, resident from then on (measured while paging through
    /// the history), for what `strftime` says as well.
    static func localTime(_ date: Date, format: String) -> String {
        LocalTime.text(seconds: Int(date.timeIntervalSince1970.rounded(.down)), format: format) ?? ""
    }

    /// A copy's time in the preview: "1 Dec 2026, 23:05" (the month's name in the user's language).
    static func copyTime(_ date: Date) -> String { localTime(date, format: "%e %b %Y, %H:%M").trimmingPrefixSpace() }

    /// A paste's time in the paste log: the locale's time of day with seconds.
    static func pasteTime(_ date: Date) -> String { localTime(date, format: "%X") }

    /// The preview pane's details: type, size, source, times, copy count.
    static func details(of item: HistoryItem) -> String {
        let type = item.types.first.map { $0.localizedDescription } ?? name(of: item.kind)
        let kind = item.kind == .url && !isLink(item) ? HistoryItem.Kind.text : item.kind
        var parts = ["\(name(of: kind)) · \(type) · \(ByteCountFormatting.string(item.size))"]
        if let source = item.source, !source.isEmpty { parts.append("From \(source)") }
        var times = "Copied \(copyTime(item.lastCopied))"
        if item.copyCount > 1 {
            times += " · \(item.copyCount) copies, first \(copyTime(item.created))"
        }
        parts.append(times)
        if item.isPinned { parts.append("Pinned") }
        if item.asksBeforePaste { parts.append("Asks before paste") }
        return parts.joined(separator: "\n")
    }

    /// The preview's paste log: "Pasted by xclip, 13:05 (allowed)", newest first.
    static func pasteLog(_ records: [PasteRecord]) -> String {
        guard !records.isEmpty else { return "" }
        return records.map { record in
            let reader = record.reader ?? "an unknown application"
            let outcome = record.outcome == .served ? "" : " (\(outcome(record.outcome)))"
            return "Pasted by \(reader), \(pasteTime(record.date))\(outcome)"
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

extension String {
    /// Without the leading space `%e` puts before a one-digit day.
    fileprivate func trimmingPrefixSpace() -> String { first == " " ? String(dropFirst()) : self }
}
