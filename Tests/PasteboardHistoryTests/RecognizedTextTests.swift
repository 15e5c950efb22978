import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Text recognized in a picture is derived text of its item: both search paths find the item by it (through the
/// trigram index and through the backlog scan), it follows the item when it moves, and it goes with the item.
@Suite struct RecognizedTextTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    /// An image item (bytes that only need to be distinct: the store does not decode them).
    func recordImage(_ tag: String, text: String? = nil) throws -> Int64 {
        var item = PasteboardItem(data: Data("\u{89}PNG fake picture \(tag)".utf8), type: .png)
        if let text { item.setData(Data(text.utf8), forType: .utf8PlainText) }
        return try store.record(item).id
    }

    /// The ids both search paths find for `text` (`items`: pb search; `page`: the app, the popup, pb pick).
    func found(_ text: String) throws -> (listed: [Int64], paged: [Int64]) {
        (
            try store.items(HistoryQuery(text: text)).map(\.id),
            try store.page(HistoryFilter(text: text), limit: 100).items.map(\.id)
        )
    }

    /// Entries of the index holding every term of `text` (no check of the texts: the index alone).
    func indexEntries(_ text: String) throws -> Int64 {
        try indexMatchCount(temporary.storeLocation, phrase: text)
    }

    @Test func recognizedTextFindsTheImageOnBothSearchPaths() throws {
        let image = try recordImage("a")
        _ = try store.record(PasteboardItem(string: "a text about something else"))
        #expect(try found("zebra").listed == [])
        try store.recordRecognition(id: image, text: "Quarterly Zébra\n\nrevenue 4711  \n", outcome: .recognized, languages: "eng")
        #expect(try store.recognizedText(id: image) == "Quarterly Zébra\nrevenue 4711")
        for query in ["zebra", "4711", "QUARTERLY", "zébra"] {
            let result = try found(query)
            #expect(result.listed == [image], "\(query)")
            #expect(result.paged == [image], "\(query)")
        }
        #expect(try indexEntries("zebra") == 1)
    }

    @Test func anImageWithItsOwnTextIsFoundByBoth() throws {
        let image = try recordImage("b", text: "caption walrus")
        try store.recordRecognition(id: image, text: "giraffe 8080", outcome: .recognized, languages: "eng")
        #expect(try found("walrus").listed == [image])
        #expect(try found("giraffe").listed == [image])
        #expect(try found("giraffe").paged == [image])
    }

    @Test func theTextFollowsTheItemWhenItMovesAndGoesWithIt() throws {
        let image = try recordImage("c", text: "caption walrus")
        try store.recordRecognition(id: image, text: "quarterly zebra", outcome: .recognized, languages: "eng")
        _ = try store.record(PasteboardItem(string: "newer"))
        _ = try store.restore(id: image)  // a move: the entry goes to the new position with both texts
        #expect(try found("zebra").listed == [image])
        #expect(try found("walrus").paged == [image])
        _ = try recordImage("c", text: "caption walrus")  // a repeat: the same
        #expect(try found("zebra").listed == [image])
        #expect(try indexEntries("zebra") == 1)
        try store.delete(id: image)
        #expect(try found("zebra").listed == [])
        #expect(try indexEntries("zebra") == 0)
        #expect(try indexEntries("walrus") == 0)
        #expect(try store.recognitionProgress() == RecognitionProgress())
    }

    @Test func clearKeepsThePinnedImagesRecognizedText() throws {
        let kept = try recordImage("d")
        let gone = try recordImage("e")
        try store.recordRecognition(id: kept, text: "pinned zebra", outcome: .recognized, languages: "eng")
        try store.recordRecognition(id: gone, text: "unpinned zebra", outcome: .recognized, languages: "eng")
        try store.setPinned(true, id: kept)
        try store.clear(keepPinned: true)
        #expect(try found("zebra").listed == [kept])
        #expect(try indexEntries("zebra") == 1)
    }

    @Test func awaitingListsImagesNotLookedAtNewestFirstAndProgressCountsThem() throws {
        let older = try recordImage("f")
        _ = try store.record(PasteboardItem(string: "text"))
        let newer = try recordImage("g")
        #expect(try store.itemsAwaitingRecognition(limit: 10) == [newer, older])
        try store.recordRecognition(id: newer, text: "", outcome: .excluded, languages: "eng")
        #expect(try store.itemsAwaitingRecognition(limit: 10) == [older])
        let progress = try store.recognitionProgress()
        #expect(progress.images == 2 && progress.done == 1 && progress.outcomes[.excluded] == 1)
        #expect(try store.recognizedText(id: newer) == nil)
    }

    @Test func secretAndExpiringItemsAreNotAllowed() throws {
        var asking = CaptureMetadata()
        asking.asksBeforePaste = true
        let secret = try store.record(PasteboardItem(data: Data("secret picture".utf8), type: .png), metadata: asking).id
        let expiring = try store.record(
            PasteboardItem(data: Data("expiring picture".utf8), type: .png),
            metadata: CaptureMetadata(expiresAt: Date().addingTimeInterval(3600))
        ).id
        let plain = try recordImage("h")
        #expect(try !store.allowsRecognition(id: secret))
        #expect(try !store.allowsRecognition(id: expiring))
        #expect(try store.allowsRecognition(id: plain))
    }
}
