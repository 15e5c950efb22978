import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Restoring moves an item to the top and counts a copy, in one transaction, without reading, hashing or writing its
/// payloads; the bytes are checked against their hash when they are first served.
@Suite struct HistoryStoreRestoreTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// The file's inode and modification time, which a rewrite (temporary file renamed over it) would change.
    func fileIdentity(_ url: URL) throws -> (inode: UInt, modified: Int) {
        var info = stat()
        try #require(stat(url.path, &info) == 0, "stat \(url.path)")
        return (UInt(info.st_ino), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
    }

    @Test func restoreMovesTheItemToTheTopAndCountsACopyWithoutRewritingItsFile() throws {
        var item = pngItem(count: 300_000, seed: 5)
        item.setString("the image's text")
        let id = try store.record(item, metadata: CaptureMetadata(source: "gimp", isPinned: true)).id
        try store.record(PasteboardItem(string: "newer"))
        let file = try #require(blobFiles(in: location).first)
        let before = try fileIdentity(file)
        let date = Date(timeIntervalSince1970: 2_000_000_000)

        let restoration = try store.restore(id: id, date: date)

        #expect(restoration.id == id)
        #expect(!restoration.asksBeforePaste)
        let items = try store.items(limit: 10)
        #expect(items.map(\.id).first == id)
        let restored = try store.item(id: id)
        #expect(restored.copyCount == 2)
        #expect(restored.lastCopied == date)
        #expect(restored.isPinned && restored.source == "gimp", "the pin and the source stay")
        let after = try fileIdentity(file)
        #expect(after.inode == before.inode && after.modified == before.modified, "the payload file was written again")
        #expect(blobFiles(in: location) == [file])
        #expect(try store.pasteboardItem(id: id) == item, "byte for byte")
        // The search index follows the move.
        #expect(try store.items(HistoryQuery(text: "image's", limit: 5)).map(\.id) == [id])
    }

    @Test func restoringTheNewestItemCountsACopyInPlace() throws {
        let id = try store.record(PasteboardItem(string: "only")).id
        let position = try store.restore(id: id).position
        #expect(try store.restore(id: id).position == position)
        #expect(try store.item(id: id).copyCount == 3)
    }

    @Test func aRestoreLeavesTheSearchIndexTombstoneToTheNextPurge() throws {
        let id = try store.record(PasteboardItem(string: "older text")).id
        try store.record(PasteboardItem(string: "newer text"))
        try store.purge()
        #expect(!store.hasUnpurgedDeletions)
        try store.restore(id: id)
        // As after a repeated copy: purging (index rewrite, checkpoint, four fsyncs) on every restore cost 20 ms.
        #expect(store.hasUnpurgedDeletions, "the restore purged")
        #expect(try store.items(HistoryQuery(text: "older", limit: 5)).map(\.id) == [id])
    }

    @Test func anUnknownItemIsNotRestored() throws {
        try store.record(PasteboardItem(string: "there"))
        let error = #expect(throws: HistoryError.self) { try store.restore(id: 99) }
        #expect(error?.code == .noSuchItem)
        #expect(error?.message == "No history item with id 99.")
    }

    @Test func aMissingOrCutPayloadFileStopsTheRestoreAndChangesNothing() throws {
        let id = try store.record(pngItem(seed: 6)).id
        let newer = try store.record(PasteboardItem(string: "newer")).id
        let file = try #require(blobFiles(in: location).first)
        let bytes = try Data(contentsOf: file)

        try bytes.dropLast(20).write(to: file)
        let cut = #expect(throws: HistoryError.self) { try store.restore(id: id) }
        #expect(cut?.code == .damagedPayload && cut?.itemID == id, "\(String(describing: cut))")

        try FileManager.default.removeItem(at: file)
        let missing = #expect(throws: HistoryError.self) { try store.restore(id: id) }
        #expect(missing?.code == .missingPayload, "\(String(describing: missing))")
        #expect(missing?.message.hasPrefix("Item \(id)'s public.png payload file \(file.path) is missing") == true)

        #expect(try store.items(limit: 5).map(\.id) == [newer, id], "nothing moved")
        #expect(try store.item(id: id).copyCount == 1, "nothing counted")
    }

    @Test func restoringOntoTheGeneralPasteboardSharesThePayloads() throws {
        let item = pngItem(count: 200_000, seed: 7)
        let id = try store.record(item).id
        try store.writePasteboard([PasteboardItem(string: "held before")], to: PasteboardName.general.rawValue)
        let count = try store.pasteboardChangeCount(PasteboardName.general.rawValue)

        try store.restore(id: id, onto: PasteboardName.general.rawValue)
        try store.restore(id: id, onto: PasteboardName.general.rawValue)  // twice: the shared payload must survive

        let contents = try store.pasteboardContents(PasteboardName.general.rawValue)
        #expect(contents.items == [item])
        #expect(contents.changeCount == count + 2)
        #expect(blobFiles(in: location).count == 1, "one payload file, shared by the item and the pasteboard")
        let db = try rawConnection(location)
        #expect(
            try db.row("SELECT count(*) AS n FROM blobs WHERE data = CAST('held before' AS BLOB)")?.int("n") == 0,
            "what the pasteboard held before is released")
        // The clipboard is known to hold the item: deleting it empties the clipboard, as after a copy.
        try store.delete(id: id)
        #expect(
            try store.pasteboardContents(PasteboardName.general.rawValue).items.isEmpty,
            "the deleted item is still pasted")
        #expect(blobFiles(in: location).isEmpty)
    }

    @Test func restorableItemChecksAPayloadFileOnlyWhenItIsRead() throws {
        let payload = pngPayload(count: 100_000, seed: 8)
        let id = try store.record(PasteboardItem(data: payload, type: .png)).id
        let file = try #require(blobFiles(in: location).first)
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: file)

        let reports = Reports()
        let item = try store.restorableItem(id: id) { reports.add($0) }  // the damage is not seen yet: nothing is read
        let representation = try #require(item.representations.first)
        #expect(representation.fileURL == file && representation.byteCount == payload.count)
        #expect(reports.all.isEmpty)

        let error = #expect(throws: PasteboardError.self) { _ = try representation.contents() }
        #expect(error?.message.hasPrefix("Item \(id)'s public.png payload file \(file.path) is damaged") == true)
        #expect(throws: PasteboardError.self) { try representation.verify() }
        #expect(item.data(forType: .png) == nil)
        #expect(reports.all.count == 1, "checked once, reported once: \(reports.all)")
        #expect(reports.all.first?.code == .damagedPayload && reports.all.first?.itemID == id)
    }

    @Test func restorableItemServesAnIntactFileAndChecksInlinePayloadsAtOnce() throws {
        var item = pngItem(count: 90_000, seed: 9)
        item.setString("inline text")
        let id = try store.record(item).id
        let restorable = try store.restorableItem(id: id)
        #expect(restorable == item)
        #expect(try restorable.representations[0].contents() == item.representations[0].data)

        let db = try rawConnection(location)
        try db.run("UPDATE blobs SET data = CAST('inline TEXT' AS BLOB) WHERE data = CAST('inline text' AS BLOB)")
        #expect(db.changes == 1)
        let error = #expect(throws: HistoryError.self) { _ = try store.restorableItem(id: id) }
        #expect(error?.code == .damagedPayload)
    }
}

/// The damage reports a test's payload checks made.
final class Reports: Sendable {
    private let state = Mutex<[HistoryError]>([])
    func add(_ error: HistoryError) { state.withLock { $0.append(error) } }
    var all: [HistoryError] { state.withLock { $0 } }
}
