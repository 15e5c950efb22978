import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

/// Retention for one kind of item (`max-age.image = 7d`): only that kind counts, pinned items stay.
@Suite struct HistoryStoreKindRetentionTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    func text(_ string: String, daysAgo: Double) throws -> Int64 {
        try store.record(PasteboardItem(string: string), metadata: CaptureMetadata(date: now - daysAgo * 86400)).id
    }

    func image(seed: UInt64, daysAgo: Double) throws -> Int64 {
        try store.record(pngItem(count: 100, seed: seed), metadata: CaptureMetadata(date: now - daysAgo * 86400)).id
    }

    @Test func maxAgeForImagesDropsOldImagesOnly() throws {
        let oldText = try text("an old note", daysAgo: 30)
        let oldImage = try image(seed: 1, daysAgo: 10)
        let pinnedImage = try image(seed: 2, daysAgo: 20)
        try store.setPinned(true, id: pinnedImage)
        let newImage = try image(seed: 3, daysAgo: 1)
        let newText = try text("a new note", daysAgo: 0)
        #expect(try store.items(limit: 10).first { $0.id == oldImage }?.kind == .image)

        let policy = RetentionPolicy(byKind: ["image": RetentionPolicy(maxAge: 7 * 86400)])
        #expect(try store.applyRetention(policy, now: now) == 1)
        #expect(try Set(store.items(limit: 10).map(\.id)) == [oldText, pinnedImage, newImage, newText])
        #expect(try store.changes(after: 0).last?.kind == .pruned)
    }

    @Test func kindLimitsCountOnlyTheirKindAndAddToTheGeneralOnes() throws {
        var texts: [Int64] = []
        var images: [Int64] = []
        for index in 0..<4 {
            texts.append(try text("note \(index)", daysAgo: Double(10 - index)))
            images.append(try image(seed: UInt64(index + 10), daysAgo: Double(10 - index)))
        }
        // Keep 1 image, 7 items in all, nothing older than 9.5 days.
        let policy = RetentionPolicy(maxItems: 7, maxAge: 9.5 * 86400, byKind: ["image": RetentionPolicy(maxItems: 1)])
        #expect(try store.applyRetention(policy, now: now) == 4)
        // texts[0] and images[0] are too old; of the images only the newest stays.
        #expect(try store.items(limit: 10).map(\.id) == [images[3], texts[3], texts[2], texts[1]])
    }

    @Test func maxBytesForAKindLeavesTheOtherKindsAlone() throws {
        let big = try text(String(repeating: "t", count: 5_000), daysAgo: 3)
        let images = try (0..<3).map { try image(seed: UInt64($0 + 20), daysAgo: 2 - Double($0)) }
        let size = try #require(try store.items(limit: 10).first { $0.id == images[0] }?.size)
        let policy = RetentionPolicy(byKind: ["image": RetentionPolicy(maxBytes: size * 2)])
        #expect(try store.applyRetention(policy, now: now) == 1)
        #expect(try Set(store.items(limit: 10).map(\.id)) == [big, images[1], images[2]])
    }

    @Test func theModelsKindsAreTheHistorysKinds() {
        #expect(RetentionPolicy.kinds == HistoryItem.Kind.allCases.map(\.rawValue))
    }
}
