import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Nothing deleted stays readable: not in the database file, its write-ahead log or shared-memory index, the search
/// index's shadow tables, or the payload files, even while another connection (the daemon's) holds the store open.
@Suite struct HistoryStorePurgeTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore
    /// A second store on the same files, as the running daemon holds one.
    let daemon: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
        daemon = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// A text no other item shares, long enough that finding it anywhere means it was kept.
    static func marker(_ label: String) -> String { "PB-MARKER-\(label)-" + UUID().uuidString }

    /// Every store file that holds the bytes.
    func filesHolding(_ bytes: Data) throws -> [String] {
        var holders: [String] = []
        let walker = FileManager.default.enumerator(atPath: location.directory.path)
        while let relative = walker?.nextObject() as? String {
            let path = location.directory.path + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            if try Data(contentsOf: URL(fileURLWithPath: path)).range(of: bytes) != nil { holders.append(relative) }
        }
        return holders
    }

    /// Records a few neighbours, the marker (as text, and inside a payload large enough for a file), lets the other
    /// connection read it all, and returns the ids.
    func recordMarker(_ marker: String, pinnedNeighbour: Bool = false) throws -> [Int64] {
        try store.record(
            PasteboardItem(string: "an older neighbour"), metadata: CaptureMetadata(isPinned: pinnedNeighbour))
        let text = try store.record(PasteboardItem(string: marker)).id
        let large = try store.record(
            PasteboardItem(data: Data((marker + "\n").utf8) + pngPayload(seed: 3), type: .data)
        ).id
        try store.record(PasteboardItem(string: "a newer neighbour"))
        #expect(try daemon.pasteboardItem(id: text).string == marker)
        #expect(try daemon.items(HistoryQuery(text: String(marker.suffix(12)))).map(\.id) == [text])
        #expect(try !filesHolding(Data(marker.utf8)).isEmpty, "the test cannot see the marker at all")
        return [text, large]
    }

    @Test func deletedItemsLeaveNoTraceInAnyFile() throws {
        let marker = Self.marker("delete")
        try store.delete(ids: try recordMarker(marker))
        #expect(try filesHolding(Data(marker.utf8)) == [])
        #expect(try daemon.items(limit: 10).map(\.preview) == ["a newer neighbour", "an older neighbour"])
    }

    @Test(arguments: [false, true])
    func clearedItemsLeaveNoTraceInAnyFile(keepPinned: Bool) throws {
        let marker = Self.marker("clear")
        _ = try recordMarker(marker, pinnedNeighbour: true)
        try store.clear(keepPinned: keepPinned)
        #expect(try filesHolding(Data(marker.utf8)) == [])
        // A kept pinned item can still be found.
        #expect(try store.items(HistoryQuery(text: "older neigh")).count == (keepPinned ? 1 : 0))
    }

    @Test func expiredItemsLeaveNoTraceEvenWhenTheDaemonExpiresThem() throws {
        let marker = Self.marker("expire")
        try store.record(PasteboardItem(string: "stays"))
        try store.writePasteboard(
            [PasteboardItem(string: marker)], to: "general",
            history: CaptureMetadata(expiresAt: Date().addingTimeInterval(60)))
        #expect(try daemon.deleteExpired(now: Date().addingTimeInterval(61)) == 1)
        #expect(try filesHolding(Data(marker.utf8)) == [])
        #expect(try store.pasteboardContents("general").items.isEmpty)
    }

    @Test func retiredItemsLeaveNoTraceOnceRetentionIsApplied() throws {
        let marker = Self.marker("retire")
        _ = try recordMarker(marker)
        try store.applyRetention(RetentionPolicy(maxItems: 1))
        #expect(try filesHolding(Data(marker.utf8)) == [])
    }

    @Test func vacuumLeavesNoCopyInTheWriteAheadLog() throws {
        let marker = Self.marker("vacuum")
        try store.delete(ids: try recordMarker(marker))
        try store.vacuum()
        #expect(try filesHolding(Data(marker.utf8)) == [])
        let wal =
            try FileManager.default.attributesOfItem(atPath: location.databaseURL.path + "-wal")[.size] as? NSNumber
        #expect(wal?.intValue == 0, "the write-ahead log keeps a copy of every page after VACUUM")
    }

    /// The trigram index keeps a deleted item's trigrams (and a tombstone listing them) until it is merged: enough
    /// to rebuild its text. After the purge, the index is byte for byte the one a store never given that text holds.
    @Test func searchIndexForgetsADeletedItemsTrigrams() throws {
        let twin = try TemporaryDirectory("pb-history-twin")
        let twinStore = try HistoryStore(location: twin.storeLocation)
        for (target, middle) in [
            (store, Self.marker("trigrams")), (twinStore, "quite another text, " + UUID().uuidString),
        ] {
            try target.record(PasteboardItem(string: "first neighbour, the same in both"))
            let id = try target.record(PasteboardItem(string: middle)).id
            try target.record(PasteboardItem(string: "second neighbour, the same in both"))
            try target.delete(id: id)
        }
        func index(_ location: StoreLocation) throws -> [String] {
            let db = try rawConnection(location)
            return try db.rows("SELECT id, hex(block) AS block FROM item_text_data ORDER BY id").map {
                "\($0.int("id") ?? -1):\($0.string("block") ?? "")"
            }
        }
        #expect(try index(location) == index(twin.storeLocation))
        #expect(try store.items(HistoryQuery(text: "neighbour")).count == 2)
    }

    @Test func deferredPurgeWaitsForTheNextPurge() throws {
        let marker = Self.marker("deferred")
        try store.delete(ids: try recordMarker(marker), deferringPurge: true)
        #expect(store.hasUnpurgedDeletions)
        try store.purge()
        #expect(!store.hasUnpurgedDeletions)
        #expect(try filesHolding(Data(marker.utf8)) == [])
    }
}
