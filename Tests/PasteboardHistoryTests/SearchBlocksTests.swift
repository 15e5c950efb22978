import Foundation
@testable import PasteboardHistory
import PasteboardModel
import Testing

/// One- and two-letter searches read only the blocks of 1,024 positions whose letters may match
/// (HistoryStore+SearchBlocks.swift): they must find exactly what reading every text finds, through every way items
/// come, move and go, and a deleted item's letters must not stay behind.
@Suite(.serialized) struct SearchBlocksTests {
    static let count = 6_000
    /// Letters of every kind: ASCII in both cases, accents, Greek, CJK, an emoji, digits and punctuation.
    static let alphabet = Array("abcdefghijklmnoprstuvwyABCDEFGHéÉèçñσΣ日本語😀0123456789 .,-")

    static func text(_ index: Int) -> String {
        var state = UInt64(index) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var scalars: [Character] = []
        for _ in 0..<(8 + index % 13) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            scalars.append(alphabet[Int(state >> 33) % alphabet.count])
        }
        // Rare pairs, each in a few items of one block or two.
        if index == 1_500 || index == 1_507 { scalars += Array("qz") }
        if index == 4_100 { scalars += Array("Xk") }
        if index % 997 == 0 { scalars += Array("wQ") }
        return String(scalars) + " #\(index)"
    }

    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
        try importTexts((0..<Self.count).map(Self.text), into: store)
        while try store.indexBacklog() > 0 {}
    }

    /// Every item's text, newest first.
    func allTexts() throws -> [String] {
        try store.items(HistoryQuery(limit: 1_000_000)).map(\.preview)
    }

    /// The texts a search finds through the store (both paths: `items` as `pb search`, `page` as the lists).
    func found(_ text: String, mode: HistoryFilter.Mode) throws -> (items: [String], page: [String]) {
        var query = HistoryQuery(text: text, limit: 1_000_000)
        query.isFuzzy = mode == .fuzzy
        let items = try store.items(query).map(\.preview)
        let page = try store.page(HistoryFilter(text: text, mode: mode), limit: 1_000_000).items.map(\.preview)
        return (items, page)
    }

    static let queries: [(String, HistoryFilter.Mode)] = [
        ("qz", .substring), ("QZ", .substring), ("xk", .substring), ("wq", .substring), ("zz", .substring),
        ("e", .substring), ("é", .substring), ("É", .substring), ("eC", .substring), ("σ", .substring),
        ("Σσ", .substring), ("日本", .substring), ("😀", .substring), ("7 ", .substring), (" #", .substring),
        ("q", .substring), ("x", .substring), ("qzk", .fuzzy), ("wq9", .fuzzy), ("日😀", .fuzzy),
    ]

    func expectEveryQueryFindsWhatReadingEverythingFinds(_ label: String) throws {
        let texts = try allTexts()
        for (query, mode) in Self.queries {
            let matcher = try SearchMatcher(query, mode: mode)
            let expected = texts.filter { matcher.matches($0) }
            let result = try found(query, mode: mode)
            #expect(result.items == expected, "\(label): items for \(query) (\(mode))")
            #expect(result.page == expected, "\(label): page for \(query) (\(mode))")
        }
    }

    @Test func shortSearchesFindExactlyWhatReadingEveryTextFinds() throws {
        try expectEveryQueryFindsWhatReadingEverythingFinds("imported")
        // Repeats move items to the top (their old block keeps its letters); new copies land in a new block.
        for index in [1_500, 4_100, 997, 12] { try store.record(PasteboardItem(string: Self.text(index))) }
        try store.record(PasteboardItem(string: "a new zz and qz copy"))
        try expectEveryQueryFindsWhatReadingEverythingFinds("after repeats and copies")
        // Deletes make their blocks unknown (read whole) until the letters are computed again.
        let victims = try store.items(HistoryQuery(text: "qz", limit: 10)).map(\.id)
        try store.delete(ids: victims)
        try expectEveryQueryFindsWhatReadingEverythingFinds("after deletes")
        #expect(try store.refreshSearchBlocks(limit: 1_000) > 0)
        try expectEveryQueryFindsWhatReadingEverythingFinds("after the blocks were computed again")
        // An import's backlog, not indexed yet, is read whole.
        let bulk = try HistoryImport(store: store)
        for index in 0..<2_000 { try bulk.add(PasteboardItem(string: "backlog \(index) qz"), metadata: CaptureMetadata()) }
        try bulk.commit()
        #expect(try store.hasSearchBacklog())
        try expectEveryQueryFindsWhatReadingEverythingFinds("with a backlog")
        while try store.indexBacklog() > 0 {}
        try expectEveryQueryFindsWhatReadingEverythingFinds("after indexing it")
    }

    @Test func aRarePairIsLookedForInItsBlocksAlone() throws {
        let matcher = try SearchMatcher("qz", mode: .substring)
        let bits = try #require(SearchGrams.required(by: matcher))
        let reads = try store.perform { try #require(try store.searchBlockFilter(bits: bits, low: 0, high: 1_000_000)) }
        let positions = try store.items(HistoryQuery(text: "qz", limit: 10)).map(\.position)
        #expect(positions.count == 2)
        let holding = Set(positions.map(HistoryStore.searchBlock))
        let lastBlock = HistoryStore.searchBlock(try #require(try store.items(HistoryQuery(limit: 1)).first?.position))
        let read = try (0...lastBlock).reversed().filter(reads)
        #expect(Set(read) == holding, "blocks read: \(read), holding the pair: \(holding)")
    }

    @Test func aDeletedItemsLettersDoNotStayBehind() throws {
        let secret = "Kq9!vj"
        try store.record(PasteboardItem(string: secret))
        let id = try #require(try store.items(HistoryQuery(limit: 1)).first?.id)
        let position = try #require(try store.items(HistoryQuery(limit: 1)).first?.position)
        let block = HistoryStore.searchBlock(position)
        let pair = SearchGrams.pair(SearchGrams.code("q"), SearchGrams.code("9"))
        func grams() throws -> SearchGrams? {
            try store.perform {
                try store.db.row("SELECT grams FROM search_blocks WHERE block = ?", block)?.data(0).flatMap(SearchGrams.init)
            }
        }
        #expect(try grams()?.contains(pair) == true)
        try store.delete(ids: [id])
        #expect(try grams() == nil, "the block's letters are unknown after the delete")
        try store.refreshSearchBlocks(limit: 1_000)
        let refreshed = try #require(try grams())
        #expect(!refreshed.contains(pair), "the deleted secret's pair of letters stayed")
        #expect(refreshed.contains(SearchGrams.pair(SearchGrams.code(" "), SearchGrams.code("#"))), "the others' are back")
    }

    @Test func theSearchIndexIsWrittenInLargePieces() throws {
        let settings = try store.perform {
            Dictionary(
                uniqueKeysWithValues: try store.db.rows("SELECT k, v FROM item_text_config").compactMap { row in
                    row.string("k").map { ($0, row.int("v") ?? -1) }
                })
        }
        #expect(settings["hashsize"] == 64 << 20)
        #expect(settings["automerge"] == 16)
    }
}

/// A store made before schema 9 has no letters for its blocks: they are read whole, and `refreshSearchBlocks` computes
/// them, newest first, until every block has its letters.
@Suite struct SearchBlocksBackfillTests {
    @Test func theBlocksOfAnOlderStoreAreComputedAndSearchStaysExactMeanwhile() throws {
        let temporary = try TemporaryDirectory()
        let store = try HistoryStore(location: temporary.storeLocation)
        try importTexts((0..<5_000).map(SearchBlocksTests.text), into: store)
        while try store.indexBacklog() > 0 {}
        // As schema 9 finds a store written before it: no letters, `since` above every block.
        try store.perform {
            try store.db.execute("DELETE FROM search_blocks; UPDATE search_blocks_since SET block = 1000 WHERE id = 1")
        }
        let texts = try store.items(HistoryQuery(limit: 100_000)).map(\.preview)
        func expectExact(_ label: String) throws {
            for query in ["qz", "xk", "wq", "é", "日本", "zz"] {
                let matcher = try SearchMatcher(query, mode: .substring)
                let expected = texts.filter { matcher.matches($0) }
                #expect(try store.items(HistoryQuery(text: query, limit: 100_000)).map(\.preview) == expected, "\(label): \(query)")
                #expect(try store.page(HistoryFilter(text: query), limit: 100_000).items.map(\.preview) == expected, "\(label): \(query)")
            }
        }
        try expectExact("before")
        #expect(try store.hasSearchBlockWork())
        var passes = 0
        while try store.hasSearchBlockWork() {
            #expect(try store.refreshSearchBlocks(limit: 2) > 0)
            passes += 1
            if passes == 2 { try expectExact("half way") }
        }
        #expect(passes >= 3)
        try expectExact("after")
        let since = try store.perform { try store.db.row("SELECT block FROM search_blocks_since")?.int(0) }
        let lowest = try #require(try store.items(HistoryQuery(limit: 100_000)).last?.position)
        #expect(since == HistoryStore.searchBlock(lowest))
        // The rare pair is now looked for in its own blocks alone.
        let bits = try #require(SearchGrams.required(by: try SearchMatcher("qz", mode: .substring)))
        let reads = try store.perform { try #require(try store.searchBlockFilter(bits: bits, low: 0, high: 1_000_000)) }
        let holding = Set(try store.items(HistoryQuery(text: "qz", limit: 10)).map { HistoryStore.searchBlock($0.position) })
        let top = HistoryStore.searchBlock(try #require(try store.items(HistoryQuery(limit: 1)).first?.position))
        #expect(Set(try (0...top).reversed().filter(reads)) == holding)
    }

    /// Grams are stored without their trailing zero bytes: the fullest a block can be (every letter and pair) is 2,032
    /// bytes, read back as the same bits, and two such rows share a page of the store (one of 2,048 bytes took a
    /// page to itself, half of it empty).
    @Test func fullGramsTakeHalfAPage() throws {
        let temporary = try TemporaryDirectory()
        let store = try HistoryStore(location: temporary.storeLocation)
        var full = SearchGrams()
        full.add(String(String.UnicodeScalarView((1..<127).compactMap(Unicode.Scalar.init))))
        for first in 0..<127 {
            for second in 0..<127 {
                let text = String(String.UnicodeScalarView([first, second].compactMap { Unicode.Scalar(UInt8($0)) }))
                full.add(text)
            }
        }
        #expect(full.data.count <= 2_032)
        #expect(SearchGrams(full.data) == full)
        #expect(SearchGrams(Data()) == SearchGrams())
        #expect(SearchGrams(Data(count: SearchGrams.byteCount + 1)) == nil)
        let pages = try store.perform { () throws -> (Int64, Int64) in
            let before = try #require(try store.db.row("PRAGMA page_count")?.int(0))
            for block in 0..<200 {
                try store.db.run("INSERT INTO search_blocks(block, grams) VALUES (?, ?)", 1_000_000 + block, full.data)
            }
            return (before, try #require(try store.db.row("PRAGMA page_count")?.int(0)))
        }
        #expect(pages.1 - pages.0 <= 110, "200 blocks of full grams took \(pages.1 - pages.0) pages")
    }
}
