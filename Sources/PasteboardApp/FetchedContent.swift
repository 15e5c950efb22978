import GtkSupport
import PasteboardModel
import URLFetching

/// What a download becomes in the app: `URLFetching.FetchedContent`'s item, with an image also decoded (GTK) so that
/// a damaged picture is refused before it replaces the clipboard.
enum AppFetchedContent {
    static func item(from download: URLFetcher.Download) throws(AppError) -> (item: PasteboardItem, summary: String) {
        let content: (item: PasteboardItem, summary: String)
        do {
            content = try FetchedContent.item(from: download)
        } catch {
            throw AppError(error.message)
        }
        if let type = content.item.types.first, type.conforms(to: .image), let data = content.item.data(forType: type) {
            do {
                _ = try Texture(decoding: data, maxWidth: 64, maxHeight: 64)
            } catch {
                throw AppError("\(download.url) is not a readable image (\(error.description)); nothing was copied.")
            }
        }
        return content
    }
}
