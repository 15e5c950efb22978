import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

/// What the history makes of the copies real applications offer: the kind, the preview, and what is searchable.
@Suite struct HistoryStoreKindTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    /// A 2×2 PNG's signature and IHDR, enough for the header to be read.
    static let pngHeader = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 2, 8,
        6,
        0, 0, 0, 0x72, 0xB6, 0x0D, 0x24,
    ])

    /// Chromium's "Copy image": a PNG, HTML pointing at it, and the link in UTF-16.
    static func copiedImage() -> PasteboardItem {
        var item = PasteboardItem(data: pngHeader, type: .png)
        item.setData(Data(#"<img src="http://127.0.0.1/picture.png"/>"#.utf8), forType: .html)
        item.setData(
            Data("http://127.0.0.1/picture.png\na picture".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            forType: .mozillaURL)
        return item
    }

    @Test func anImageWithHTMLAndAUTF16LinkIsAnImageNamedByItsLink() throws {
        let id = try store.record(Self.copiedImage()).id
        let item = try store.item(id: id)
        #expect(item.kind == .image)
        #expect(item.preview.hasPrefix("PNG image 2×2, http://127.0.0.1/picture.png"), "\(item.preview)")
        #expect(!item.preview.contains("\0"))
        #expect(try store.items(HistoryQuery(text: "picture.png")).map(\.id) == [id], "the link is searchable")
    }

    /// gdk-pixbuf's ICO encoder offered as `text/ico`: binary under a text name is not the item's text.
    @Test func binaryUnderATextTypeNameIsNotText() throws {
        var item = PasteboardItem(data: Self.pngHeader, type: .png)
        item.setData(Data([0, 0, 1, 0, 1, 0, 16, 16, 0, 0]), forType: ContentType(mimeType: "text/ico")!)
        let id = try store.record(item).id
        let stored = try store.item(id: id)
        #expect(stored.kind == .image)
        #expect(!stored.preview.contains("\0") && !stored.preview.contains("dyn."), "\(stored.preview)")
    }

    @Test func textUnderAnUndeclaredTextTypeIsStillText() throws {
        let id = try store.record(
            PasteboardItem(data: Data("a note".utf8), type: ContentType(mimeType: "text/x-note")!)
        ).id
        #expect(try store.item(id: id).kind == .text)
        #expect(try store.item(id: id).preview == "a note")
    }

    @Test func aUTF16LinkAloneIsDecoded() throws {
        let link = Data("https://swift.org/\nSwift".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let id = try store.record(PasteboardItem(data: link, type: .mozillaURL)).id
        #expect(try store.item(id: id).preview == "https://swift.org/ Swift")
    }

    /// A Firefox copy kept verbatim: its own `text/plain` (escaped ASCII) and `text/_moz_htmlcontext` beside the
    /// UTF-8 text and HTML. The UTF-8 text is still what is shown and searched.
    @Test func firefoxsOwnTextTypesDoNotChangeTheItemsText() throws {
        var item = PasteboardItem(data: Data("Grüße 世界".utf8), type: .utf8PlainText)
        item.setData(Data("<b>Grüße</b> 世界".utf8), forType: .html)
        item.setData(Data("<html><body></body></html>".utf8), forType: ContentType(offeredName: "text/_moz_htmlcontext")!)
        item.setData(Data("Gr\\u00fc\\u00dfe \\u4e16\\u754c".utf8), forType: .plainText)
        let id = try store.record(item).id
        let stored = try store.item(id: id)
        #expect(stored.kind == .html)
        #expect(stored.preview == "Grüße 世界")
        #expect(try store.items(HistoryQuery(text: "grüße")).map(\.id) == [id])
        #expect(try store.items(HistoryQuery(text: "u00fc")).isEmpty, "the escaped text/plain is not the text")
    }

    /// UTF-16 text kept under its own spelling is still decoded for the preview when it is the only text.
    @Test func utf16TextUnderAVerbatimNameIsDecoded() throws {
        let utf16 = Data("Grüße".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let type = try #require(ContentType(offeredName: "text/plain;charset=UTF-16"))
        #expect(type.isDynamic)
        let id = try store.record(PasteboardItem(data: utf16, type: type)).id
        let preview = try store.item(id: id).preview
        #expect(preview.hasPrefix("Grüße"), "\(preview)")
    }

    /// Identifiers kept verbatim hold spaces and quotes: the listing gives each back whole.
    @Test func verbatimIdentifiersWithSpacesAreListedWhole() throws {
        let embed = try #require(
            ContentType(offeredName: #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#))
        var item = PasteboardItem(data: Data("text".utf8), type: .utf8PlainText)
        item.setData(Data("PK".utf8), forType: embed)
        let id = try store.record(item).id
        #expect(try store.item(id: id).types == [.utf8PlainText, embed])
        #expect(try store.pasteboardItem(id: id).types == [.utf8PlainText, embed])
    }

    @Test func undeclaredTypesAreNamedByTheirMIMETypeNeverADynamicIdentifier() throws {
        let id = try store.record(
            PasteboardItem(data: Data([1, 2, 3]), type: ContentType(mimeType: "application/x-thing")!)
        ).id
        let item = try store.item(id: id)
        #expect(item.kind == .data)
        #expect(item.preview.hasPrefix("application/x-thing"), "\(item.preview)")
    }
}
