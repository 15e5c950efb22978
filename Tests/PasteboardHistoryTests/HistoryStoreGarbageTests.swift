import Foundation
import PasteboardHistory
import PasteboardModel
import Testing

@Suite struct HistoryStoreGarbageTests {
    let directory: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try HistoryStore(location: directory.storeLocation)
    }

    private func blobFiles() -> [URL] {
        let root = directory.storeLocation.blobDirectory
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return shards.flatMap { shard in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(shard).path)) ?? [])
                .map { root.appendingPathComponent(shard).appendingPathComponent($0) }
        }
    }

    @Test func unreferencedOldFilesAreRemovedAndReferencedOnesKept() throws {
        let kept = try store.record(pngItem(seed: 7))
        let orphanShard = directory.storeLocation.blobDirectory.appendingPathComponent("ff")
        try FileManager.default.createDirectory(at: orphanShard, withIntermediateDirectories: true)
        let orphan = orphanShard.appendingPathComponent(String(repeating: "ff", count: 16))
        try Data(repeating: 1, count: 5000).write(to: orphan)
        let old = Date().addingTimeInterval(-3600)
        for file in blobFiles() { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file.path) }

        let freed = try store.collectOrphanedFiles()

        #expect(freed == 5000)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(try store.pasteboardItem(id: kept.id).data(forType: .png) == pngPayload(seed: 7))
    }

    @Test func recentUnreferencedFilesAreLeftForTheirWriter() throws {
        let shard = directory.storeLocation.blobDirectory.appendingPathComponent("ee")
        try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
        let fresh = shard.appendingPathComponent(String(repeating: "ee", count: 16))
        try Data(repeating: 2, count: 100).write(to: fresh)

        #expect(try store.collectOrphanedFiles() == 0)
        #expect(FileManager.default.fileExists(atPath: fresh.path))
    }

    @Test func missingNamedPasteboardHasItsOwnCode() throws {
        do {
            _ = try store.pasteboardContents("never-created")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .noSuchPasteboard)
        }
    }
}
