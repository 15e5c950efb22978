import Foundation
import PasteboardHistory
import PasteboardModel
import PasteboardTestSupport
import SQLiteSupport
import Testing

/// Copies of the same content whose bytes differ in per-copy noise (LibreOffice's): one item, with the newest bytes,
/// and nothing stored lost or left behind.
@Suite struct HistoryStoreVolatileCopyTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// Every payload is referenced exactly as often as its count says, nothing refers to a payload that is gone, and
    /// the blob directory holds exactly the payloads stored in files.
    func expectConsistentPayloads(_ location: StoreLocation, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let db = try rawConnection(location)
        let miscounted = try db.rows(
            """
            SELECT b.id, b.refcount, (SELECT count(*) FROM representations r WHERE r.blob_id = b.id)
                + (SELECT count(*) FROM items i WHERE i.text_blob = b.id)
                + (SELECT count(*) FROM pasteboard_items p WHERE p.blob_id = b.id) AS uses
            FROM blobs b WHERE b.refcount != uses OR uses = 0
            """)
        #expect(miscounted.isEmpty, "\(miscounted.count) payloads with a wrong count", sourceLocation: sourceLocation)
        let dangling = try db.row(
            """
            SELECT (SELECT count(*) FROM representations r LEFT JOIN blobs b ON b.id = r.blob_id WHERE b.id IS NULL)
                + (SELECT count(*) FROM items i LEFT JOIN blobs b ON b.id = i.text_blob
                   WHERE i.text_blob IS NOT NULL AND b.id IS NULL) AS n
            """)?.int("n")
        #expect(dangling == 0, sourceLocation: sourceLocation)
        let inFiles = try db.rows("SELECT hash FROM blobs WHERE data IS NULL").compactMap { $0.data("hash") }
        let names = Set(blobFiles(in: location).map(\.lastPathComponent))
        let expected = Set(inFiles.map { hash in hash.map { String(format: "%02x", $0) }.joined() })
        #expect(names == expected, "payload files", sourceLocation: sourceLocation)
        #expect(try db.row("PRAGMA integrity_check")?.string("integrity_check") == "ok", sourceLocation: sourceLocation)
    }

    /// How many payload rows hold exactly `bytes`.
    func payloadCount(_ bytes: Data) throws -> Int64 {
        let db = try rawConnection(location)
        return try db.row("SELECT count(*) AS n FROM blobs WHERE data = ?", bytes)?.int("n") ?? -1
    }

    // MARK: - Recording

    @Test func writerCopiedThreeTimesIsOneItemWithTheNewestBytes() throws {
        var ids: [Int64] = []
        for number in 1...3 {
            let result = try store.record(
                try LibreOfficeSamples.writerItem(number),
                metadata: CaptureMetadata(source: "soffice", date: now.addingTimeInterval(Double(number))))
            #expect(result.isNew == (number == 1))
            ids.append(result.id)
        }
        #expect(Set(ids).count == 1)
        #expect(try store.count() == 1)
        let item = try store.item(id: ids[0])
        #expect(item.copyCount == 3)
        #expect(item.lastCopied == now.addingTimeInterval(3))
        #expect(item.created == now.addingTimeInterval(1))
        #expect(try store.pasteboardItem(id: ids[0]) == (try LibreOfficeSamples.writerItem(3)))
        #expect(item.size == (try LibreOfficeSamples.writerItem(3)).byteCount)
        // The older bytes are gone from the store, the ones the copies share are kept once.
        for old in ["writer-1.zip", "writer-2.zip", "writer-1.rtf", "writer-2.html", "writer-1.link"] {
            #expect(try payloadCount(try LibreOfficeSamples.bytes(old)) == 0, "\(old)")
        }
        #expect(try payloadCount(try LibreOfficeSamples.bytes("writer-1-3.txt")) == 1)
        #expect(try store.stats().blobCount == 6)
        try expectConsistentPayloads(location)
        #expect(try store.checkPayloads().problems.isEmpty)
    }

    @Test func anEditedSelectionStaysAnItemOfItsOwn() throws {
        let first = try store.record(try LibreOfficeSamples.writerItem(1))
        let edited = try store.record(try LibreOfficeSamples.writerItem(4))
        let again = try store.record(try LibreOfficeSamples.writerItem(2))
        #expect(edited.isNew && edited.id != first.id)
        #expect(!again.isNew && again.id == first.id)
        #expect(try store.count() == 2)
        #expect(try store.pasteboardItem(id: edited.id) == (try LibreOfficeSamples.writerItem(4)))
        #expect(try store.pasteboardItem(id: first.id) == (try LibreOfficeSamples.writerItem(2)))
        #expect(try store.item(id: edited.id).copyCount == 1)
        try expectConsistentPayloads(location)
    }

    @Test func calcCopiedTwiceIsOneItem() throws {
        let first = try store.record(try LibreOfficeSamples.calcItem(1))
        let second = try store.record(try LibreOfficeSamples.calcItem(2))
        #expect(second.id == first.id && !second.isNew)
        #expect(try store.item(id: first.id).copyCount == 2)
        #expect(try store.pasteboardItem(id: first.id) == (try LibreOfficeSamples.calcItem(2)))
        #expect(try payloadCount(try LibreOfficeSamples.bytes("calc-1.zip")) == 0)
        try expectConsistentPayloads(location)
    }

    @Test func anOrdinaryRepeatChangesNothingButItsPlace() throws {
        let first = try store.record(htmlItem("<b>same</b>", plain: "same"), metadata: CaptureMetadata(date: now))
        try store.record(PasteboardItem(string: "between"), metadata: CaptureMetadata(date: now.addingTimeInterval(1)))
        let before = try rawConnection(location).rows("SELECT id, refcount FROM blobs ORDER BY id").map {
            "\($0.values)"
        }
        let again = try store.record(
            htmlItem("<b>same</b>", plain: "same"), metadata: CaptureMetadata(date: now.addingTimeInterval(2)))
        #expect(again.id == first.id && !again.isNew)
        #expect(try store.items(limit: 1).first?.id == first.id)
        #expect(try store.item(id: first.id).copyCount == 2)
        #expect(
            try rawConnection(location).rows("SELECT id, refcount FROM blobs ORDER BY id").map { "\($0.values)" }
                == before)
        #expect(!store.hasUnpurgedDeletions)
    }

    @Test func anOlderCopyDoesNotReplaceNewerBytes() throws {
        let newer = try store.record(try LibreOfficeSamples.writerItem(3), metadata: CaptureMetadata(date: now))
        let older = try store.record(
            try LibreOfficeSamples.writerItem(1), metadata: CaptureMetadata(date: now.addingTimeInterval(-60)))
        #expect(older.id == newer.id)
        #expect(try store.pasteboardItem(id: newer.id) == (try LibreOfficeSamples.writerItem(3)))
        try expectConsistentPayloads(location)
    }

    @Test func payloadsInFilesAreReplacedAndTheOldFileRemoved() throws {
        // LibreOffice's own copy of a selection with a large picture: a package stored as a file, whose member times
        // (and so bytes) differ from one copy to the next.
        let picture = pseudoRandomBytes(count: 120_000, seed: 5)
        let first = try item(packageWith: picture, minute: 1)
        let second = try item(packageWith: picture, minute: 2)
        let one = try store.record(first)
        #expect(blobFiles(in: location).count == 1)
        let two = try store.record(second)
        #expect(two.id == one.id && !two.isNew)
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardItem(id: one.id) == second)
        #expect(store.hasUnpurgedDeletions)
        try expectConsistentPayloads(location)
        try store.purge()
        #expect(!store.hasUnpurgedDeletions)
    }

    @Test func theSearchTextFollowsTheNewestBytes() throws {
        // No text type: the derived text names the types, a process id among them.
        func copy(pid: Int) throws -> PasteboardItem {
            PasteboardItem([
                .init(
                    type: try LibreOfficeSamples.type(LibreOfficeSamples.embedSource),
                    data: try LibreOfficeSamples.bytes("calc-\(pid % 2 + 1).zip")),
                .init(
                    type: try #require(ContentType(mimeType: "application/x-libreoffice-internal-id-\(pid)")),
                    data: Data()),
            ])
        }
        let first = try store.record(try copy(pid: 4101))
        #expect(try store.items(HistoryQuery(text: "internal-id-4101")).map(\.id) == [first.id])
        let second = try store.record(try copy(pid: 7700))
        #expect(second.id == first.id)
        #expect(try store.items(HistoryQuery(text: "internal-id-7700")).map(\.id) == [first.id])
        #expect(try store.items(HistoryQuery(text: "internal-id-4101")).isEmpty)
        #expect(try indexMatchCount(location, phrase: "internal-id-4101") == 0)
        #expect(store.hasUnpurgedDeletions, "the old text's trigrams wait for the purge")
        try store.purge()
        #expect(try indexMatchCount(location, phrase: "internal-id-4101") == 0)
        #expect(try indexMatchCount(location, phrase: "internal-id-7700") == 1)
        try expectConsistentPayloads(location)
    }

    @Test func aPinAndACopyCountSurviveTheNewBytes() throws {
        let first = try store.record(
            try LibreOfficeSamples.writerItem(1), metadata: CaptureMetadata(date: now, copyCount: 4))
        try store.setPinned(true, id: first.id)
        try store.record(
            try LibreOfficeSamples.writerItem(2), metadata: CaptureMetadata(date: now.addingTimeInterval(5)))
        let item = try store.item(id: first.id)
        #expect(item.isPinned && item.copyCount == 5)
        #expect(item.kind == .html)
        #expect(item.preview == "Hello bold words and red italics. A picture: after it.")
    }

    // MARK: - Sync, the clipboard, pb copy and import

    @Test func syncNamesTheMergedItemByTheIdentityOfItsNewBytes() throws {
        let id = try store.record(try LibreOfficeSamples.writerItem(1)).id
        try store.record(try LibreOfficeSamples.writerItem(2))
        let row = try #require(try store.syncRows(afterPosition: 0, limit: 10).first)
        #expect(row.id == id)
        #expect(HistoryStore.syncIdentity(of: try store.pasteboardItem(id: id)) == row.identity)
        #expect(HistoryStore.syncIdentity(of: try LibreOfficeSamples.writerItem(3)) == row.identity)
    }

    @Test func aCopyThroughTheClipboardMergesAndDeletingItEmptiesTheClipboard() throws {
        // `pb copy` writes the headless clipboard and records the item in one step.
        let first = try store.writePasteboard(
            [try LibreOfficeSamples.writerItem(1)], to: "general", history: CaptureMetadata(date: now))
        let second = try store.writePasteboard(
            [try LibreOfficeSamples.writerItem(2)], to: "general",
            history: CaptureMetadata(date: now.addingTimeInterval(1)))
        let id = try #require(first.record?.id)
        #expect(second.record?.id == id && second.record?.isNew == false)
        #expect(try store.pasteboardItem(id: id) == (try LibreOfficeSamples.writerItem(2)))
        try expectConsistentPayloads(location)
        // The clipboard holds the same content (copy 2): deleting the item empties it.
        try store.delete(id: id)
        #expect(try store.pasteboardContents("general").items.isEmpty)
        try expectConsistentPayloads(location)
        #expect(try store.stats().blobCount == 0)
    }

    @Test func importMergesLikeRecordingAndKeepsTheLaterBytes() throws {
        let recorded = try HistoryStore(
            location: StoreLocation(directory: temporary.url.appendingPathComponent("recorded")))
        let imported = try HistoryStore(
            location: StoreLocation(directory: temporary.url.appendingPathComponent("imported")))
        var lines: [(PasteboardItem, CaptureMetadata)] = []
        for (offset, item) in [
            try LibreOfficeSamples.writerItem(1), PasteboardItem(string: "between"), try LibreOfficeSamples.calcItem(1),
            try LibreOfficeSamples.writerItem(2), try LibreOfficeSamples.writerItem(4),
            try LibreOfficeSamples.calcItem(2),
            PasteboardItem(string: "between"), try LibreOfficeSamples.writerItem(3),
            // Replaced again and again within one import.
            try LibreOfficeSamples.writerItem(2), try LibreOfficeSamples.writerItem(3),
        ].enumerated() {
            lines.append((item, CaptureMetadata(date: now.addingTimeInterval(Double(offset)))))
        }
        // An older line of a newer item: its bytes stay.
        lines.append((try LibreOfficeSamples.writerItem(1), CaptureMetadata(date: now.addingTimeInterval(-100))))
        // Half of the lines already in both stores, so that the import merges into stored items too.
        for (item, metadata) in lines.prefix(4) {
            try recorded.record(item, metadata: metadata)
            try imported.record(item, metadata: metadata)
        }
        var recordedResults: [RecordResult] = []
        for (item, metadata) in lines.dropFirst(4) {
            recordedResults.append(try recorded.record(item, metadata: metadata))
        }
        let bulk = try HistoryImport(store: imported)
        var importedResults: [RecordResult] = []
        for (item, metadata) in lines.dropFirst(4) { importedResults.append(try bulk.add(item, metadata: metadata)) }
        try bulk.commit()

        #expect(importedResults == recordedResults)
        #expect(try imported.count() == 4)
        let writer = try #require(importedResults.last?.id)
        #expect(try imported.pasteboardItem(id: writer) == (try LibreOfficeSamples.writerItem(3)))
        #expect(try imported.item(id: writer).copyCount == 6)
        for store in [recorded, imported] {
            for item in try store.items(limit: 10) {
                #expect(try imported.pasteboardItem(id: item.id) == (try recorded.pasteboardItem(id: item.id)))
                #expect(try imported.item(id: item.id).copyCount == (try recorded.item(id: item.id)).copyCount)
            }
        }
        try expectConsistentPayloads(imported.location)
        try expectConsistentPayloads(recorded.location)
        while try imported.indexBacklog(limit: 100) > 0 {}
        #expect(try imported.items(HistoryQuery(text: "red italics")).count == 2)
    }

    // MARK: - Helpers

    /// An item holding a zip package whose one member is `picture` (stored), packed at `minute`.
    func item(packageWith picture: Data, minute: Int) throws -> PasteboardItem {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
        let name = Array("Pictures/1.png".utf8)
        let time = le16(minute << 5)  // DOS time: hours, minutes, seconds / 2
        var zip = le32(0x0403_4b50) + le16(20) + le16(0) + le16(0) + time + le16(0x5B85) + le32(0)
        zip += le32(picture.count) + le32(picture.count) + le16(name.count) + le16(0) + name + Array(picture)
        let directory = zip.count
        zip += le32(0x0201_4b50) + le16(20) + le16(20) + le16(0) + le16(0) + time + le16(0x5B85) + le32(0)
        zip += le32(picture.count) + le32(picture.count) + le16(name.count) + le16(0) + le16(0) + le16(0) + le16(0)
        zip += le32(0) + le32(0) + name
        let size = zip.count - directory
        zip += le32(0x0605_4b50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(size) + le32(directory) + le16(0)
        return PasteboardItem([
            .init(type: .utf8PlainText, data: Data("a picture".utf8)),
            .init(type: try LibreOfficeSamples.type(LibreOfficeSamples.embedSource), data: Data(zip)),
        ])
    }
}
