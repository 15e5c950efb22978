import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

/// A search no index narrows is shared between readers on a big history (HistoryStore+Scan.swift): its pages must be
/// exactly those of one reader going through the items newest first, across slice boundaries and position gaps.
@Suite(.serialized) struct ParallelScanTests {
    /// Above the size at which the scan is shared (50,000 positions).
    static let count = 64_000
    static let marked = Set(stride(from: 17, to: count, by: 4_001))

    static func text(_ index: Int) -> String {
        marked.contains(index) ? "filler \(index) b7?" : "filler \(index) words"
    }

    let temporary: TemporaryDirectory
    let store: HistoryStore
    /// The texts newest first, as one reader would meet them.
    let newestFirst: [String]

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
        try importTexts((0..<Self.count).map(Self.text), into: store)
        // Copied again: these move to the top, leaving gaps in the positions below.
        var order = (0..<Self.count).reversed().map(Self.text)
        for index in [4_018, 20, 40_021] {
            try store.record(PasteboardItem(string: Self.text(index)))
            order.removeAll { $0 == Self.text(index) }
            order.insert(Self.text(index), at: 0)
        }
        newestFirst = order
    }

    func search(_ text: String, regex: Bool = true, limit: Int, offset: Int = 0) throws -> [String] {
        try store.items(HistoryQuery(text: text, isRegex: regex, limit: limit, offset: offset)).map(\.preview)
    }

    @Test func pagesOfARegexWithoutALiteralAreThoseOfOneReader() throws {
        let pattern = "[a-c][0-9][!?]"
        let matcher = try SearchMatcher(pattern, mode: .regex)
        let expected = newestFirst.filter { matcher.matches($0) }
        #expect(expected.count == Self.marked.count)
        #expect(try search(pattern, limit: 1_000) == expected)
        #expect(try search(pattern, limit: 3) == Array(expected.prefix(3)))
        #expect(try search(pattern, limit: 4, offset: 5) == Array(expected[5..<9]))
        #expect(try search(pattern, limit: 10, offset: expected.count - 2) == Array(expected.suffix(2)))
        #expect(try search("[a-c][0-9][#]", limit: 10).isEmpty)
    }

    @Test func theBacklogOfAnImportIsScannedTheSameWayBeforeAndAfterIndexing() throws {
        #expect(try store.unindexedCount() > 0)
        let expected = newestFirst.filter { $0.hasSuffix(" b7?") }
        #expect(try search("b7?", regex: false, limit: 1_000) == expected)
        #expect(try search("b7?", regex: false, limit: 2, offset: 1) == Array(expected[1..<3]))
        while try store.indexBacklog() > 0 {}
        #expect(try store.unindexedCount() == 0)
        #expect(try search("b7?", regex: false, limit: 1_000) == expected)
        #expect(try search("[a-c][0-9][!?]", limit: 1_000) == expected)
    }
}
