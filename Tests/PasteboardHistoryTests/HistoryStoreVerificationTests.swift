import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// Payloads are checked against their content hash: a missing or damaged one is reported, naming the item, and is
/// never handed out as if it were good.
@Suite struct HistoryStoreVerificationTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    /// Flips one byte in the middle of the only payload file, keeping its size.
    func damageTheFile() throws -> URL {
        let files = blobFiles(in: location)
        try #require(files.count == 1, "\(files)")
        var bytes = try Data(contentsOf: files[0])
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: files[0])
        return files[0]
    }

    @Test func damagedPayloadFileIsReportedAndNeverServed() throws {
        let good = try store.record(PasteboardItem(string: "still fine")).id
        let id = try store.record(pngItem(seed: 21)).id
        let file = try damageTheFile()

        let error = #expect(throws: HistoryError.self) { _ = try store.pasteboardItem(id: id) }
        #expect(error?.code == .damagedPayload)
        #expect(error?.itemID == id)
        #expect(
            error?.message.hasPrefix("Item \(id)'s public.png payload file \(file.path) is damaged") == true,
            "\(String(describing: error))")
        #expect(try store.pasteboardItem(id: good).string == "still fine")

        let check = try store.checkPayloads()
        #expect(check.problems.map(\.kind) == [.damaged])
        #expect(check.problems.first?.itemIDs == [id])
        #expect(check.problems.first?.file == file.path)
        let stats = try store.stats()
        #expect(stats.damagedPayloads == 1 && stats.missingPayloads == 0)
    }

    @Test func damagedInlinePayloadIsReportedAndNeverServed() throws {
        let id = try store.record(PasteboardItem(string: "soon damaged")).id
        do {
            let db = try rawConnection(location)
            try db.execute("UPDATE blobs SET data = CAST('soon DAMAGED' AS BLOB)")
            try db.close()
        }
        expectHistoryError(.damagedPayload) { _ = try store.pasteboardItem(id: id) }
        #expect(try store.checkPayloads().damagedCount == 1)
    }

    /// Export checks each inline payload where SQLite holds it: a damaged one leaves its item out, named, and the
    /// items around it come whole.
    @Test func exportLeavesOutAnItemWhoseInlinePayloadIsDamaged() throws {
        let first = try store.record(PasteboardItem(string: "first")).id
        let damaged = try store.record(PasteboardItem(string: "soon damaged")).id
        let third = try store.record(PasteboardItem(string: "third")).id
        do {
            let db = try rawConnection(location)
            try db.execute("UPDATE blobs SET data = CAST('soon DAMAGED' AS BLOB) WHERE data = CAST('soon damaged' AS BLOB)")
            try db.close()
        }
        var exported: [(id: Int64, texts: [String])] = []
        var failures: [DamagedItem] = []
        try store.exportItems { result in
            switch result {
            case .success(let item):
                exported.append((item.id, item.representations.map { String(decoding: $0.bytes, as: UTF8.self) }))
            case .failure(let damage): failures.append(damage)
            }
        }
        #expect(exported.map(\.id) == [first, third])
        #expect(exported.map(\.texts) == [["first"], ["third"]])
        #expect(failures.map(\.id) == [damaged])
        #expect(failures.first?.error.code == .damagedPayload)
        let message = failures.first?.error.message ?? ""
        #expect(message.hasPrefix("Item \(damaged)'s ") && message.contains(" payload is damaged"), "\(message)")
    }

    @Test func missingPayloadFileIsReported() throws {
        let id = try store.record(pngItem(seed: 22)).id
        let files = blobFiles(in: location)
        try FileManager.default.removeItem(at: try #require(files.first))
        let error = #expect(throws: HistoryError.self) { _ = try store.pasteboardItem(id: id) }
        #expect(error?.code == .missingPayload)
        #expect(error?.itemID == id)
        #expect(try store.stats().missingPayloads == 1)
    }

    @Test func missingPayloadRowIsReported() throws {
        let id = try store.record(PasteboardItem(string: "its row goes")).id
        do {
            let db = try rawConnection(location)
            try db.execute("DELETE FROM blobs")
            try db.close()
        }
        expectHistoryError(.missingPayload) { _ = try store.pasteboardItem(id: id) }
        let check = try store.checkPayloads()
        #expect(check.missingCount == 1)
        #expect(check.problems.first?.itemIDs == [id])
    }

    @Test func damagedClipboardIsNeverPasted() throws {
        try store.writePasteboard([pngItem(seed: 23)], to: "general", history: CaptureMetadata())
        _ = try damageTheFile()
        let error = #expect(throws: HistoryError.self) { _ = try store.pasteboardContents("general") }
        #expect(error?.code == .damagedPayload)
        #expect(error?.message.hasPrefix("The clipboard's public.png payload") == true, "\(String(describing: error))")
        #expect(try store.checkPayloads().problems.first?.pasteboards == ["general"])
    }

    @Test func copyingTheSameBytesAgainRepairsADamagedFile() throws {
        let item = pngItem(seed: 24)
        let id = try store.record(item).id
        _ = try damageTheFile()
        try store.writePasteboard([item], to: "general", history: CaptureMetadata())
        #expect(try store.pasteboardItem(id: id).data(forType: .png) == item.data(forType: .png))
        #expect(try store.checkPayloads().problems.isEmpty)
    }

    @Test func symbolicLinkInPlaceOfAPayloadFileIsNotFollowed() throws {
        let id = try store.record(pngItem(seed: 25)).id
        let file = try #require(blobFiles(in: location).first)
        let copy = temporary.url.appendingPathComponent("copy")
        try FileManager.default.moveItem(at: file, to: copy)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: copy)
        expectHistoryError(.damagedPayload) { _ = try store.pasteboardItem(id: id) }
        let check = try store.checkPayloads()
        #expect(check.damagedCount == 1)
        #expect(check.unsafePaths.count == 1, "\(check.unsafePaths)")
    }

    @Test func intactStoreChecksClean() throws {
        try store.record(PasteboardItem(string: "one"))
        try store.record(pngItem(seed: 26))
        let check = try store.checkPayloads()
        #expect(check.problems.isEmpty && check.unsafePaths.isEmpty)
        #expect(check.checkedCount == (try store.stats()).blobCount)
        #expect(try store.integrityCheck() == ["ok"])
    }
}
