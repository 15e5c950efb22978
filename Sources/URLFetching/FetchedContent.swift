import FoundationEssentials
import PasteboardHistory
public import PasteboardModel

/// What a download becomes: an image item for an image, a text item (with the page's address as `public.url`) for
/// HTML or text; anything else is refused, so nothing changes.
public enum FetchedContent {
    /// The item for `download` and a few words for the user ("PNG image, 640×480"). An image is checked by its
    /// signature here; the app decodes it as well before copying.
    public static func item(from download: URLFetcher.Download) throws(FetchError) -> (item: PasteboardItem, summary: String) {
        let address = download.url
        guard !download.data.isEmpty else { throw FetchError(.unsupportedContent, "\(address) is empty; nothing was copied.") }
        let declared = download.mimeType?.lowercased()
        let sniffed = ContentType.sniff(download.data)
        if declared?.hasPrefix("image/") == true || sniffed.conforms(to: .image) {
            guard sniffed.conforms(to: .image) else {
                throw FetchError(
                    .unsupportedContent,
                    "\(address) says it is \(declared ?? "an image") but is not an image; nothing was copied.")
            }
            let size = PasteboardImage(data: download.data).flatMap { image in
                image.width.flatMap { width in image.height.map { "\(width)×\($0)" } }
            }
            let summary = [sniffed.localizedDescription, size].compactMap { $0 }.joined(separator: ", ")
            return (PasteboardItem(data: download.data, type: sniffed), summary)
        }
        let isHTML =
            declared == "text/html" || declared == "application/xhtml+xml" || (declared == nil && sniffed == .html)
        if isHTML {
            let html = text(of: download)
            var item = PasteboardItem()
            let plain = PlainTextForm.html(html)
            item.setString(plain.isEmpty ? address : plain, forType: .utf8PlainText)
            item.setData(Data(html.utf8), forType: .html)
            item.setString(address, forType: .url)
            return (item, "web page (\(ByteCountFormatting.string(download.data.count)))")
        }
        let isText = declared.map { $0.hasPrefix("text/") || $0.hasSuffix("json") || $0.hasSuffix("xml") } ?? false
        if isText || (declared == nil && sniffed.conforms(to: .text)) {
            var item = PasteboardItem()
            item.setString(text(of: download), forType: .utf8PlainText)
            item.setString(address, forType: .url)
            return (item, "text (\(ByteCountFormatting.string(download.data.count)))")
        }
        throw FetchError(
            .unsupportedContent,
            "\(address) is \(declared ?? sniffed.identifier), neither an image nor a web page or text; nothing was copied.")
    }

    /// The body as text, in its declared character set (UTF-8 unless it says Latin-1 or Windows-1252).
    private static func text(of download: URLFetcher.Download) -> String {
        switch download.textEncodingName?.lowercased() {
        case "iso-8859-1", "latin1", "windows-1252", "us-ascii":
            return String(decoding: download.data.map { UInt16($0) }, as: UTF16.self)
        default:
            return String(decoding: download.data, as: UTF8.self)
        }
    }
}
