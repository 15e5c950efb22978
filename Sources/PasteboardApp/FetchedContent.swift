import Foundation
import GtkSupport
import PasteboardHistory
import PasteboardModel

/// What a download becomes: an image item for an image, a text item (with the page's address as `public.url`) for
/// HTML or text; anything else is refused, so nothing changes.
enum FetchedContent {
    /// The item for `download` and a few words for the user ("PNG image, 640×480").
    static func item(from download: URLFetch.Download) throws(AppError) -> (item: PasteboardItem, summary: String) {
        let address = download.url.absoluteString
        guard !download.data.isEmpty else { throw AppError("\(address) is empty; nothing was copied.") }
        let declared = download.mimeType?.lowercased()
        let sniffed = ContentType.sniff(download.data)
        if declared?.hasPrefix("image/") == true || sniffed.conforms(to: .image) {
            return try image(download, declared: declared, sniffed: sniffed)
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
        throw AppError(
            "\(address) is \(declared ?? sniffed.identifier), neither an image nor a web page or text; nothing was copied."
        )
    }

    private static func image(
        _ download: URLFetch.Download, declared: String?, sniffed: ContentType
    ) throws(AppError) -> (item: PasteboardItem, summary: String) {
        let address = download.url.absoluteString
        guard sniffed.conforms(to: .image) else {
            throw AppError("\(address) says it is \(declared ?? "an image") but is not an image; nothing was copied.")
        }
        let texture: Texture
        do {
            texture = try Texture(decoding: download.data, maxWidth: 64, maxHeight: 64)
        } catch {
            throw AppError("\(address) is not a readable image (\(error.description)); nothing was copied.")
        }
        _ = texture
        let size = PasteboardImage(data: download.data).flatMap { image in
            image.width.flatMap { width in image.height.map { "\(width)×\($0)" } }
        }
        let summary = [sniffed.localizedDescription, size].compactMap { $0 }.joined(separator: ", ")
        return (PasteboardItem(data: download.data, type: sniffed), summary)
    }

    /// The body as text, in its declared character set (UTF-8 unless it says Latin-1 or Windows-1252).
    private static func text(of download: URLFetch.Download) -> String {
        switch download.textEncodingName?.lowercased() {
        case "iso-8859-1", "latin1", "windows-1252", "us-ascii":
            return String(data: download.data, encoding: .isoLatin1) ?? String(decoding: download.data, as: UTF8.self)
        default:
            return String(decoding: download.data, as: UTF8.self)
        }
    }
}
