import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

@Suite struct HistoryStoreTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    // MARK: - Round trips

    static let exactPayloads: [(label: String, bytes: [UInt8])] = [
        ("ascii", Array("hello, world".utf8)),
        ("empty", []),
        ("emoji and accents", Array("héllo wörld 👋🏽 日本語".utf8)),
        ("invalid UTF-8", [0x61, 0xFF, 0xFE, 0x62, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x63]),
        ("NUL bytes", [0x61, 0x00, 0x62, 0x00, 0x00, 0x63]),
        ("CRLF and lone CR", Array("line one\r\nline two\rline three\n".utf8)),
        ("trailing whitespace", Array("  padded \t\n\n".utf8)),
    ]

    @Test(arguments: exactPayloads)
    func textRoundTripsByteExact(_ payload: (label: String, bytes: [UInt8])) throws {
        let data = Data(payload.bytes)
        let result = try store.record(PasteboardItem(data: data, type: .utf8PlainText))
        #expect(result.isNew)
        let back = try store.pasteboardItem(id: result.id)
        #expect(back.types == [.utf8PlainText])
        #expect(back.data(forType: .utf8PlainText) == data, "\(payload.label)")
        #expect(try store.item(id: result.id).size == data.count)
    }

    @Test func htmlAndPlainTextKeepBothRepresentationsInOrder() throws {
        let item = htmlItem("<p>Hello <b>there</b></p>", plain: "Hello there")
        let id = try store.record(item).id
        let back = try store.pasteboardItem(id: id)
        #expect(back.types == [.html, .utf8PlainText])
        #expect(back == item)
        let listed = try store.item(id: id)
        #expect(listed.kind == .html)
        #expect(listed.types == [.html, .utf8PlainText])
        #expect(listed.preview == "Hello there")
    }

    @Test func largeBinaryIsStoredAsPrivateFileAndReadBackExactly() throws {
        let payload = pngPayload(count: 200_000, seed: 42)
        let id = try store.record(PasteboardItem(data: payload, type: .png)).id

        let files = blobFiles(in: location)
        try #require(files.count == 1)
        #expect(try Data(contentsOf: files[0]) == payload)
        #expect(try permissions(of: files[0]) == 0o600)
        #expect(try store.pasteboardItem(id: id).data(forType: .png) == payload)

        let stats = try store.stats()
        #expect(stats.fileBlobCount == 1)
        #expect(stats.fileBlobBytes == payload.count)
        let listed = try store.item(id: id)
        #expect(listed.kind == .image)
        #expect(listed.size == payload.count)
    }

    @Test func payloadJustBelowTheFileThresholdStaysInTheDatabase() throws {
        let small = pngPayload(count: 64 * 1024 - 1, seed: 3)
        let large = pngPayload(count: 64 * 1024, seed: 4)
        let smallID = try store.record(PasteboardItem(data: small, type: .png)).id
        #expect(blobFiles(in: location).isEmpty)
        let largeID = try store.record(PasteboardItem(data: large, type: .png)).id
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardItem(id: smallID).data(forType: .png) == small)
        #expect(try store.pasteboardItem(id: largeID).data(forType: .png) == large)
    }

    @Test func sharedPayloadIsStoredOnceAndRemovedWithItsLastItem() throws {
        let payload = pngPayload(seed: 7)
        var captioned = PasteboardItem(data: payload, type: .png)
        captioned.setString("a caption")
        let first = try store.record(PasteboardItem(data: payload, type: .png))
        let second = try store.record(captioned)
        #expect(first.isNew && second.isNew)
        #expect(first.id != second.id)
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.stats().fileBlobCount == 1)

        try store.delete(id: first.id)
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardItem(id: second.id).data(forType: .png) == payload)

        try store.delete(id: second.id)
        #expect(blobFiles(in: location).isEmpty)
        let stats = try store.stats()
        #expect(stats.fileBlobCount == 0)
        #expect(stats.blobCount == 0)
    }

    @Test func emptyItemIsRejected() throws {
        expectHistoryError(.invalidInput) { try store.record(PasteboardItem()) }
        #expect(try store.count() == 0)
    }

    @Test func metadataIsKept() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let expiry = date.addingTimeInterval(3600)
        let id = try store.record(
            PasteboardItem(string: "secret"),
            metadata: CaptureMetadata(source: "org.example.Editor", selection: "primary", date: date, expiresAt: expiry)
        ).id
        let item = try store.item(id: id)
        #expect(item.source == "org.example.Editor")
        #expect(item.selection == "primary")
        #expect(item.created == date)
        #expect(item.lastCopied == date)
        #expect(item.expiresAt == expiry)
        #expect(item.copyCount == 1)
        #expect(!item.isPinned)
    }

    @Test func previewCollapsesWhitespaceToOneLine() throws {
        let id = try store.record(PasteboardItem(string: "  first\r\n\tsecond   third\n")).id
        #expect(try store.item(id: id).preview == "first second third")
    }

    // MARK: - Listing

    @Test func itemsAreListedNewestFirst() throws {
        let ids = try (0..<5).map { try store.record(PasteboardItem(string: "item \($0)")).id }
        #expect(try store.items(limit: 10).map(\.id) == ids.reversed())
        #expect(try store.newestID() == ids.last)
        #expect(try store.count() == 5)
    }

    @Test(arguments: [
        (limit: 3, offset: 0), (limit: 3, offset: 3), (limit: 4, offset: 8), (limit: 5, offset: 20),
        (limit: 0, offset: 0),
    ])
    func limitAndOffsetSelectAWindow(limit: Int, offset: Int) throws {
        let ids = try (0..<10).map { try store.record(PasteboardItem(string: "window \($0)")).id }
        let newestFirst = Array(ids.reversed())
        let expected = Array(newestFirst.dropFirst(offset).prefix(limit))
        #expect(try store.items(HistoryQuery(limit: limit, offset: offset)).map(\.id) == expected)
    }

    @Test func pinnedOnlyListsPinnedItems() throws {
        let ids = try (0..<6).map { try store.record(PasteboardItem(string: "pin candidate \($0)")).id }
        try store.setPinned(true, id: ids[1])
        try store.setPinned(true, id: ids[4])
        #expect(try store.items(HistoryQuery(pinnedOnly: true)).map(\.id) == [ids[4], ids[1]])
    }

    @Test func typeFilterSelectsByConformance() throws {
        let text = try store.record(PasteboardItem(string: "plain words")).id
        let png = try store.record(pngItem(count: 1_000, seed: 9)).id
        let html = try store.record(htmlItem("<i>styled</i>", plain: "styled")).id
        let jpeg = try store.record(PasteboardItem(data: Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]), type: .jpeg)).id

        #expect(try store.items(HistoryQuery(type: .image)).map(\.id) == [jpeg, png])
        #expect(try store.items(HistoryQuery(type: .png)).map(\.id) == [png])
        #expect(try store.items(HistoryQuery(type: .html)).map(\.id) == [html])
        #expect(try store.items(HistoryQuery(type: .text)).map(\.id) == [html, text])
        #expect(try store.items(HistoryQuery(type: .pdf)).isEmpty)
    }

    @Test func kindFilterSelectsItemsAsListedInListsAndSearches() throws {
        let link = try store.record(PasteboardItem(string: "https://example.com/apple")).id
        let text = try store.record(PasteboardItem(string: "apple pie")).id
        let png = try store.record(pngItem(count: 1_000, seed: 3)).id
        let html = try store.record(htmlItem("<i>apple</i> tart", plain: "apple tart")).id

        #expect(try store.items(HistoryQuery(kinds: [.url])).map(\.id) == [link], "a URL copied as text is a link")
        #expect(try store.items(HistoryQuery(kinds: [.text, .html])).map(\.id) == [html, text])
        #expect(try store.items(HistoryQuery(kinds: [.image])).map(\.id) == [png])
        #expect(try store.items(HistoryQuery(kinds: [])).isEmpty)
        #expect(try store.items(HistoryQuery(text: "apple", kinds: [.text])).map(\.id) == [text], "indexed search")
        #expect(try store.items(HistoryQuery(text: "ap", kinds: [.url])).map(\.id) == [link], "short scan")
        #expect(try store.items(HistoryQuery(text: "^apple", isRegex: true, kinds: [.html, .text])).map(\.id) == [html, text])
    }

    static let kindCases: [(label: String, item: PasteboardItem, kind: HistoryItem.Kind)] = [
        ("plain text", PasteboardItem(string: "just some words"), .text),
        ("https URL as text", PasteboardItem(string: "https://example.com"), .url),
        ("URL with surrounding newline", PasteboardItem(string: "https://example.com/a?b=c\n"), .url),
        ("sentence mentioning a URL", PasteboardItem(string: "see https://example.com now"), .text),
        ("HTML with plain text", htmlItem("<b>bold</b>", plain: "bold"), .html),
        ("HTML only", PasteboardItem(data: Data("<b>bold</b>".utf8), type: .html), .html),
        ("PNG", pngItem(count: 100, seed: 5), .image),
        ("file URI list", PasteboardItem(data: Data("file:///tmp/a.txt\r\n".utf8), type: .uriList), .file),
        ("opaque bytes", PasteboardItem(data: Data([1, 2, 3]), type: ContentType("com.example.opaque")), .data),
    ]

    @Test(arguments: kindCases)
    func kindIsDerivedFromTheRepresentations(_ testCase: (label: String, item: PasteboardItem, kind: HistoryItem.Kind))
        throws
    {
        let id = try store.record(testCase.item).id
        #expect(try store.item(id: id).kind == testCase.kind, "\(testCase.label)")
    }

    // MARK: - Dedup

    @Test func duplicateCopyMovesItemToTopAndBumpsItsCount() throws {
        let first = try store.record(PasteboardItem(string: "again"))
        let other = try store.record(PasteboardItem(string: "other"))
        // Whole seconds: dates are stored as seconds since 1970 in a double, which may not round-trip
        // every sub-second value of a `Date`.
        let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 60).rounded())
        let again = try store.record(PasteboardItem(string: "again"), metadata: CaptureMetadata(date: later))

        #expect(!again.isNew)
        #expect(again.id == first.id)
        #expect(try store.count() == 2)
        #expect(try store.items(limit: 10).map(\.id) == [first.id, other.id])
        let item = try store.item(id: first.id)
        #expect(item.copyCount == 2)
        #expect(item.lastCopied == later)
        #expect(item.created < later)
    }

    @Test func duplicateCopyKeepsThePin() throws {
        let id = try store.record(PasteboardItem(string: "pinned text")).id
        try store.setPinned(true, id: id)
        try store.record(PasteboardItem(string: "something else"))
        let again = try store.record(PasteboardItem(string: "pinned text"))
        #expect(again.id == id)
        #expect(try store.item(id: id).isPinned)
        #expect(try store.items(limit: 1).first?.id == id)
    }

    @Test func sameBytesUnderAnotherTypeAreADifferentItem() throws {
        let bytes = Data("same bytes".utf8)
        let plain = try store.record(PasteboardItem(data: bytes, type: .utf8PlainText))
        let html = try store.record(PasteboardItem(data: bytes, type: .html))
        #expect(html.isNew)
        #expect(html.id != plain.id)
        #expect(try store.count() == 2)
    }

    @Test func representationOrderDoesNotChangeIdentity() throws {
        var reversed = PasteboardItem()
        reversed.setString("Hello there")
        reversed.setData(Data("<p>Hello there</p>".utf8), forType: .html)
        let first = try store.record(htmlItem("<p>Hello there</p>", plain: "Hello there"))
        let second = try store.record(reversed)
        #expect(!second.isNew)
        #expect(second.id == first.id)
    }

    @Test func duplicateOfLargePayloadKeepsOneFile() throws {
        let first = try store.record(pngItem(seed: 11))
        let again = try store.record(pngItem(seed: 11))
        #expect(!again.isNew)
        #expect(blobFiles(in: location).count == 1)
        try store.delete(id: first.id)
        #expect(blobFiles(in: location).isEmpty)
    }

    // MARK: - Pins

    @Test func pinningAndUnpinning() throws {
        let id = try store.record(PasteboardItem(string: "to pin")).id
        try store.setPinned(true, id: id)
        #expect(try store.item(id: id).isPinned)
        try store.setPinned(false, id: id)
        #expect(try !store.item(id: id).isPinned)
    }

    @Test func unknownIDsThrowNoSuchItem() throws {
        try store.record(PasteboardItem(string: "exists"))
        expectHistoryError(.noSuchItem) { try store.setPinned(true, id: 9_999) }
        expectHistoryError(.noSuchItem) { _ = try store.item(id: 9_999) }
        expectHistoryError(.noSuchItem) { _ = try store.pasteboardItem(id: 9_999) }
        expectHistoryError(.noSuchItem) { try store.delete(id: 9_999) }
    }

    // MARK: - Deleting

    @Test func deleteRemovesOnlyTheGivenItems() throws {
        let ids = try (0..<4).map { try store.record(PasteboardItem(string: "delete me \($0)")).id }
        #expect(try store.delete(ids: [ids[0], ids[2], 12_345]) == 2)
        #expect(try store.items(limit: 10).map(\.id) == [ids[3], ids[1]])
        expectHistoryError(.noSuchItem) { _ = try store.pasteboardItem(id: ids[0]) }
    }

    @Test func deletedTextIsRecordedAgainAsANewItem() throws {
        let first = try store.record(PasteboardItem(string: "phoenix"))
        try store.delete(id: first.id)
        let again = try store.record(PasteboardItem(string: "phoenix"))
        #expect(again.isNew)
        #expect(try store.item(id: again.id).copyCount == 1)
    }

    @Test func clearRemovesEverything() throws {
        for index in 0..<5 { try store.record(PasteboardItem(string: "clear \(index)")) }
        try store.record(pngItem(seed: 21))
        try store.setPinned(true, id: try #require(try store.newestID()))
        #expect(try store.clear() == 6)
        #expect(try store.count() == 0)
        let stats = try store.stats()
        #expect(stats.blobCount == 0)
        #expect(blobFiles(in: location).isEmpty)
        #expect(try indexMatchCount(location, phrase: "clear") == 0)
    }

    @Test func clearKeepingPinsKeepsPinnedItemsAndTheirPayloads() throws {
        let pinned = try store.record(pngItem(seed: 31)).id
        let pinnedText = try store.record(PasteboardItem(string: "keep this text")).id
        for index in 0..<5 { try store.record(PasteboardItem(string: "drop \(index)")) }
        try store.record(pngItem(seed: 32))
        try store.setPinned(true, id: pinned)
        try store.setPinned(true, id: pinnedText)

        #expect(try store.clear(keepPinned: true) == 6)
        #expect(try store.items(limit: 10).map(\.id) == [pinnedText, pinned])
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardItem(id: pinned).data(forType: .png) == pngPayload(seed: 31))
        #expect(try store.items(HistoryQuery(text: "keep this")).map(\.id) == [pinnedText])
        #expect(try store.items(HistoryQuery(text: "drop")).isEmpty)
    }

    @Test func clearOfThousandsOfItemsWorksInBatches() throws {
        for index in 0..<2_500 { try store.record(PasteboardItem(string: "bulk \(index)")) }
        #expect(try store.clear() == 2_500)
        #expect(try store.count() == 0)
    }

    // MARK: - Stats

    @Test func statsCountItemsPinsKindsAndBlobs() throws {
        try store.record(PasteboardItem(string: "hello stats"))
        try store.record(PasteboardItem(string: "https://example.com"))
        try store.record(htmlItem("<b>x</b>", plain: "x"))
        let image = try store.record(pngItem(seed: 41)).id
        try store.setPinned(true, id: image)

        let stats = try store.stats()
        #expect(stats.itemCount == 4)
        #expect(stats.pinnedCount == 1)
        let kinds = Dictionary(uniqueKeysWithValues: stats.kinds.map { ($0.kind, $0.count) })
        #expect(kinds == [.text: 1, .url: 1, .html: 1, .image: 1])
        #expect(stats.kinds.first?.kind == .image)
        #expect(stats.kinds.first?.bytes == 70_000)
        #expect(stats.fileBlobCount == 1)
        #expect(stats.fileBlobBytes == 70_000)
        // Text, URL, HTML, its plain text, the PNG and the PNG's derived description.
        #expect(stats.blobCount == 6)
        #expect(stats.payloadBytes > 70_000)
        #expect(stats.indexBytes > 0)
        #expect(stats.databaseBytes > 0)
        #expect(stats.schemaVersion == 15)
    }

    @Test func statsOfAnEmptyStore() throws {
        let stats = try store.stats()
        #expect(stats.itemCount == 0)
        #expect(stats.pinnedCount == 0)
        #expect(stats.kinds.isEmpty)
        #expect(stats.blobCount == 0)
        #expect(stats.payloadBytes == 0)
    }
}
