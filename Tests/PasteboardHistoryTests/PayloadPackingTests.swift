import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Schema 11: payloads kept in the database are packed with a dictionary the store learns from its own texts, and
/// every way of reading them (items, search, regex, export, the payload check) sees the bytes that were copied.
@Suite struct PayloadPackingTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// Texts of shared words, each with a word of its own (`unique<n>`) and its number.
    static func texts(_ count: Int, from start: Int = 0) -> [String] {
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
                     "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]
        return (start..<start + count).map { n in
            let body = (0..<12).map { words[(n &* 7 &+ $0 &* 13) % words.count] }.joined(separator: " ")
            return "\(body), unique\(n)x: #\(n) — ünïcödé"
        }
    }

    func packedRows() throws -> (packed: Int64, dictionaries: Int64) {
        let db = try rawConnection(location)
        defer { _ = Result { try db.close() } }
        // Payload rows and the texts items keep in their rows (InlineText.swift).
        let packed = try db.row(
            "SELECT (SELECT count(*) FROM blobs WHERE packing IS NOT NULL) "
                + "+ (SELECT count(*) FROM items WHERE text_packing IS NOT NULL)")?.int(0) ?? -1
        let dictionaries = try db.row("SELECT count(*) FROM packings")?.int(0) ?? -1
        return (packed, dictionaries)
    }

    @Test func textsPastTheThresholdArePackedAndEveryWayOfReadingSeesTheirBytes() throws {
        let texts = Self.texts(5_000)
        try importTexts(texts, into: store)
        // And one by one, as the daemon records copies.
        let recorded = Self.texts(50, from: 5_000)
        var recordedIDs: [Int64] = []
        for text in recorded { recordedIDs.append(try store.record(PasteboardItem(string: text)).id) }
        let (packed, dictionaries) = try packedRows()
        #expect(dictionaries == 1)
        #expect(packed > 800, "only \(packed) payloads packed")
        // The packed rows are smaller than the texts.
        let db = try rawConnection(location)
        let sizes = try #require(try db.row(
            "SELECT sum(length(text_data)) AS stored, sum(size) AS size FROM items WHERE text_packing IS NOT NULL"))
        try db.close()
        #expect((sizes.int("stored") ?? 0) * 10 < (sizes.int("size") ?? 0) * 8, "\(sizes)")

        // Every item's text, byte for byte: the newest (packed) and the oldest (not).
        let all = texts + recorded
        for (offset, id) in ([1, 2, 3, 4_999, 5_000] + recordedIDs).enumerated() {
            let expected = id <= 5_000 ? all[Int(id) - 1] : recorded[offset - 5]
            #expect(try store.pasteboardItem(id: id).string == expected)
        }
        // Search while the import is still the backlog, then indexed: the same items.
        func found(_ query: HistoryQuery) throws -> Set<Int64> { Set(try store.items(query).map(\.id)) }
        let unique = try found(HistoryQuery(text: "unique4321x", limit: 10))
        let regex = try found(HistoryQuery(text: "unique49[0-9]7x", isRegex: true, limit: 50))
        let accented = try found(HistoryQuery(text: "unicode", limit: 6_000))
        while try store.indexBacklog() > 0 {}
        let uniqueIndexed = try found(HistoryQuery(text: "unique4321x", limit: 10))
        let regexIndexed = try found(HistoryQuery(text: "unique49[0-9]7x", isRegex: true, limit: 50))
        let accentedIndexed = try found(HistoryQuery(text: "unicode", limit: 6_000))
        #expect(unique == [4_322] && uniqueIndexed == unique)
        #expect(regex.count == 10 && regexIndexed == regex)
        #expect(accented.count == 5_050 && accentedIndexed == accented)
        #expect(try store.items(HistoryQuery(text: "unique5049x", limit: 5)).first?.preview.hasPrefix(recorded[49].prefix(20)) == true)

        // Export writes the texts themselves.
        var exported: [String] = []
        try store.exportItems { result in
            if case .success(let item) = result, let data = item.representations.first?.bytes {
                exported.append(String(decoding: data, as: UTF8.self))
            }
        }
        #expect(exported == all)
        #expect(try store.checkPayloads().problems.isEmpty)
    }

    @Test func aDamagedPackedPayloadIsReportedAndNeverHandedOut() throws {
        try importTexts(Self.texts(4_200), into: store)
        let good = try store.pasteboardItem(id: 4_199).string
        do {
            let db = try rawConnection(location)
            let item = try #require(try db.row("SELECT text_packing FROM items WHERE id = 4200"))
            #expect(item.int("text_packing") != nil)
            // One byte of the frame changed, its length kept.
            try db.run("UPDATE items SET text_data = substr(text_data, 1, 10) || X'FF' || substr(text_data, 12) WHERE id = 4200")
            #expect(db.changes == 1)
            try db.close()
        }
        let error = #expect(throws: HistoryError.self) { _ = try store.pasteboardItem(id: 4_200) }
        #expect(error?.code == .damagedPayload)
        #expect(error?.itemID == 4_200)
        #expect(try store.pasteboardItem(id: 4_199).string == good)
        let check = try store.checkPayloads()
        #expect(check.problems.map(\.kind) == [.damaged])
        #expect(check.problems.first?.itemIDs == [4_200])
    }

    /// What the dictionary holds: words many texts share and punctuation, never a word of one item.
    @Test func theDictionaryHoldsNoWordThatFewTextsHold() throws {
        var texts = Self.texts(4_200)
        // A secret in one text, another in seven: both too few.
        texts[4_100] += " hunter2secretword"
        for n in 4_110..<4_117 { texts[n] += " sevenfoldsecret" }
        try importTexts(texts, into: store)
        let db = try rawConnection(location)
        let dictionary = try #require(try db.row("SELECT dictionary FROM packings")?.data("dictionary"))
        try db.close()
        func holds(_ word: String) -> Bool { dictionary.range(of: Data(word.utf8)) != nil }
        #expect(!holds("hunter2"))
        #expect(!holds("sevenfold"))
        #expect(!holds("unique41"))
        #expect(holds("foxtrot"))
    }

    @Test func sharedWordsKeepOnlyWordsOfEnoughTexts() {
        let texts = ["a cat, a dog!", "a cat", "a dog; ok", "zebra"].map { Data($0.utf8) }
        let kept = PayloadPacking.sharedWords(of: texts, minimumTexts: 2).map { String(decoding: $0, as: UTF8.self) }
        #expect(kept == ["a cat, a dog!", "a cat", "a dog; "])
    }

    /// Deleting every item deletes the dictionary too; the store learns a new one when it has payloads enough again.
    @Test func theDictionaryGoesWithTheLastPayloadPackedWithIt() throws {
        try importTexts(Self.texts(4_200), into: store)
        #expect(try packedRows().dictionaries == 1)
        try store.clear()
        #expect(try packedRows() == (0, 0))
        try importTexts(Self.texts(4_200, from: 10_000), into: store)
        #expect(try packedRows().dictionaries == 1)
        #expect(try store.pasteboardItem(id: try store.items(limit: 1)[0].id).string == Self.texts(1, from: 14_199)[0])
    }

    /// Another process that cleared the history and learned a new dictionary meanwhile: the new one never takes the
    /// old one's number, which this store still holds an unpacker for.
    @Test func aNewDictionaryNeverTakesTheNumberOfOneThatWent() throws {
        try importTexts(Self.texts(4_200), into: store)
        #expect(try store.pasteboardItem(id: 4_200).string == Self.texts(1, from: 4_199)[0])
        let other = try HistoryStore(location: location)
        try other.clear()
        try importTexts(Self.texts(4_200, from: 20_000), into: other)
        let db = try rawConnection(location)
        #expect(try db.rows("SELECT id FROM packings").compactMap { $0.int("id") } == [2])
        try db.close()
        let newest = try store.items(limit: 1)[0].id
        #expect(try store.pasteboardItem(id: newest).string == Self.texts(1, from: 24_199)[0])
        #expect(try store.checkPayloads().problems.isEmpty)
    }

    /// Migration 11 runs again over what it made (a store set back by hand, as the package's upgrade test does).
    @Test func schemaElevenRunsAgainOverItsOwnColumn() throws {
        try importTexts(Self.texts(4_200), into: store)
        let packed = try packedRows()
        #expect(packed.packed > 0)
        do {
            let db = try rawConnection(location)
            try db.execute("PRAGMA user_version = 10")
            try db.close()
        }
        let reopened = try HistoryStore(location: location)
        #expect(try reopened.stats().schemaVersion == 15)
        #expect(try packedRows() == packed)
        #expect(try reopened.pasteboardItem(id: 4_200).string == Self.texts(1, from: 4_199)[0])
    }

    /// A store of schema 10 keeps its rows as they are, reads them as before, and packs what comes after.
    @Test func aStoreOfSchemaTenKeepsItsRowsAndPacksNewOnes() throws {
        try importTexts(Self.texts(4_000), into: store)
        #expect(try packedRows() == (0, 0))
        do {
            let db = try rawConnection(location)
            try db.execute((try undoingSchema14(db)) + "PRAGMA user_version = 10")
            try db.close()
        }
        let reopened = try HistoryStore(location: location)
        #expect(try reopened.stats().schemaVersion == 15)
        #expect(try reopened.pasteboardItem(id: 17).string == Self.texts(1, from: 16)[0])
        try importTexts(Self.texts(300, from: 4_000), into: reopened)
        #expect(try packedRows().packed > 0)
        #expect(try reopened.pasteboardItem(id: 4_300).string == Self.texts(1, from: 4_299)[0])
        #expect(try reopened.checkPayloads().problems.isEmpty)
    }

    /// `pb prune --vacuum`'s packing of payloads stored as they are: nothing without a dictionary, then every such
    /// payload that shrinks, counted for its dictionary, each read back as it was copied; a second run packs nothing.
    @Test func payloadsStoredUnpackedArePackedLater() throws {
        let texts = Self.texts(4_000)
        try importTexts(texts, into: store)
        let nothing = try store.packStoredPayloads()
        #expect(nothing.packed == 0 && nothing.hasNoDictionary, "4,000 payloads are too few to learn a dictionary")
        let later = Self.texts(300, from: 4_000)
        try importTexts(later, into: store)
        let before = try packedRows()
        #expect(before.dictionaries == 1 && before.packed < 300)
        let unique = Set(try store.items(HistoryQuery(text: "unique1234x", limit: 5)).map(\.id))
        let result = try store.packStoredPayloads(batch: 1_000)
        #expect(!result.hasNoDictionary)
        #expect(result.packed >= 4_000, "only \(result.packed) packed")
        #expect(result.bytesAfter * 10 < result.bytesBefore * 8, "\(result)")
        let after = try packedRows()
        #expect(after.packed == before.packed + Int64(result.packed) && after.dictionaries == 1)
        let db = try rawConnection(location)
        #expect(try db.row("SELECT uses FROM packing_uses")?.int("uses") == after.packed)
        try db.close()
        #expect(try store.packStoredPayloads().packed == 0, "a second run finds nothing left to pack")
        // Every text reads back as it was copied, and search finds what it found before.
        let all = texts + later
        var exported: [String] = []
        try store.exportItems { result in
            if case .success(let item) = result, let data = item.representations.first?.bytes {
                exported.append(String(decoding: data, as: UTF8.self))
            }
        }
        // (Both imports' items share their dates: the export interleaves them.)
        #expect(exported.count == all.count && exported.sorted() == all.sorted())
        #expect(try store.checkPayloads().problems.isEmpty)
        #expect(Set(try store.items(HistoryQuery(text: "unique1234x", limit: 5)).map(\.id)) == unique && unique.count == 1)
        // The dictionary still goes with the last payload packed with it.
        try store.clear()
        #expect(try packedRows() == (0, 0))
    }
}
