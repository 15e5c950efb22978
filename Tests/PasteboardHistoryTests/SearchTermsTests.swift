import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// The search index holds the trigrams of each text's words (`SearchTerms`, schema 13): what a document and a query
/// are, that every search still finds exactly what a scan finds (queries across spaces, queries with no term), and
/// that a store of schema 12 is indexed again.
@Suite struct SearchTermsTests {
    @Test func aDocumentIsTheFoldedTrigramsThatNeitherStartNorEndWithABreak() {
        #expect(SearchTerms.document("Hello World") == "hel ell llo x6f2077 wor orl rld")
        #expect(SearchTerms.document("to be or not") == "x6f2062 x65206f x72206e not")
        #expect(SearchTerms.document("ab\tcd\nefg\r\nhij") == "x620963 x640a65 efg hij")
        #expect(SearchTerms.document("a  b") == "")  // two breaks: no trigram across them
        #expect(SearchTerms.document("Café") == "caf afe")
        #expect(SearchTerms.document("e\u{301}te\u{301}s") == "ete tes")  // combining accents fold away
        #expect(SearchTerms.document("a://b") == "x613a2f x3a2f2f x2f2f62")
        #expect(SearchTerms.document("日本語") == "xe697a5e69cace8aa9e")
        #expect(SearchTerms.document("x86 AND") == "x86 x362061 and")
        #expect(SearchTerms.document("aaaa") == "aaa aaa")  // a short text's repeats stay (the index merges them)
        #expect(SearchTerms.document("") == "")
        // Above `distinctAbove` scalars each term is written once.
        let long = String(repeating: "abcabc ", count: 400)
        #expect(SearchTerms.document(long) == "abc bca cab x632061")
    }

    @Test func aQueryAsksForThreeTermsOfEachWordAndEveryBreakBetweenTwo() {
        #expect(
            SearchTerms.query("hello world")
                == #""hel" AND "ell" AND "llo" AND "wor" AND "orl" AND "rld" AND "x6f2077""#)
        #expect(SearchTerms.query("abab") == #""aba" AND "bab""#)
        #expect(SearchTerms.query("to be") == #""x6f2062""#)
        #expect(SearchTerms.query("a b") == #""x612062""#)
        #expect(SearchTerms.query("ab") == nil)
        #expect(SearchTerms.query("ab ") == nil)  // no term: the search reads the texts
        #expect(SearchTerms.query("a  b") == nil)
        #expect(SearchTerms.query("not") == #""not""#)
        // A longer word: its first, middle and last terms.
        #expect(SearchTerms.query("abcdefgh") == #""abc" AND "def" AND "fgh""#)
        #expect(SearchTerms.query("to abcdefgh") == #""abc" AND "def" AND "fgh" AND "x6f2061""#)
        // A term asked for twice is asked for once.
        #expect(SearchTerms.query("aaaa aaa\tb") == #""aaa" AND "x612061" AND "x610962""#)
        #expect(
            SearchTerms.query("http://a.io/x http://b.io/x")
                == #""htt" AND "x2f2f61" AND "x6f2f78" AND "x2f2f62" AND "x782068""#)
        let long = (100..<200).map(String.init).joined(separator: " ")  // a hundred words of one term each
        let terms = SearchTerms.query(long)?.components(separatedBy: " AND ") ?? []
        #expect(terms.count == SearchTerms.queryTermLimit)
        #expect(terms.first == #""100""#)
    }

    /// Random texts of short words (spaces, tabs, line breaks, accents, CJK), and queries cut out of them or made up:
    /// both search paths find exactly the items a scan of the folded texts finds.
    @Test func everySearchFindsWhatAScanFinds() throws {
        let temporary = try TemporaryDirectory()
        let store = try HistoryStore(location: temporary.storeLocation)
        var random = SplitMix(state: 13)
        let letters = ["a", "b", "c", "É", "é", "日", "1"]
        let breaks = [" ", " ", " ", "\t", "\n", "  "]
        var texts: [Int64: String] = [:]
        for _ in 0..<300 {
            var text = ""
            for word in 0..<random.next(below: 7) + 1 {
                if word > 0 { text += breaks[random.next(below: breaks.count)] }
                for _ in 0..<random.next(below: 5) + 1 { text += letters[random.next(below: letters.count)] }
            }
            let id = try store.record(PasteboardItem(string: text)).id
            texts[id] = text
        }
        let all = Array(texts.values)
        var queries = ["to be", "a b", "b c", "abc", "é a", "日 1", "aaa", "c\ta", "ab ", " ab", "zzz", "1 1"]
        for _ in 0..<150 {
            let scalars = Array(all[random.next(below: all.count)].unicodeScalars)
            let length = min(scalars.count, random.next(below: 6) + 1)
            let start = random.next(below: scalars.count - length + 1)
            var query = ""
            query.unicodeScalars.append(contentsOf: scalars[start..<start + length])
            queries.append(query)
        }
        var indexed = 0
        for query in queries {
            let needle = Array(SearchFolding.fold(query).unicodeScalars)
            guard !needle.isEmpty else { continue }
            let expected = Set(texts.filter { contains(Array(SearchFolding.fold($0.value).unicodeScalars), needle) }.keys)
            let listed = Set(try store.items(HistoryQuery(text: query, limit: 1000)).map(\.id))
            let paged = Set(try store.page(HistoryFilter(text: query), limit: 1000).items.map(\.id))
            #expect(listed == expected, "pb search \(query.debugDescription)")
            #expect(paged == expected, "a page of \(query.debugDescription)")
            guard try SearchMatcher(query, mode: .substring).usesIndex else { continue }
            indexed += 1
            // Small windows and pages, newest first, as the whole list has them (candidates read a page at a time,
            // pages sized by the share that matched).
            let whole = try store.items(HistoryQuery(text: query, limit: 1000)).map(\.id)
            for offset in stride(from: 0, to: whole.count, by: 7) {
                let window = try store.items(HistoryQuery(text: query, limit: 3, offset: offset)).map(\.id)
                #expect(window == Array(whole[offset..<min(offset + 3, whole.count)]), "\(query.debugDescription) at \(offset)")
            }
            var chained: [Int64] = []
            var below: Int64?
            repeat {
                let page = try store.page(HistoryFilter(text: query), below: below, limit: 4)
                chained += page.items.map(\.id)
                below = page.next
            } while below != nil
            #expect(chained == whole, "pages of \(query.debugDescription)")
        }
        #expect(indexed >= 40, "the index answered \(indexed) of the queries")
    }

    @Test func candidatePagesFollowTheShareThatMatched() {
        #expect(HistoryStore.nextCandidatePage(after: 100, examined: 100, matched: 0, wanted: 50) == 400)
        #expect(HistoryStore.nextCandidatePage(after: 2048, examined: 2148, matched: 0, wanted: 50) == 4096)
        #expect(HistoryStore.nextCandidatePage(after: 100, examined: 100, matched: 5, wanted: 45) == 1126)
        #expect(HistoryStore.nextCandidatePage(after: 100, examined: 100, matched: 99, wanted: 1) == 64)
        #expect(HistoryStore.nextCandidatePage(after: 100, examined: 100, matched: 1, wanted: 500) == 4096)
    }

    /// A store of schema 12 has FTS5's trigram tokenizer: schema 13 makes the index again with the words' trigrams,
    /// every item becomes the backlog (searched exactly meanwhile), and the catch-up indexes them.
    @Test func aStoreOfSchemaTwelveIsIndexedAgain() throws {
        let temporary = try TemporaryDirectory()
        let location = temporary.storeLocation
        var ids: [String: Int64] = [:]
        do {
            let store = try HistoryStore(location: location)
            for text in ["to be or not", "a b c", "Hello World", "hello there world"] {
                ids[text] = try store.record(PasteboardItem(string: text)).id
            }
        }
        do {
            // What schema 12 made and wrote: every three characters of the texts.
            let db = try rawConnection(location)
            try db.execute(
                """
                DROP TABLE item_text;
                CREATE VIRTUAL TABLE item_text USING fts5(
                    text, content='', tokenize='trigram', detail='none', columnsize=0);
                INSERT INTO item_text(rowid, text) SELECT i.position, CAST(b.data AS TEXT) FROM items i
                    JOIN blobs b ON b.id = i.text_blob;
                PRAGMA user_version = 12;
                """)
        }
        let reopened = try HistoryStore(location: location)
        #expect(try reopened.stats().schemaVersion == 15)
        let sql = try rawConnection(location).row("SELECT sql FROM sqlite_schema WHERE name = 'item_text'")?.string("sql")
        #expect(sql?.contains("tokenize='unicode61'") == true, "\(sql ?? "no item_text")")
        #expect(try reopened.unindexedCount() == 4)
        func found(_ text: String) throws -> Set<Int64> {
            let listed = Set(try reopened.items(HistoryQuery(text: text)).map(\.id))
            #expect(Set(try reopened.page(HistoryFilter(text: text), limit: 10).items.map(\.id)) == listed)
            return listed
        }
        #expect(try found("hello world") == [ids["Hello World"]!])
        #expect(try found("to be") == [ids["to be or not"]!])
        while try reopened.indexBacklog() > 0 {}
        #expect(try reopened.unindexedCount() == 0)
        #expect(try indexMatchCount(location, phrase: "hello world") == 1)
        #expect(try indexMatchCount(location, phrase: "hello") == 2)
        #expect(try indexMatchCount(location, phrase: "not") == 1)
        #expect(try found("hello world") == [ids["Hello World"]!])
        #expect(try found("o w") == [ids["Hello World"]!])
        #expect(try found("a b") == [ids["a b c"]!])
        #expect(try found("to be") == [ids["to be or not"]!])
        try reopened.delete(id: ids["Hello World"]!)
        #expect(try indexMatchCount(location, phrase: "hello world") == 0)
        #expect(try indexMatchCount(location, phrase: "hello") == 1)
        #expect(try found("hello world").isEmpty)
    }

    private func contains(_ haystack: [Unicode.Scalar], _ needle: [Unicode.Scalar]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return true
        }
        return false
    }
}

/// A seeded generator: the same texts and queries every run.
private struct SplitMix {
    var state: UInt64

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
