import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

/// What `pb import` and `pb export` build on: transactions, imported metadata, and copy-order paging.
@Suite struct HistoryStoreImportTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    struct BadLine: Error {}

    // MARK: - Transactions

    @Test func transactionCommitsEveryChangeTogether() throws {
        let ids = try store.transaction {
            try (0..<3).map { try store.record(PasteboardItem(string: "imported \($0)")).id }
        }
        #expect(try store.items(limit: 10).map(\.id) == ids.reversed())
        #expect(try store.items(HistoryQuery(text: "imported")).count == 3)
    }

    @Test func failedTransactionLeavesTheHistoryAsItWas() throws {
        let existing = try store.record(PasteboardItem(string: "before the import")).id
        try store.setPinned(true, id: existing)
        #expect(throws: BadLine.self) {  // the body's own error comes out unchanged
            try store.transaction {
                try store.record(PasteboardItem(string: "half imported"))
                try store.record(PasteboardItem(string: "before the import"))
                try store.setPinned(false, id: existing)
                throw BadLine()
            }
        }
        #expect(try store.items(limit: 10).map(\.id) == [existing])
        let item = try store.item(id: existing)
        #expect(item.copyCount == 1)
        #expect(item.isPinned)
        #expect(try store.items(HistoryQuery(text: "half")).isEmpty)
        #expect(try indexMatchCount(location, phrase: "half imported") == 0)
        #expect(try store.stats().blobCount == 1)
        // The store still works normally afterwards.
        #expect(try store.record(PasteboardItem(string: "after")).isNew)
    }

    @Test func deletionInsideATransactionRemovesTheFileAfterCommit() throws {
        let id = try store.record(pngItem(seed: 3)).id
        try store.transaction {
            try store.delete(id: id)
            #expect(blobFiles(in: location).count == 1)
        }
        #expect(blobFiles(in: location).isEmpty)
    }

    @Test func rolledBackDeletionKeepsTheFile() throws {
        let id = try store.record(pngItem(seed: 4)).id
        #expect(throws: BadLine.self) {  // the body's own error comes out unchanged
            try store.transaction {
                try store.delete(id: id)
                throw BadLine()
            }
        }
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardItem(id: id).data(forType: .png) == pngPayload(seed: 4))
    }

    // MARK: - Imported metadata

    @Test func importedMetadataIsKept() throws {
        let created = now.addingTimeInterval(-86_400)
        let id = try store.record(
            PasteboardItem(string: "from an export"),
            metadata: CaptureMetadata(source: "old.app", date: now, created: created, copyCount: 5, isPinned: true)
        ).id
        let item = try store.item(id: id)
        #expect(item.created == created)
        #expect(item.lastCopied == now)
        #expect(item.copyCount == 5)
        #expect(item.isPinned)
        #expect(item.source == "old.app")
    }

    @Test func importingADuplicateAddsItsCountAndKeepsAnyPin() throws {
        let id = try store.record(PasteboardItem(string: "twice"), metadata: CaptureMetadata(date: now)).id
        try store.record(
            PasteboardItem(string: "twice"), metadata: CaptureMetadata(date: now, copyCount: 3, isPinned: true))
        var item = try store.item(id: id)
        #expect(item.copyCount == 4)
        #expect(item.isPinned)

        try store.record(PasteboardItem(string: "twice"), metadata: CaptureMetadata(date: now, isPinned: false))
        item = try store.item(id: id)
        #expect(item.copyCount == 5)
        #expect(item.isPinned)
    }

    @Test(arguments: [0, -3])
    func nonPositiveCopyCountsCountAsOne(copyCount: Int) throws {
        let id = try store.record(PasteboardItem(string: "counted"), metadata: CaptureMetadata(copyCount: copyCount)).id
        #expect(try store.item(id: id).copyCount == 1)
        try store.record(PasteboardItem(string: "counted"), metadata: CaptureMetadata(copyCount: copyCount))
        #expect(try store.item(id: id).copyCount == 2)
    }

    // MARK: - Copy-order paging

    @Test(arguments: [1, 2, 3, 7, 10])
    func copyOrderPagesVisitEveryItemOnceOldestFirst(pageSize: Int) throws {
        let ids = try (0..<7).map { try store.record(PasteboardItem(string: "export \($0)")).id }
        var seen: [Int64] = []
        var cursor: Int64?
        var pages = 0
        repeat {
            let page = try store.itemsInCopyOrder(after: cursor, limit: pageSize)
            #expect(page.items.count <= pageSize)
            seen += page.items.map(\.id)
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 100
        #expect(seen == ids)
    }

    @Test func copyOrderFollowsTheLatestCopy() throws {
        let ids = try (0..<3).map { try store.record(PasteboardItem(string: "order \($0)")).id }
        try store.record(PasteboardItem(string: "order 0"))
        let page = try store.itemsInCopyOrder(after: nil, limit: 10)
        #expect(page.items.map(\.id) == [ids[1], ids[2], ids[0]])
        #expect(page.next == nil)
    }

    @Test func copyOrderFiltersByType() throws {
        try store.record(PasteboardItem(string: "text"))
        let png = try store.record(pngItem(count: 500, seed: 6)).id
        try store.record(PasteboardItem(string: "more text"))
        #expect(try store.itemsInCopyOrder(after: nil, limit: 10, type: .image).items.map(\.id) == [png])
        #expect(try store.itemsInCopyOrder(after: nil, limit: 10, type: .pdf).items.isEmpty)
    }
}
