import Foundation
import PasteboardModel
import Testing

@testable import PasteboardApp
import URLFetching

@Suite struct FetchedContentTests {
    static let address = "https://example.com/thing"

    static func download(_ data: Data, mime: String?, charset: String? = nil) -> URLFetcher.Download {
        URLFetcher.Download(url: address, mimeType: mime, textEncodingName: charset, data: data)
    }

    /// A 1×1 PNG.
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!

    @Test func anImageBecomesAnImageItem() throws {
        let (item, summary) = try AppFetchedContent.item(from: Self.download(Self.png, mime: "image/png"))
        #expect(item.types == [.png])
        #expect(item.data(forType: .png) == Self.png)
        #expect(summary.contains("1×1"), "\(summary)")
    }

    @Test func aPageBecomesItsTextWithItsHTMLAndAddress() throws {
        let html = "<html><body><h1>Title</h1><p>Some words</p></body></html>"
        let (item, _) = try AppFetchedContent.item(from: Self.download(Data(html.utf8), mime: "text/html"))
        #expect(item.types == [.utf8PlainText, .html, .url])
        #expect(item.string?.contains("Some words") == true)
        #expect(item.data(forType: .url) == Data(Self.address.utf8))
    }

    @Test func latin1TextIsDecoded() throws {
        let (item, _) = try AppFetchedContent.item(
            from: Self.download(Data([0x63, 0x61, 0x66, 0xE9]), mime: "text/plain", charset: "ISO-8859-1"))
        #expect(item.string == "café")
    }

    @Test(arguments: [
        ("image/png", Data("not a picture".utf8), "is not an image"),
        ("application/zip", Data([0x50, 0x4B, 0x03, 0x04, 0, 0]), "neither an image"),
        ("text/plain", Data(), "is empty"),
    ])
    func otherContentIsRefusedWithAReason(mime: String, body: Data, reason: String) {
        #expect {
            try AppFetchedContent.item(from: Self.download(body, mime: mime))
        } throws: { error in
            (error as? AppError)?.message.contains(reason) == true
        }
    }

    @Test(arguments: ["ftp://example.com/a", "example.com", "https://", "file:///etc/passwd", ""])
    func onlyHTTPAddressesAreAccepted(text: String) {
        #expect(throws: FetchError.self) { try FetchAddress.typed(text) }
    }
}
