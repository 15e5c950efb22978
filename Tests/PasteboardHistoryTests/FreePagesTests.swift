import Foundation
@testable import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// A store made now gives its free pages back to the file system in steps (incremental auto-vacuum,
/// HistoryStore+FreePages.swift); one made before keeps them until `vacuum()`, which gives it the same.
@Suite struct FreePagesTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    var location: StoreLocation { temporary.storeLocation }

    func pages() throws -> (free: Int64, all: Int64, autoVacuum: Int64) {
        let db = try rawConnection(location)
        defer { _ = Result { try db.close() } }
        return (
            try db.row("PRAGMA freelist_count")?.int(0) ?? -1, try db.row("PRAGMA page_count")?.int(0) ?? -1,
            try db.row("PRAGMA auto_vacuum")?.int(0) ?? -1
        )
    }

    /// 6,000 texts of 4 KB each (24 MB of rows, index and all).
    func fill(_ store: HistoryStore) throws -> [Int64] {
        let bulk = try HistoryImport(store: store)
        var ids: [Int64] = []
        for index in 0..<6_000 {
            let text = (0..<400).map { "w\(($0 * 7919 + index * 104_729) % 100_003)" }.joined(separator: " ")
            ids.append(try bulk.add(PasteboardItem(string: text), metadata: CaptureMetadata(date: Date())).id)
        }
        try bulk.commit()
        while try store.indexBacklog() > 0 {}
        return ids
    }

    @Test func aNewStoreGivesItsFreePagesBack() throws {
        let store = try HistoryStore(location: location)
        #expect(try pages().autoVacuum == 2)
        let ids = try fill(store)
        let kept = ids.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        try store.delete(ids: ids.enumerated().filter { $0.offset % 4 != 0 }.map(\.element))
        let before = try pages()
        #expect(before.free >= Int64(HistoryStore.freePagesWorthReturning), "\(before)")
        let returned = try store.returnFreePages()
        let after = try pages()
        #expect(returned == Int(before.free) && after.free == 0, "\(before) → \(after), \(returned) returned")
        #expect(after.all <= before.all - before.free)  // and the pointer-map pages of the pages cut
        // Nothing it keeps moved out of reach.
        let db = try rawConnection(location)
        #expect(try db.row("PRAGMA integrity_check")?.string("integrity_check") == "ok")
        try db.close()
        #expect(try store.count() == kept.count)
        let first = try #require(try store.pasteboardItem(id: kept[0]).string)
        #expect(first.hasPrefix("w0 w7919 w15838 "), "\(first.prefix(40))")
        let found = try store.items(HistoryQuery(text: "^" + first.prefix(60), isRegex: true, limit: 100)).map(\.id)
        #expect(found == [kept[0]])
        #expect(try store.items(HistoryQuery(text: String(first.prefix(60)), limit: 100)).map(\.id).contains(kept[0]))
        #expect(try store.pasteboardItem(id: kept[1_499]).string?.hasPrefix("w") == true)
        #expect(try store.checkPayloads().problems.isEmpty)
        // Below the threshold nothing is done.
        #expect(try store.returnFreePages() == 0)
    }

    @Test func aStoreMadeBeforeKeepsThemUntilItIsVacuumed() throws {
        do {
            // A store made without auto-vacuum, as every pb before this one made them.
            try FileManager.default.createDirectory(
                at: location.databaseURL.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            let db = try Connection(path: location.databaseURL.path, mode: .readWrite(create: true))
            try db.execute("PRAGMA auto_vacuum = NONE; CREATE TABLE placeholder(x); DROP TABLE placeholder")
            try db.close()
        }
        let store = try HistoryStore(location: location)
        #expect(try pages().autoVacuum == 0)
        let ids = try fill(store)
        try store.delete(ids: Array(ids.prefix(3_000)))
        let free = try pages().free
        #expect(free >= Int64(HistoryStore.freePagesWorthReturning))
        #expect(try store.returnFreePages() == 0)
        #expect(try pages().free == free)
        try store.vacuum()
        #expect(try pages().free == 0 && pages().autoVacuum == 2)
        #expect(try store.count() == 3_000)
    }
}
