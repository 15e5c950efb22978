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

    /// Schema 10 dropped the index of representations by payload: a new store never has it, an older store loses it
    /// when opened, and the check still names every item that holds a damaged payload (it reads the representations
    /// for them instead).
    @Test func theItemsOfADamagedPayloadAreNamedWithoutAnIndexByPayload() throws {
        func hasIndex() throws -> Bool {
            let db = try rawConnection(location)
            defer { _ = Result { try db.close() } }
            return try db.row("SELECT 1 FROM sqlite_master WHERE name = 'representations_blob'") != nil
        }
        #expect(try !hasIndex())
        // Two items share the PNG payload (one with a caption besides it).
        let png = pngItem(seed: 5)
        let alone = try store.record(png).id
        var captioned = png
        captioned.setData(Data("a caption".utf8), forType: .utf8PlainText)
        let withCaption = try store.record(captioned).id
        _ = try store.record(PasteboardItem(string: "unrelated"))
        do {
            // As schema 9 left a store: the index, and its version.
            let db = try rawConnection(location)
            try db.execute((try undoingSchema14(db)) + "CREATE INDEX representations_blob ON representations(blob_id); PRAGMA user_version = 9")
            try db.close()
        }
        #expect(try hasIndex())
        let reopened = try HistoryStore(location: location)
        #expect(try reopened.stats().schemaVersion == 15)
        #expect(try !hasIndex())
        _ = try damageTheFile()
        let check = try reopened.checkPayloads()
        #expect(check.problems.map(\.kind) == [.damaged])
        #expect(check.problems.first?.itemIDs == [alone, withCaption])
    }

    /// Every damaged payload names its own items and pasteboards, however many there are (they are looked up
    /// together, in one pass).
    @Test func manyDamagedPayloadsEachNameTheirOwnItems() throws {
        // A text with its HTML: payload rows (a text alone stays in its item's row, see the inline tests below).
        let ids = try (0..<40).map { number in
            try store.record(
                PasteboardItem([
                    .init(type: .utf8PlainText, data: Data("text number \(number)".utf8)),
                    .init(type: .html, data: Data("<b>\(number)</b>".utf8)),
                ])
            ).id
        }
        let damagedItems = ids.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
        // One of them is on the general pasteboard too (the same payload row).
        let shared = damagedItems[2]
        try store.restore(id: shared, onto: "general")
        do {
            let db = try rawConnection(location)
            // Damaged in place (the same size, other bytes).
            try db.execute(
                "UPDATE blobs SET data = CAST(upper(CAST(data AS TEXT)) AS BLOB) WHERE id IN "
                    + "(SELECT text_blob FROM items WHERE id IN (\(damagedItems.map(String.init).joined(separator: ","))))")
            try db.close()
        }
        let check = try store.checkPayloads()
        #expect(check.problems.map(\.kind) == Array(repeating: .damaged, count: damagedItems.count))
        #expect(check.problems.map(\.itemIDs) == damagedItems.map { [$0] })
        #expect(check.problems.map(\.pasteboards) == damagedItems.map { $0 == shared ? ["general"] : [] })
    }

    @Test func damagedInlinePayloadIsReportedAndNeverServed() throws {
        let id = try store.record(PasteboardItem(string: "soon damaged")).id
        let kept = try store.record(PasteboardItem(string: "kept whole")).id
        do {
            // A text alone is kept in its item's row (InlineText.swift), checked against the item's identity.
            let db = try rawConnection(location)
            #expect(try db.row("SELECT count(*) AS n FROM blobs")?.int("n") == 0)
            try db.execute("UPDATE items SET text_data = CAST('soon DAMAGED' AS BLOB) WHERE id = \(id)")
            try db.close()
        }
        expectHistoryError(.damagedPayload) { _ = try store.pasteboardItem(id: id) }
        expectHistoryError(.damagedPayload) { _ = try store.restorableItem(id: id) }
        expectHistoryError(.damagedPayload) { try store.restore(id: id, onto: "general") }
        #expect(try store.pasteboardItem(id: kept).string == "kept whole")
        let check = try store.checkPayloads()
        #expect(check.damagedCount == 1)
        #expect(check.problems.first?.itemIDs == [id])
        #expect(check.checkedCount == 2)
        // A copy of the same text again takes the damaged bytes' place.
        try store.record(PasteboardItem(string: "soon damaged"))
        #expect(try store.pasteboardItem(id: id).string == "soon damaged")
        #expect(try store.checkPayloads().problems.isEmpty)
    }

    /// Export checks each inline payload where SQLite holds it: a damaged one leaves its item out, named, and the
    /// items around it come whole.
    @Test func exportLeavesOutAnItemWhoseInlinePayloadIsDamaged() throws {
        let first = try store.record(PasteboardItem(string: "first")).id
        let damaged = try store.record(PasteboardItem(string: "soon damaged")).id
        let third = try store.record(PasteboardItem(string: "third")).id
        do {
            let db = try rawConnection(location)
            try db.execute(
                "UPDATE items SET text_data = CAST('soon DAMAGED' AS BLOB) WHERE text_data = CAST('soon damaged' AS BLOB)")
            #expect(db.changes == 1)
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
        let id = try store.record(
            PasteboardItem([
                .init(type: .utf8PlainText, data: Data("its row goes".utf8)), .init(type: .html, data: Data("<i>it</i>".utf8)),
            ])
        ).id
        do {
            let db = try rawConnection(location)
            try db.execute("DELETE FROM blobs")
            try db.close()
        }
        expectHistoryError(.missingPayload) { _ = try store.pasteboardItem(id: id) }
        let check = try store.checkPayloads()
        #expect(check.missingCount == 2)  // its text's and its HTML's
        #expect(check.problems.map(\.itemIDs) == [[id], [id]])
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
