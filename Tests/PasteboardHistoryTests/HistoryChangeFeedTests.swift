import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// The change feed: every mutation of the history leaves its change in the `changes` table, in its own
/// transaction, so that the daemon, the views and sync learn what happened from one place.
@Suite struct HistoryChangeFeedTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    /// The changes recorded since `sequence`, as (kind, item id) pairs.
    func changes(after sequence: Int64 = 0) throws -> [String] {
        try store.changes(after: sequence).map { "\($0.kind.rawValue) \($0.itemID.map(String.init) ?? "-")" }
    }

    @Test func everyMutationRecordsItsChange() throws {
        let first = try store.record(PasteboardItem(string: "first")).id
        let second = try store.record(PasteboardItem(string: "second")).id
        try store.record(PasteboardItem(string: "first"))  // a repeat
        try store.setPinned(true, id: second)
        try store.setPinned(false, ids: [second])
        try store.setAsksBeforePaste(true, ids: [first])
        try store.delete(id: first)
        #expect(
            try changes() == [
                "added \(first)", "added \(second)", "repeated \(first)", "pinned \(second)", "unpinned \(second)",
                "changed \(first)", "deleted \(first)",
            ])
        let before = try store.latestChangeSequence()
        #expect(try store.clear(keepPinned: true) == 1)
        let cleared = try #require(try store.changes(after: before).first)
        #expect(cleared.kind == .cleared && cleared.count == 1 && cleared.keptPinned && cleared.itemID == nil)
        let sequences = try store.changes(after: 0).map(\.sequence)
        #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
    }

    @Test func aRestoreIsOneChangeAndAMoveIsAnother() throws {
        let old = try store.record(PasteboardItem(string: "old")).id
        try store.record(PasteboardItem(string: "new"))
        let before = try store.latestChangeSequence()
        try store.restore(id: old)
        #expect(try changes(after: before) == ["restored \(old)"])
        let afterRestore = try store.latestChangeSequence()
        try store.restore(id: old)  // already on top: still a copy counted
        #expect(try changes(after: afterRestore) == ["restored \(old)"])
        #expect(try store.item(id: old).copyCount == 3)
        let newer = try store.record(PasteboardItem(string: "newer")).id
        let beforeMoves = try store.latestChangeSequence()
        try store.moveToTop(id: old)
        try store.moveToTop(id: old)  // already the newest: nothing moved
        #expect(try changes(after: beforeMoves) == ["moved \(old)"])
        #expect(newer != old)
    }

    @Test func aFailedMutationRecordsNothing() throws {
        try store.record(PasteboardItem(string: "kept"))
        let before = try store.latestChangeSequence()
        #expect(throws: HistoryError.self) { try store.setPinned(true, ids: [1, 999]) }
        #expect(throws: HistoryError.self) { try store.deleteAll(ids: [1, 999]) }
        #expect(try store.latestChangeSequence() == before)
        #expect(try store.changes(after: before).isEmpty)
    }

    @Test func expiryAndRetentionSayWhyAnItemWent() throws {
        let now = Date()
        var expiring = CaptureMetadata(date: now)
        expiring.expiresAt = now.addingTimeInterval(1)
        let secret = try store.record(PasteboardItem(string: "one-time code"), metadata: expiring).id
        let old = try store.record(PasteboardItem(string: "old"), metadata: CaptureMetadata(date: now)).id
        try store.record(PasteboardItem(string: "new"), metadata: CaptureMetadata(date: now))
        let before = try store.latestChangeSequence()
        #expect(try store.deleteExpiredItems(now: now.addingTimeInterval(2)) == [secret])
        #expect(try store.applyRetention(RetentionPolicy(maxItems: 1)) == 1)
        #expect(try changes(after: before) == ["expired \(secret)", "pruned \(old)"])
    }

    @Test func retentionOfManyItemsIsOneRowWithTheirCount() throws {
        let bulk = try HistoryImport(store: store)
        for index in 0..<1_200 { try bulk.add(PasteboardItem(string: "item \(index)"), metadata: CaptureMetadata()) }
        try bulk.commit()
        let before = try store.latestChangeSequence()
        #expect(try store.applyRetention(RetentionPolicy(maxItems: 100)) == 1_100)
        let rows = try store.changes(after: before)
        #expect(rows.count == 1 && rows.first?.kind == .pruned && rows.first?.count == 1_100, "\(rows)")
    }

    @Test func anImportIsOneChangeNamingItsNewItems() throws {
        let existing = try store.record(PasteboardItem(string: "already here")).id
        let before = try store.latestChangeSequence()
        let bulk = try HistoryImport(store: store)
        let a = try bulk.add(PasteboardItem(string: "a"), metadata: CaptureMetadata())
        try bulk.add(PasteboardItem(string: "already here"), metadata: CaptureMetadata())
        let b = try bulk.add(PasteboardItem(string: "b"), metadata: CaptureMetadata())
        try bulk.commit()
        let rows = try store.changes(after: before)
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.kind == .imported && row.count == 3 && row.itemID == a.id && row.lastItemID == b.id)
        #expect(a.id > existing)

        let abandoned = try HistoryImport(store: store)
        try abandoned.add(PasteboardItem(string: "never committed"), metadata: CaptureMetadata())
        abandoned.rollBack()
        #expect(try store.changes(after: row.sequence).isEmpty)
    }

    @Test func changesFromAnotherDeviceNameIt() throws {
        store.changeDevice = "laptop"
        let id = try store.record(PasteboardItem(string: "from the laptop")).id
        store.changeDevice = nil
        try store.setPinned(true, id: id)
        let rows = try store.changes(after: 0)
        #expect(rows.map(\.device) == ["laptop", nil])
    }

    @Test func anotherProcessSeesTheChangesInOrder() throws {
        let other = try HistoryStore(location: temporary.storeLocation)
        let id = try store.record(PasteboardItem(string: "written here")).id
        try other.setPinned(true, id: id)
        #expect(try other.changes(after: 0).map(\.kind) == [.added, .pinned])
        #expect(try store.latestChangeSequence() == other.latestChangeSequence())
    }

    @Test func trimmingKeepsTheNewestAndNeverReusesANumber() throws {
        for index in 0..<30 { try store.record(PasteboardItem(string: "item \(index)")) }
        #expect(try store.trimChanges(keeping: 10) == 20)
        let kept = try store.changes(after: 0)
        #expect(kept.map(\.sequence) == Array(21...30))
        #expect(try store.hasChanges(after: 20))
        #expect(try !store.hasChanges(after: 19), "changes 20 and before were trimmed")
        #expect(try store.trimChanges(keeping: 0) == 10)
        #expect(try store.latestChangeSequence() == 30)
        #expect(try !store.hasChanges(after: 29))
        #expect(try store.hasChanges(after: 30))
        try store.record(PasteboardItem(string: "after the trim"))
        #expect(try store.changes(after: 30).map(\.sequence) == [31])
    }

    @Test func theFeedTrimsItselfWhoeverWrites() throws {
        let id = try store.record(PasteboardItem(string: "pinned again and again")).id
        let changes = HistoryStore.changeFeedKept + 3_000
        try store.setPinned(true, ids: Array(repeating: id, count: changes))
        let kept = try store.changes(after: 0, limit: changes + 10)
        #expect(kept.count <= HistoryStore.changeFeedKept + 1_024 && kept.count >= HistoryStore.changeFeedKept)
        #expect(kept.last?.sequence == Int64(changes + 1))
        #expect(try !store.hasChanges(after: 0))
        #expect(try store.hasChanges(after: Int64(changes + 1 - HistoryStore.changeFeedKept)))
    }

    @Test func aStoreOfSchemaThreeGainsTheFeed() throws {
        // A store written before the feed existed: the migration adds the table, and numbering starts there.
        let id = try store.record(PasteboardItem(string: "from before")).id
        let path = temporary.storeLocation.databaseURL.path
        let db = try Connection(path: path, mode: .readWrite(create: false))
        try db.execute((try undoingSchema14(db)) + "DROP TABLE changes; DROP TABLE recognized_text; DELETE FROM sqlite_sequence WHERE name = 'changes'; PRAGMA user_version = 3")
        let reopened = try HistoryStore(location: temporary.storeLocation)
        #expect(try reopened.latestChangeSequence() == 0)
        try reopened.setPinned(true, id: id)
        #expect(try reopened.changes(after: 0).map(\.kind) == [.pinned])
        #expect(try reopened.item(id: id).isPinned)
    }
}
