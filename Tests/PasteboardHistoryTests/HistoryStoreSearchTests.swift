import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

@Suite struct HistoryStoreSearchTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    func search(_ text: String, isRegex: Bool = false, type: ContentType? = nil, limit: Int = 100, offset: Int = 0)
        throws -> [Int64]
    {
        try store.items(HistoryQuery(text: text, isRegex: isRegex, type: type, limit: limit, offset: offset)).map(\.id)
    }

    // MARK: - Indexed substring search

    @Test(arguments: ["quick", "QUICK", "Quick Brown", "ick bro", "brown fox", "fox.", "The"])
    func substringSearchIsCaseInsensitive(_ query: String) throws {
        let match = try store.record(PasteboardItem(string: "The quick brown fox.")).id
        try store.record(PasteboardItem(string: "a lazy dog"))
        #expect(try search(query) == [match])
    }

    @Test func searchFindsTextInTheMiddleOfLongLines() throws {
        let long = String(repeating: "lorem ipsum ", count: 500) + "needle" + String(repeating: " dolor", count: 500)
        let id = try store.record(PasteboardItem(string: long)).id
        #expect(try search("needle") == [id])
        #expect(try search("needles").isEmpty)
    }

    @Test func searchFindsLargeTextStoredAsAFile() throws {
        let large = "header marker " + String(repeating: "0123456789abcdef\n", count: 5_000)
        let id = try store.record(PasteboardItem(string: large)).id
        #expect(blobFiles(in: location).count == 1)
        #expect(try search("header marker") == [id])
        #expect(try store.item(id: id).preview.hasPrefix("header marker 0123456789abcdef"))
        #expect(try store.pasteboardItem(id: id).string == large)
    }

    @Test func itemHoldingEveryTrigramApartIsNotAMatch() throws {
        // "abcd" needs the trigrams "abc" and "bcd"; this text holds both, but not "abcd" itself.
        try store.record(PasteboardItem(string: "abc bcd"))
        let match = try store.record(PasteboardItem(string: "xabcdx")).id
        try store.record(PasteboardItem(string: "bcd then abc"))
        #expect(try search("abcd") == [match])
    }

    @Test func searchPagesPastManyCandidatesThatDoNotMatch() throws {
        let match = try store.record(PasteboardItem(string: "the real needle")).id
        for index in 0..<300 { try store.record(PasteboardItem(string: "nee \(index) edle needs")) }
        #expect(try search("needle", limit: 1) == [match])
        #expect(try search("needle", limit: 5, offset: 0) == [match])
        #expect(try search("needle", limit: 5, offset: 1).isEmpty)
    }

    @Test(arguments: [
        ("éco", "ÉCOLE"), ("ÉCO", "école"), ("straße", "STRAẞE und Weg"), ("日本語", "これは日本語です"),
    ])
    func nonASCIIQueriesAreCaseInsensitive(query: String, stored: String) throws {
        let id = try store.record(PasteboardItem(string: stored)).id
        try store.record(PasteboardItem(string: "plain ascii"))
        #expect(try search(query) == [id])
    }

    @Test func searchResultsAreNewestFirst() throws {
        let ids = try (0..<5).map { try store.record(PasteboardItem(string: "shared token \($0)")).id }
        #expect(try search("shared token") == ids.reversed())
    }

    @Test func searchFindsAnItemAfterADuplicateCopyMovedIt() throws {
        let moved = try store.record(PasteboardItem(string: "movable needle")).id
        let other = try store.record(PasteboardItem(string: "other needle")).id
        #expect(try search("needle") == [other, moved])

        let again = try store.record(PasteboardItem(string: "movable needle"))
        #expect(again.id == moved)
        #expect(try search("needle") == [moved, other])
        #expect(try search("movable") == [moved])
        // The index holds exactly one entry per live item: the old position was removed, not left behind.
        #expect(try indexMatchCount(location, phrase: "movable") == 1)
        #expect(try indexMatchCount(location, phrase: "needle") == 2)
    }

    @Test func searchFindsAMovedDuplicateOfAnHTMLOnlyItem() throws {
        let html = PasteboardItem(data: Data("<p>derived <b>needle</b> text</p>".utf8), type: .html)
        let id = try store.record(html).id
        try store.record(PasteboardItem(string: "newer"))
        try store.record(html)
        #expect(try search("needle") == [id])
        #expect(try indexMatchCount(location, phrase: "needle") == 1)
    }

    @Test func deletedItemsAreNotFound() throws {
        let gone = try store.record(PasteboardItem(string: "ephemeral secret")).id
        let kept = try store.record(PasteboardItem(string: "permanent secret")).id
        try store.delete(id: gone)
        #expect(try search("secret") == [kept])
        #expect(try search("ephemeral").isEmpty)
        #expect(try indexMatchCount(location, phrase: "ephemeral") == 0)
    }

    @Test func searchOffsetPagesThroughMatches() throws {
        let ids = try (0..<10).map { try store.record(PasteboardItem(string: "page item \($0)")).id }
        try store.record(PasteboardItem(string: "unrelated"))
        let newestFirst = Array(ids.reversed())
        #expect(try search("page item", limit: 4) == Array(newestFirst[0..<4]))
        #expect(try search("page item", limit: 4, offset: 4) == Array(newestFirst[4..<8]))
        #expect(try search("page item", limit: 4, offset: 8) == Array(newestFirst[8..<10]))
    }

    @Test func searchRespectsTheLimitWithManyMatches() throws {
        for index in 0..<500 { try store.record(PasteboardItem(string: "common phrase number \(index)")) }
        for index in 0..<20 { try store.record(PasteboardItem(string: "noise \(index)")) }
        let all = try store.items(HistoryQuery(text: "common phrase", limit: 1_000))
        #expect(all.count == 500)
        #expect(all.first?.preview == "common phrase number 499")
        #expect(all.last?.preview == "common phrase number 0")
        #expect(try search("common phrase", limit: 7).count == 7)
        #expect(try store.items(HistoryQuery(text: "common phrase", limit: 10, offset: 495)).count == 5)
        #expect(try store.items(HistoryQuery(text: "number 3", limit: 1_000)).count == 111)  // 3, 30–39, 300–399
    }

    @Test(arguments: ["say \"hi\"", "\"", "\"\"", "\"hi", "a\"b\"c"])
    func queriesWithDoubleQuotesAreLiteral(_ query: String) throws {
        let id = try store.record(PasteboardItem(string: "they say \"hi\" and a\"b\"c \"\"")).id
        try store.record(PasteboardItem(string: "they say hi"))
        #expect(try search(query) == [id])
    }

    @Test(arguments: ["AND", "foo OR", "NEAR(a b)", "col:", "*", "^start", "(paren"])
    func ftsSyntaxInQueriesIsLiteral(_ query: String) throws {
        let id = try store.record(PasteboardItem(string: "x AND foo OR NEAR(a b) col: * ^start (paren")).id
        try store.record(PasteboardItem(string: "nothing special"))
        #expect(try search(query) == [id])
    }

    @Test func searchCombinesWithATypeFilter() throws {
        let text = try store.record(PasteboardItem(string: "PNG image notes")).id
        let png = try store.record(pngItem(count: 2_000, seed: 2)).id
        let html = try store.record(htmlItem("<b>image gallery</b>", plain: "image gallery")).id
        #expect(try search("image", type: .image) == [png])
        #expect(try search("image", type: .html) == [html])
        #expect(try Set(search("image", type: .plainText)) == [text, html])
        #expect(try search("image", type: .pdf).isEmpty)
    }

    @Test func searchCombinesWithPinnedOnly() throws {
        let pinned = try store.record(PasteboardItem(string: "pinned needle")).id
        try store.record(PasteboardItem(string: "loose needle"))
        try store.setPinned(true, id: pinned)
        #expect(try store.items(HistoryQuery(text: "needle", pinnedOnly: true)).map(\.id) == [pinned])
        #expect(try store.items(HistoryQuery(text: "ne", pinnedOnly: true)).map(\.id) == [pinned])
        #expect(try store.items(HistoryQuery(text: "ne+dle", isRegex: true, pinnedOnly: true)).map(\.id) == [pinned])
    }

    @Test func invalidUTF8TextIsSearchableAroundTheBadBytes() throws {
        var bytes = Data("valid start ".utf8)
        bytes.append(contentsOf: [0xFF, 0xFE])
        bytes.append(contentsOf: Array(" valid end".utf8))
        let id = try store.record(PasteboardItem(data: bytes, type: .utf8PlainText)).id
        #expect(try search("valid start") == [id])
        #expect(try search("valid end") == [id])
        try store.delete(id: id)
        #expect(try indexMatchCount(location, phrase: "valid") == 0)
    }

    // MARK: - Short queries (scan)

    @Test(arguments: ["x", "X", "xy", "XY", "y"])
    func shortQueriesScan(_ query: String) throws {
        let match = try store.record(PasteboardItem(string: "abc xy def")).id
        try store.record(PasteboardItem(string: "nothing here"))
        #expect(try search(query) == [match])
    }

    @Test func shortQueriesFindTextAfterANulByte() throws {
        let id = try store.record(PasteboardItem(data: Data([0x61, 0x00, 0x71, 0x7A]), type: .utf8PlainText)).id
        try store.record(PasteboardItem(string: "none"))
        #expect(try search("qz") == [id])
    }

    @Test(arguments: [("é", "ÉCOLE"), ("É", "école"), ("ö", "ÖL"), ("日", "日本")])
    func shortNonASCIIQueriesAreCaseInsensitive(query: String, stored: String) throws {
        let id = try store.record(PasteboardItem(string: stored)).id
        try store.record(PasteboardItem(string: "plain"))
        #expect(try search(query) == [id])
    }

    @Test func shortQueriesRespectLimitAndOffset() throws {
        let ids = try (0..<10).map { try store.record(PasteboardItem(string: "q\($0)")).id }
        let newestFirst = Array(ids.reversed())
        #expect(try search("q", limit: 3) == Array(newestFirst[0..<3]))
        #expect(try search("q", limit: 3, offset: 8) == Array(newestFirst[8..<10]))
    }

    @Test func shortQueriesFindLargeTextStoredAsAFile() throws {
        let large = String(repeating: "abcdefgh", count: 10_000) + "Zq"
        let id = try store.record(PasteboardItem(string: large)).id
        #expect(blobFiles(in: location).count == 1)
        #expect(try search("zq") == [id])
    }

    @Test func shortQueryWithTypeFilter() throws {
        let html = try store.record(htmlItem("<b>ok</b>", plain: "ok")).id
        let plain = try store.record(PasteboardItem(string: "ok")).id
        #expect(try search("ok", type: .html) == [html])
        #expect(try search("ok") == [plain, html])
    }

    // MARK: - Regular expressions

    @Test(arguments: [
        ("^\\d{3}-\\d{4}$", true),
        ("555", true),
        ("\\bphone\\b", false),
        ("[0-9]+-[0-9]+", true),
        ("^5.*0$", true),
    ])
    func regexSearchMatches(pattern: String, matches: Bool) throws {
        let id = try store.record(PasteboardItem(string: "555-0100")).id
        try store.record(PasteboardItem(string: "telephone"))
        #expect(try search(pattern, isRegex: true) == (matches ? [id] : []))
    }

    @Test func regexSearchIsNewestFirstAndHonoursLimitAndOffset() throws {
        let ids = try (0..<6).map { try store.record(PasteboardItem(string: "ticket-\($0 * 11)")).id }
        try store.record(PasteboardItem(string: "ticket-none"))
        let newestFirst = Array(ids.reversed())
        #expect(try search("ticket-\\d+", isRegex: true) == newestFirst)
        #expect(try search("ticket-\\d+", isRegex: true, limit: 2, offset: 1) == Array(newestFirst[1..<3]))
    }

    @Test func regexSearchWithTypeFilter() throws {
        let html = try store.record(htmlItem("<b>id 42</b>", plain: "id 42")).id
        try store.record(PasteboardItem(string: "id 43"))
        #expect(try search("id \\d\\d", isRegex: true, type: .html) == [html])
    }

    @Test(arguments: ["(unclosed", "[a-", "*start", "a{2,1}"])
    func invalidRegexThrowsInvalidInput(_ pattern: String) throws {
        try store.record(PasteboardItem(string: "anything"))
        expectHistoryError(.invalidInput) { _ = try search(pattern, isRegex: true) }
    }

    @Test func regexQueryShorterThanATrigramIsStillARegex() throws {
        let digits = try store.record(PasteboardItem(string: "abc 7 def")).id
        try store.record(PasteboardItem(string: "no digits"))
        #expect(try search("\\d", isRegex: true) == [digits])
    }

    // MARK: - Scale

    @Test func searchOverTenThousandItemsStaysCorrect() throws {
        let count = 10_000
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        for index in 0..<count {
            let tag = index % 1_000 == 0 ? " milestone" : ""
            ids.append(try store.record(PasteboardItem(string: "entry \(index)\(tag)")).id)
        }
        #expect(try store.count() == count)
        #expect(Set(ids).count == count)

        let milestones = try store.items(HistoryQuery(text: "milestone", limit: 50))
        #expect(
            milestones.map(\.preview) == stride(from: 9_000, through: 0, by: -1_000).map { "entry \($0) milestone" })

        #expect(try store.items(HistoryQuery(text: "entry 4242", limit: 50)).map(\.preview) == ["entry 4242"])
        #expect(try search("entry 999", limit: 50).count == 11)  // 999 and 9990–9999
        #expect(try store.items(HistoryQuery(text: "entry", limit: 25, offset: 9_990)).count == 10)

        // Moving an old item to the top keeps the index consistent.
        let again = try store.record(PasteboardItem(string: "entry 17"))
        #expect(again.id == ids[17])
        #expect(try search("entry 17", limit: 1) == [ids[17]])
        #expect(try indexMatchCount(location, phrase: "entry") == 10_000)  // its old entry went

        #expect(try store.items(HistoryQuery(text: "9", limit: 3)).map(\.id) == [ids[9_999], ids[9_998], ids[9_997]])
    }
}
