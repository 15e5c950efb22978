public import FoundationEssentials
import TextSupport

extension URL: Transferable {
    /// A file URL exports as `.fileURL`, any other URL as `.url`, each holding the absolute URL string in
    /// UTF-8; every URL also exports that string as `.utf8PlainText`, so it pastes into text fields. Both
    /// `.fileURL` and `.url` import; plain text does not, so arbitrary text is never read as a link.
    ///
    /// ```swift
    /// try await Pasteboard.general.write(URL(fileURLWithPath: "/tmp/report.pdf"))
    /// try await Pasteboard.general.read(URL.self)     // file:///tmp/report.pdf
    /// try await Pasteboard.general.read(String.self)  // "file:///tmp/report.pdf"
    /// ```
    public static var transferRepresentation: some TransferRepresentation<URL> {
        DataRepresentation(contentType: .fileURL) { url in
            Data(url.absoluteString.utf8)
        } importing: { data in
            try URL.parsingTransferred(data, as: .fileURL)
        }
        .exportingCondition { $0.isFileURL }
        DataRepresentation(contentType: .url) { url in
            Data(url.absoluteString.utf8)
        } importing: { data in
            try URL.parsingTransferred(data, as: .url)
        }
        .exportingCondition { !$0.isFileURL }
        ProxyRepresentation(exporting: \.absoluteString)
    }

    /// The URL in the first line of `data` that is neither empty nor a `#` comment; it must be absolute,
    /// and a file URL when `contentType` is `.fileURL`.
    static func parsingTransferred(_ data: Data, as contentType: ContentType) throws -> URL {
        let text = String(decoding: data, as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingWhitespace() }
            .first { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let line, let url = URL(string: line), url.scheme != nil else {
            throw PasteboardError(
                .invalidContent,
                "The '\(contentType)' representation does not hold an absolute URL; copy the link again.")
        }
        guard contentType != .fileURL || url.isFileURL else {
            throw PasteboardError(
                .invalidContent,
                "The '\(contentType)' representation holds a '\(url.scheme ?? "")' URL, not a file URL.")
        }
        return url
    }
}
