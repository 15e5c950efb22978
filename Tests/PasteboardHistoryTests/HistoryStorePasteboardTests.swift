import Foundation
import PasteboardHistory
import PasteboardModel
import SQLiteSupport
import Testing

/// The headless pasteboards kept in the store.
@Suite struct HistoryStorePasteboardTests {
    let temporary: TemporaryDirectory
    let store: HistoryStore

    init() throws {
        temporary = try TemporaryDirectory()
        store = try HistoryStore(location: temporary.storeLocation)
    }

    var location: StoreLocation { temporary.storeLocation }

    @Test func writtenItemsReadBackInOrder() throws {
        let items = [
            htmlItem("<b>one</b>", plain: "one"),
            PasteboardItem(string: "two"),
            PasteboardItem(data: Data([0x00, 0xFF, 0x0D, 0x0A]), type: .utf8PlainText),
        ]
        let written = try store.writePasteboard(items, to: "board")
        #expect(written.changeCount == 1)
        #expect(written.record == nil)
        let contents = try store.pasteboardContents("board")
        #expect(contents.items == items)
        #expect(contents.changeCount == 1)
        #expect(try store.count() == 0)
    }

    @Test func everyWriteIncreasesTheChangeCountByOne() throws {
        #expect(try store.pasteboardChangeCount("counted") == 0)
        for expected in 1...5 {
            let result = try store.writePasteboard([PasteboardItem(string: "v\(expected)")], to: "counted")
            #expect(result.changeCount == expected)
            #expect(try store.pasteboardChangeCount("counted") == expected)
        }
        #expect(try store.pasteboardContents("counted").items == [PasteboardItem(string: "v5")])
        try store.writePasteboard([], to: "counted")
        #expect(try store.pasteboardContents("counted") == PasteboardContents(items: [], changeCount: 6))
    }

    @Test func systemPasteboardsAlwaysExist() throws {
        for name in ["general", "find"] {
            #expect(try store.pasteboardExists(name))
            #expect(try store.pasteboardContents(name) == PasteboardContents(items: [], changeCount: 0))
        }
    }

    @Test func unknownPasteboardDoesNotExist() throws {
        #expect(try !store.pasteboardExists("nobody"))
        #expect(throws: (any Error).self) { _ = try store.pasteboardContents("nobody") }
    }

    @Test func createAndRemove() throws {
        try store.createPasteboard("named", persistent: true)
        #expect(try store.pasteboardExists("named"))
        #expect(try store.pasteboardIsPersistent("named"))
        #expect(try store.pasteboardContents("named") == PasteboardContents(items: [], changeCount: 0))
        #expect(try store.pasteboardNames() == ["named"])

        try store.writePasteboard([PasteboardItem(string: "kept")], to: "named")
        try store.createPasteboard("named", persistent: true)
        #expect(try store.pasteboardContents("named").items == [PasteboardItem(string: "kept")])

        try store.removePasteboard("named")
        #expect(try !store.pasteboardExists("named"))
        #expect(try store.pasteboardNames().isEmpty)
        #expect(try store.stats().blobCount == 0)
    }

    @Test func writingGeneralWithHistoryMetadataRecordsTheFirstItem() throws {
        let first = htmlItem("<b>copied</b>", plain: "copied")
        let result = try store.writePasteboard(
            [first, PasteboardItem(string: "second")], to: "general",
            history: CaptureMetadata(source: "test", selection: "headless"))
        let record = try #require(result.record)
        #expect(record.isNew)
        #expect(try store.items(limit: 10).map(\.id) == [record.id])
        let item = try store.item(id: record.id)
        #expect(item.selection == "headless")
        #expect(item.source == "test")
        #expect(try store.pasteboardItem(id: record.id) == first)

        let again = try store.writePasteboard([first], to: "general", history: CaptureMetadata())
        #expect(again.record?.id == record.id)
        #expect(again.record?.isNew == false)
        #expect(again.changeCount == 2)
    }

    @Test func writingEmptyContentsWithHistoryRecordsNothing() throws {
        let result = try store.writePasteboard([], to: "general", history: CaptureMetadata())
        #expect(result.record == nil)
        #expect(try store.count() == 0)
    }

    @Test func largePayloadSurvivesBeingWrittenTwice() throws {
        let payload = pngPayload(seed: 12)
        try store.writePasteboard([PasteboardItem(data: payload, type: .png)], to: "images")
        try store.writePasteboard([PasteboardItem(data: payload, type: .png)], to: "images")
        #expect(blobFiles(in: location).count == 1)
        #expect(try store.pasteboardContents("images").items.first?.data(forType: .png) == payload)
    }

    @Test func pasteboardAndHistoryShareOnePayload() throws {
        let payload = pngPayload(seed: 13)
        let item = PasteboardItem(data: payload, type: .png)
        try store.writePasteboard([item], to: "images")
        let record = try store.record(item)
        #expect(blobFiles(in: location).count == 1)

        try store.delete(id: record.id)
        #expect(try store.pasteboardContents("images").items == [item])
        #expect(blobFiles(in: location).count == 1)

        try store.writePasteboard([PasteboardItem(string: "replaced")], to: "images")
        #expect(blobFiles(in: location).isEmpty)
    }

    @Test func deletingTheClipboardsItemEmptiesTheClipboard() throws {
        let payload = pngPayload(seed: 14)
        let item = PasteboardItem(data: payload, type: .png)
        let record = try #require(try store.writePasteboard([item], to: "general", history: CaptureMetadata()).record)
        let other = try store.record(PasteboardItem(string: "another item"))
        let before = try store.pasteboardChangeCount("general")

        try store.delete(id: other.id)
        #expect(try store.pasteboardContents("general").items == [item], "deleting another item left the clipboard")

        try store.delete(id: record.id)
        #expect(try store.pasteboardContents("general").items.isEmpty)
        #expect(try store.pasteboardChangeCount("general") == before + 1, "emptying the clipboard is a change")
        #expect(blobFiles(in: location).isEmpty, "the deleted item's payload file stayed")
    }

    @Test func replacingContentsReleasesOldPayloads() throws {
        try store.writePasteboard([pngItem(seed: 14)], to: "swap")
        try store.writePasteboard([pngItem(seed: 15)], to: "swap")
        let files = blobFiles(in: location)
        try #require(files.count == 1)
        #expect(try Data(contentsOf: files[0]) == pngPayload(seed: 15))
        try store.removePasteboard("swap")
        #expect(blobFiles(in: location).isEmpty)
    }

    @Test func expiredItemAlsoClearsTheHeadlessClipboardStillHoldingIt() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let secret = PasteboardItem(string: "one-time code 123456")
        try store.writePasteboard(
            [secret], to: "general", history: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(30)))
        #expect(try store.deleteExpired(now: now.addingTimeInterval(10)) == 0)
        #expect(try store.pasteboardContents("general").items == [secret])

        #expect(try store.deleteExpired(now: now.addingTimeInterval(30)) == 1)
        #expect(try store.pasteboardContents("general") == PasteboardContents(items: [], changeCount: 2))
        #expect(try store.count() == 0)
        #expect(try store.stats().blobCount == 0)
    }

    @Test func expiredItemLeavesTheClipboardAloneWhenItHoldsSomethingElse() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try store.writePasteboard(
            [PasteboardItem(string: "expiring")], to: "general",
            history: CaptureMetadata(date: now, expiresAt: now.addingTimeInterval(5)))
        try store.writePasteboard([PasteboardItem(string: "newer")], to: "general", history: CaptureMetadata(date: now))
        try store.writePasteboard([PasteboardItem(string: "expiring")], to: "notes")

        #expect(try store.deleteExpired(now: now.addingTimeInterval(5)) == 1)
        #expect(try store.pasteboardContents("general").items == [PasteboardItem(string: "newer")])
        #expect(try store.pasteboardContents("general").changeCount == 2)
        #expect(try store.pasteboardContents("notes").items == [PasteboardItem(string: "expiring")])
        #expect(try store.items(limit: 10).map(\.preview) == ["newer"])
    }

    @Test func nonPersistentPasteboardLivesWhileItsOwnerRuns() throws {
        try store.createPasteboard("mine", persistent: false)
        #expect(try !store.pasteboardIsPersistent("mine"))
        #expect(try store.pasteboardExists("mine"))
        try store.writePasteboard([PasteboardItem(string: "still here")], to: "mine")
        #expect(try store.pasteboardContents("mine").items == [PasteboardItem(string: "still here")])
        #expect(try store.pasteboardNames() == ["mine"])
    }

    @Test func nonPersistentPasteboardOfAnExitedProcessDisappears() throws {
        try store.createPasteboard("orphan", persistent: false)
        try store.writePasteboard([pngItem(seed: 16)], to: "orphan")
        try store.createPasteboard("persistent", persistent: true)
        #expect(blobFiles(in: location).count == 1)

        // The store records the creating process's pid, so the creation cannot happen in a child process
        // without a helper executable. Instead the test creates the pasteboard here, then hands it to a
        // child process that has already exited: it rewrites `owner_pid` through a second, raw SQLite
        // connection, exactly as if that child had created the pasteboard and gone.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let deadPID = Int64(child.processIdentifier)
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(deadPID)"))
        let db = try rawConnection(location)
        try db.run("UPDATE pasteboards SET owner_pid = ? WHERE name = 'orphan'", deadPID)
        #expect(db.changes == 1)

        #expect(try store.pasteboardNames() == ["persistent"])
        #expect(try !store.pasteboardExists("orphan"))
        #expect(throws: (any Error).self) { _ = try store.pasteboardContents("orphan") }
        #expect(blobFiles(in: location).isEmpty)
        #expect(try store.stats().blobCount == 0)
    }

    @Test func nonPersistentPasteboardWhosePIDWasReusedDisappears() throws {
        try store.createPasteboard("reused", persistent: false)
        // Same pid (this process, alive), but a start time that does not match: the pid was reused.
        let db = try rawConnection(location)
        try db.run("UPDATE pasteboards SET owner_start = '1' WHERE name = 'reused'")
        #expect(try !store.pasteboardExists("reused"))
    }
}
