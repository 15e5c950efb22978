import Foundation
import PasteboardKit
import Testing

@Suite struct StandardTransferableTests {
    // MARK: - String

    @Test func stringExportsUTF8PlainText() async throws {
        let item = try await PasteboardItem(exporting: "héllo")

        #expect(item.types == [.utf8PlainText])
        #expect(item.data(forType: .utf8PlainText) == Data("héllo".utf8))
        #expect(try await item.value(as: String.self) == "héllo")
    }

    @Test func stringFromPlainTextReplacesInvalidUTF8() async throws {
        let item = PasteboardItem(data: Data([0x61, 0xFF, 0x62]), type: .plainText)

        #expect(try await item.value(as: String.self) == "a\u{FFFD}b")
    }

    @Test(
        arguments: [
            ([0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00], "hi"),  // Little-endian byte order mark.
            ([0xFE, 0xFF, 0x00, 0x68, 0x00, 0x69], "hi"),  // Big-endian byte order mark.
            ([0x68, 0x00, 0x3D, 0xD8, 0x00, 0xDE], "h😀"),  // No mark: little-endian, with a surrogate pair.
        ] as [([UInt8], String)])
    func stringFromUTF16Text(bytes: [UInt8], expected: String) async throws {
        let item = PasteboardItem(data: Data(bytes), type: .utf16PlainText)

        #expect(try await item.value(as: String.self) == expected)
    }

    @Test func stringFromAnyTextType() async throws {
        let item = PasteboardItem(data: Data("{\"a\": 1}".utf8), type: .json)

        #expect(try await item.value(as: String.self) == "{\"a\": 1}")
    }

    @Test func stringIsNotReadFromBinaryContent() async throws {
        let item = PasteboardItem(data: Data([0x89, 0x50, 0x4E, 0x47]), type: .png)

        #expect(try await item.value(as: String.self) == nil)
    }

    // MARK: - Data

    @Test func dataRoundTrip() async throws {
        let bytes = Data([0x00, 0xCA, 0xFE, 0xFF])
        let item = try await PasteboardItem(exporting: bytes)

        #expect(item.types == [.data])
        #expect(try await item.value(as: Data.self) == bytes)
    }

    @Test func dataIsReadFromAnyRepresentationConformingToData() async throws {
        let item = PasteboardItem(data: Data([1, 2, 3]), type: .png)

        #expect(try await item.value(as: Data.self) == Data([1, 2, 3]))
    }

    // MARK: - URL

    @Test func fileURLExportsFileURLAndText() async throws {
        let url = URL(fileURLWithPath: "/tmp/My Report.pdf")
        let item = try await PasteboardItem(exporting: url)

        #expect(item.types == [.fileURL, .utf8PlainText])
        #expect(item.data(forType: .fileURL) == Data("file:///tmp/My%20Report.pdf".utf8))
        #expect(item.string == "file:///tmp/My%20Report.pdf")
        #expect(try await item.value(as: URL.self) == url)
    }

    @Test func webURLExportsURLAndText() async throws {
        let url = try #require(URL(string: "https://swift.org/documentation/?q=a%20b#top"))
        let item = try await PasteboardItem(exporting: url)

        #expect(item.types == [.url, .utf8PlainText])
        #expect(item.data(forType: .url) == Data(url.absoluteString.utf8))
        #expect(try await item.value(as: URL.self) == url)
        #expect(try await item.value(as: String.self) == "https://swift.org/documentation/?q=a%20b#top")
    }

    @Test func urlImportSkipsBlankAndCommentLines() async throws {
        let item = PasteboardItem(data: Data("\r\n# copied\r\nhttps://example.com/a\r\n".utf8), type: .url)

        #expect(try await item.value(as: URL.self) == URL(string: "https://example.com/a"))
    }

    @Test func urlIsNotReadFromPlainText() async throws {
        let item = PasteboardItem(string: "https://example.com")

        #expect(try await item.value(as: URL.self) == nil)
    }

    @Test(arguments: [
        ("not a url", ContentType.url),
        ("https://example.com/", .fileURL),
    ])
    func invalidURLRepresentationThrowsInvalidContent(text: String, type: ContentType) async throws {
        let item = PasteboardItem(data: Data(text.utf8), type: type)

        let error = await #expect(throws: PasteboardError.self) { try await item.value(as: URL.self) }
        #expect(error?.code == .invalidContent)
    }
}
