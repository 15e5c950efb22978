import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

@Suite struct HistoryStoreRetentionTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// Records `count` distinct text items of exactly `size` bytes each, oldest first.
    func recordItems(_ count: Int, size: Int = 20, prefix: String = "item") throws -> [Int64] {
        try (0..<count).map { index in
            let text = "\(prefix) \(index) "
            let padded = text + String(repeating: "x", count: max(0, size - text.utf8.count))
            return try store.record(PasteboardItem(string: padded), metadata: CaptureMetadata(date: now)).id
        }
    }

    // MARK: - Max items

    @Test(arguments: [0, 1, 3, 10, 50])
    func maxItemsKeepsTheNewestUnpinnedAndEveryPinned(maxItems: Int) throws {
        let ids = try recordItems(10)
        try store.setPinned(true, id: ids[0])
        try store.setPinned(true, id: ids[9])
        let unpinnedNewestFirst = ids.reversed().filter { $0 != ids[0] && $0 != ids[9] }
        let kept = Array(unpinnedNewestFirst.prefix(maxItems))

        let deleted = try store.applyRetention(RetentionPolicy(maxItems: maxItems))
        #expect(deleted == 8 - kept.count)
        #expect(try Set(store.items(limit: 100).map(\.id)) == Set(kept + [ids[0], ids[9]]))
    }

    @Test func maxItemsRemovesPayloadFilesOfDroppedItems() throws {
        let old = try store.record(pngItem(seed: 1)).id
        let shared = pngPayload(seed: 2)
        try store.record(PasteboardItem(data: shared, type: .png))
        var captioned = PasteboardItem(data: shared, type: .png)
        captioned.setString("caption")
        let newest = try store.record(captioned).id
        #expect(blobFiles(in: location).count == 2)

        #expect(try store.applyRetention(RetentionPolicy(maxItems: 1)) == 2)
        #expect(try store.items(limit: 10).map(\.id) == [newest])
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardItem(id: newest).data(forType: .png) == shared)
        expectHistoryError(.noSuchItem) { _ = try store.pasteboardItem(id: old) }
    }

    // MARK: - Max age

    @Test func maxAgeDropsUnpinnedItemsLastCopiedTooLongAgo() throws {
        let ancient = try store.record(
            PasteboardItem(string: "ancient"), metadata: CaptureMetadata(date: now.addingTimeInterval(-86_400))
        ).id
        let oldPinned = try store.record(
            PasteboardItem(string: "old but pinned"), metadata: CaptureMetadata(date: now.addingTimeInterval(-7_200))
        ).id
        let old = try store.record(
            PasteboardItem(string: "old"), metadata: CaptureMetadata(date: now.addingTimeInterval(-3_601))
        ).id
        let recent = try store.record(
            PasteboardItem(string: "recent"), metadata: CaptureMetadata(date: now.addingTimeInterval(-3_599))
        ).id
        try store.setPinned(true, id: oldPinned)

        #expect(try store.applyRetention(RetentionPolicy(maxAge: 3_600), now: now) == 2)
        #expect(try store.items(limit: 10).map(\.id) == [recent, oldPinned])
        expectHistoryError(.noSuchItem) { _ = try store.item(id: ancient) }
        expectHistoryError(.noSuchItem) { _ = try store.item(id: old) }
        #expect(try store.items(HistoryQuery(text: "ancient")).isEmpty)
    }

    @Test func copyingAgainRenewsAnItemsAge() throws {
        let id = try store.record(
            PasteboardItem(string: "renewed"), metadata: CaptureMetadata(date: now.addingTimeInterval(-10_000))
        ).id
        try store.record(PasteboardItem(string: "renewed"), metadata: CaptureMetadata(date: now))
        #expect(try store.applyRetention(RetentionPolicy(maxAge: 60), now: now) == 0)
        #expect(try store.item(id: id).copyCount == 2)
    }

    // MARK: - Max bytes

    @Test(arguments: [
        (maxBytes: 350, kept: 3), (maxBytes: 400, kept: 4), (maxBytes: 0, kept: 0), (maxBytes: 10_000, kept: 10),
    ])
    func maxBytesDropsOldestUnpinnedUntilUnderTheLimit(maxBytes: Int, kept: Int) throws {
        let pinned = try store.record(PasteboardItem(string: String(repeating: "p", count: 5_000))).id
        try store.setPinned(true, id: pinned)
        let ids = try recordItems(10, size: 100)
        #expect(try store.item(id: ids[0]).size == 100)

        #expect(try store.applyRetention(RetentionPolicy(maxBytes: maxBytes)) == 10 - kept)
        let expected = Array(ids.suffix(kept).reversed()) + [pinned]
        #expect(try store.items(limit: 100).map(\.id) == expected)
    }

    @Test func maxBytesWorksAcrossMoreThanOneBatch() throws {
        let ids = try recordItems(600, size: 10)
        #expect(try store.applyRetention(RetentionPolicy(maxBytes: 25)) == 598)
        #expect(try store.items(limit: 10).map(\.id) == [ids[599], ids[598]])
    }

    @Test func combinedLimitsAllApply() throws {
        let old = try store.record(
            PasteboardItem(string: "stale"), metadata: CaptureMetadata(date: now.addingTimeInterval(-1_000))
        ).id
        let ids = try recordItems(5, size: 100)
        let policy = RetentionPolicy(maxItems: 4, maxBytes: 250, maxAge: 500)
        #expect(try store.applyRetention(policy, now: now) == 4)
        #expect(try store.items(limit: 10).map(\.id) == [ids[4], ids[3]])
        expectHistoryError(.noSuchItem) { _ = try store.item(id: old) }
    }

    // MARK: - Policy on record

    @Test func storeRetentionIsAppliedOnRecord() throws {
        store.retention = RetentionPolicy(maxItems: 3)
        let pinned = try store.record(PasteboardItem(string: "first, pinned")).id
        try store.setPinned(true, id: pinned)
        let ids = try recordItems(8)
        #expect(try store.count() == 4)
        #expect(try store.items(limit: 10).map(\.id) == [ids[7], ids[6], ids[5], pinned])
    }

    @Test func unlimitedRetentionKeepsEverything() throws {
        store.retention = RetentionPolicy()
        #expect(RetentionPolicy().isUnlimited)
        _ = try recordItems(20)
        #expect(try store.count() == 20)
        #expect(try store.applyRetention(RetentionPolicy(), now: now) == 0)
    }

    // MARK: - Expiry

    @Test func deleteExpiredRemovesItemsPastTheirExpiryEvenWhenPinned() throws {
        let soonPinned = try store.record(
            PasteboardItem(string: "soon"), metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(5))
        ).id
        try store.setPinned(true, id: soonPinned)
        let middle = try store.record(
            PasteboardItem(string: "middle"),
            metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(10))
        ).id
        let late = try store.record(
            PasteboardItem(string: "late"), metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(20))
        ).id
        let forever = try store.record(PasteboardItem(string: "forever"), metadata: CaptureMetadata(date: now)).id

        #expect(try store.nextExpiry() == now.addingTimeInterval(5))
        #expect(try store.deleteExpired(now: now) == 0)
        #expect(try store.deleteExpired(now: now.addingTimeInterval(10)) == 2)
        #expect(try store.items(limit: 10).map(\.id) == [forever, late])
        expectHistoryError(.noSuchItem) { _ = try store.item(id: middle) }
        #expect(try store.nextExpiry() == now.addingTimeInterval(20))

        #expect(try store.deleteExpired(now: now.addingTimeInterval(100)) == 1)
        #expect(try store.nextExpiry() == nil)
        #expect(try store.items(limit: 10).map(\.id) == [forever])
    }

    /// A merge never lowers what the item had (issue: `pb import` of a line with a past `expiresAt`, or
    /// `pb copy --expire`, deleted a pinned item it repeated).
    @Test func aRepeatWithAnExpiryNeverShortensAnItemsLife() throws {
        let pinned = try store.record(PasteboardItem(string: "pinned"), metadata: CaptureMetadata(date: now)).id
        try store.setPinned(true, id: pinned)
        let kept = try store.record(PasteboardItem(string: "kept"), metadata: CaptureMetadata(date: now)).id
        let expiring = try store.record(
            PasteboardItem(string: "expiring"), metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(50))
        ).id
        for text in ["pinned", "kept"] {
            try store.record(PasteboardItem(string: text), metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(-60)))
        }
        try store.record(PasteboardItem(string: "expiring"), metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(5)))
        #expect(try store.deleteExpired(now: now.addingTimeInterval(10)) == 0)
        #expect(Set(try store.items(limit: 10).map(\.id)) == [pinned, kept, expiring])
        #expect(try store.item(id: pinned).isPinned && store.item(id: pinned).expiresAt == nil)
        #expect(try store.item(id: expiring).expiresAt == now.addingTimeInterval(50), "the later expiry holds")
        try store.record(PasteboardItem(string: "expiring"), metadata: CaptureMetadata(date: now))
        #expect(try store.item(id: expiring).expiresAt == nil, "a copy without expiry keeps the item for good")
    }

    @Test func nextExpiryIsNilWithoutExpiringItems() throws {
        #expect(try store.nextExpiry() == nil)
        _ = try recordItems(3)
        #expect(try store.nextExpiry() == nil)
    }

    @Test func copyingAgainWithoutExpiryClearsIt() throws {
        let id = try store.record(
            PasteboardItem(string: "password"),
            metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(30))
        ).id
        try store.record(PasteboardItem(string: "password"), metadata: CaptureMetadata(date: now))
        #expect(try store.item(id: id).expiresAt == nil)
        #expect(try store.nextExpiry() == nil)
    }

    @Test func expiredFilePayloadIsRemoved() throws {
        try store.record(pngItem(seed: 77), metadata: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(1)))
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.deleteExpired(now: now.addingTimeInterval(2)) == 1)
        #expect(blobFiles(in: location).isEmpty)
        #expect(try store.stats().blobCount == 0)
    }
}
