import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing
@testable import PasteboardSync

@Suite struct SyncEngineTests {
    let scratch: Scratch
    let folder: URL
    let phrase: String
    let a: Device
    let b: Device

    init() throws {
        scratch = try Scratch()
        folder = scratch.url.appendingPathComponent("folder")
        let first = StoreLocation(directory: scratch.url.appendingPathComponent("a"))
        phrase = try #require(try SyncSession.initialize(folder: folder, location: first))
        a = try Device("a", in: scratch, folder: folder)
        b = try Device("b", in: scratch, folder: folder, phrase: phrase)
    }

    /// A first export of a history larger than a segment is written a segment at a time (not held whole in memory),
    /// with a pin and a delete after the copies: the other device gets it all, in order.
    @Test func aHistoryOfSeveralSegmentsIsWrittenOutAndJoinedWhole() throws {
        let count = SyncEngine.segmentOperations * 2 + 123
        try a.importItems(count)
        try a.store.setPinned(true, id: try #require(try a.id(of: "item \(count - 7)")))
        try a.store.delete(id: try #require(try a.id(of: "item \(count - 8)")))
        let written = try a.engine.writeLocalChanges()
        #expect(written.filter { $0.hasSuffix(".pblog") }.count >= 3, "\(written)")
        try b.engine.applyArrivals()
        let expected = try a.store.items(limit: 100_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") }
        #expect(expected.count == count - 1)
        #expect(try b.store.items(limit: 100_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") } == expected)
    }

    /// A first export in slices (`writeLocalChanges(limit:)`, as the daemon does a slice a turn): each call writes
    /// at most that many copies and says whether some are left; a pin of an item already written and a delete of one
    /// not yet written, made between the slices, go out with the last; the other device ends with a's history.
    @Test func aFirstExportInSlicesWritesEveryCopyAndThenThePinsAndDeletes() throws {
        let count = 2500
        try a.importItems(count)
        try a.engine.writeLocalChanges(limit: 1000)
        #expect(a.engine.hasMoreLocalChanges)
        #expect(try b.engine.applyArrivals().operations == 1000)
        try a.store.setPinned(true, id: try #require(try a.id(of: "item 10")))
        try a.store.delete(id: try #require(try a.id(of: "item 2400")))
        try a.engine.writeLocalChanges(limit: 1000)
        #expect(a.engine.hasMoreLocalChanges)
        try a.engine.writeLocalChanges(limit: 1000)
        #expect(!a.engine.hasMoreLocalChanges)
        try a.engine.writeLocalChanges(limit: 1000)
        #expect(!a.engine.hasMoreLocalChanges)
        try b.engine.applyArrivals()
        let expected = try a.history()
        #expect(expected.count == 2499 && expected.contains("item 10 [pinned]") && !expected.contains("item 2400"))
        #expect(try b.history() == expected)
    }

    /// A whole comparison of the history with the sync state (here forced: the feed's position is unknown) is cut at
    /// a deadline like the copies, a page of 2,000 at a time. An item deleted between two slices whose page was
    /// compared already is written out by the next round (its feed starts where the comparison began), and the
    /// other device ends with a's history.
    @Test func aWholeComparisonInSlicesMissesNoChangeMadeMeanwhile() throws {
        let count = 9000
        try a.importItems(count)
        try a.engine.writeLocalChanges()
        try b.engine.applyArrivals()
        try a.store.delete(id: try #require(try a.id(of: "item 4000")))
        try a.store.setPinned(true, id: try #require(try a.id(of: "item 8000")))
        try a.engine.state.setMeta("feed", "unknown")
        try a.engine.writeLocalChanges(deadline: .now)
        #expect(a.engine.hasMoreLocalChanges)
        // The item compared first (the smallest identity), deleted after the first slice.
        let rows = try a.store.items(limit: 10_000).compactMap { item in try a.store.syncRow(id: item.id) }
        let first = try #require(rows.min { $0.identity.lexicographicallyPrecedes($1.identity) })
        let firstText = try #require(try a.store.items(limit: 10_000).first { $0.id == first.id }?.preview)
        try a.store.delete(id: first.id)
        var slices = 1
        while a.engine.hasMoreLocalChanges && slices < 100 {
            try a.engine.writeLocalChanges(deadline: .now)
            slices += 1
        }
        #expect(slices >= 4, "\(slices) slices for \(count) items, 2,000 a page")
        try a.engine.writeLocalChanges()
        try b.engine.applyArrivals()
        let expected = try a.history()
        #expect(expected.count == count - 2 && expected.contains("item 8000 [pinned]") && !expected.contains(firstText))
        #expect(try b.history() == expected)
    }

    /// Rounds that touch more items than a round keeps (`touchedLimit`): a device joining a history that large,
    /// where a pin comes in a later segment than its item's copy (the filter of saved identities says "perhaps", and
    /// the entry is looked up, not started again); then a round of as many new copies with a delete and a pin of
    /// items b already has, compared against b's whole history a page at a time.
    @Test func roundsTouchingMoreItemsThanARoundKeepsApplyEveryChange() throws {
        let count = SyncEngine.touchedLimit + 1000
        try a.importItems(count, named: "first")
        try a.engine.writeLocalChanges()
        try a.store.setPinned(true, id: try #require(try a.id(of: "first \(count - 3)")))
        try a.engine.writeLocalChanges()
        try b.engine.applyArrivals()
        func listing(_ device: Device) throws -> [String] {
            try device.store.items(limit: 1_000_000).map { $0.preview + ($0.isPinned ? " [pinned]" : "") }
        }
        #expect(try listing(b) == (try listing(a)))
        #expect(try listing(b).contains("first \(count - 3) [pinned]"))

        let deleted = try #require(try a.id(of: "first \(count - 3)"))
        let oldest = try #require(try a.store.items(limit: 1_000_000).last?.id)
        try a.importItems(count, named: "second", from: count)
        try a.store.delete(id: deleted)
        try a.store.setPinned(true, id: oldest)
        try a.engine.writeLocalChanges()
        try b.engine.applyArrivals()
        let expected = try listing(a)
        #expect(expected.count == 2 * count - 1)
        #expect(expected.last == "first 0 [pinned]")
        #expect(try listing(b) == expected)
    }

    /// A copy whose payloads do not make the item it names (a device that lies, or a bug) is not recorded, beside
    /// one that does, which is; the first is named among the rejected and stays waiting.
    @Test func aCopyWhosePayloadsDoNotMakeItsItemIsNotRecorded() throws {
        let clock = HybridClock(milliseconds: UInt64(Date().timeIntervalSince1970 * 1000), counter: 0, device: a.engine.setup.device)
        func copy(_ text: String, identity: Data, clock: HybridClock) -> SyncOperation {
            var operation = SyncOperation(kind: .copy, clock: clock, identity: Hex.encode(identity))
            let bytes = Data(text.utf8)
            operation.representations = [.init(type: ContentType.utf8PlainText.identifier, payload: nil, size: bytes.count, inline: bytes)]
            return operation
        }
        let honest = HistoryStore.syncIdentity(of: PasteboardItem(string: "honest"))
        let forged = HistoryStore.syncIdentity(of: PasteboardItem(string: "something else"))
        _ = try a.engine.writeSegment(
            [copy("honest", identity: honest, clock: clock), copy("forged", identity: forged, clock: HybridClock(milliseconds: clock.milliseconds + 1, counter: 0, device: clock.device))], now: Date())
        let arrivals = try b.engine.applyArrivals()
        #expect(try b.history() == ["honest"])
        #expect(arrivals.rejected.contains { $0.contains("its payloads do not make the item it names") }, "\(arrivals.rejected)")
        #expect(try b.engine.state.entry(forged)?.isPending == true)
    }

    @Test func copyPinDeleteAndClearPropagate() throws {
        try a.copy("one")
        try a.copy("two")
        try a.sync()
        try b.sync()
        #expect(try b.history() == ["two", "one"])

        try a.store.setPinned(true, id: try #require(try a.id(of: "one")))
        try a.sync()
        try b.sync()
        #expect(try b.history() == ["two", "one [pinned]"])

        try b.store.delete(id: try #require(try b.id(of: "two")))
        try b.sync()
        try a.sync()
        #expect(try a.history() == ["one [pinned]"])

        try b.copy("three")
        try b.sync()
        try a.sync()
        let seenOnA = try a.history()
        #expect(seenOnA == ["three", "one [pinned]"], "\(seenOnA)")
        try a.store.clear()
        try a.sync()
        try b.sync()
        let seenOnB = try b.history()
        #expect(seenOnB == [], "\(seenOnB)")
        #expect(try a.history() == [])
    }

    /// Types kept under the names applications offered them (parameters, quotes, spaces, case) reach the other
    /// device as they were, with their bytes.
    @Test func verbatimTypeNamesPropagate() throws {
        var item = PasteboardItem(string: "Grüße")
        let names = [
            #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#,
            "text/plain;charset=UTF-16", "text/_moz_htmlcontext",
        ]
        for (index, name) in names.enumerated() {
            item.setData(Data([UInt8(index), 0, 0xFF]), forType: try #require(ContentType(offeredName: name)))
        }
        let id = try a.store.record(item).id
        try a.sync()
        try b.sync()
        let copied = try b.store.pasteboardItem(id: try #require(try b.id(of: "Grüße")))
        #expect(copied == (try a.store.pasteboardItem(id: id)))
        #expect(copied.types.compactMap(\.preferredMIMEType).suffix(3) == names[...])
    }

    @Test func aDeletedItemLeavesNothingInTheSyncState() throws {
        let marker = "DELETE-ME-\(UUID().uuidString)"
        try a.copy(marker)
        try a.sync()
        try b.sync()
        try b.store.delete(id: try #require(try b.id(of: marker)))
        try b.sync()
        try a.sync()
        #expect(try a.history() == [])
        for device in [a, b] {
            let directory = SyncSetup.directory(for: device.location)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("state.sqlite") {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                // Kept as it was copied, or base64 (as the JSON record of an older pb held it).
                for form in [Data(marker.utf8), Data(Data(marker.utf8).base64EncodedString().utf8)] {
                    #expect(data.range(of: form) == nil, "\(name) still holds the deleted text")
                }
            }
            let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("state.sqlite").path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test func repeatedCopyMovesTheItemToTheTopEverywhere() throws {
        try a.copy("old")
        try a.copy("new")
        try a.sync()
        try b.sync()
        try b.copy("old")  // copied again on b
        try b.sync()
        try a.sync()
        #expect(try a.history() == ["old", "new"])
        #expect(try b.history() == ["old", "new"])
    }

    /// An import ordered by date puts old items below the copies made since, and moves those back above the old
    /// ones (the newest, which sync wrote out last, among them): the imported items still reach the other device.
    @Test func itemsImportedBelowNewerCopiesAreWrittenOut() throws {
        try a.copy("one")
        try a.copy("two")
        try a.sync()
        try b.sync()
        let bulk = try HistoryImport(store: a.store)
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        try bulk.add(PasteboardItem(string: "imported later"), metadata: CaptureMetadata(date: old + 60))
        try bulk.add(PasteboardItem(string: "imported"), metadata: CaptureMetadata(date: old))
        try bulk.commit()
        #expect(try a.history() == ["two", "one", "imported later", "imported"])
        try a.sync()
        try b.sync()
        let seenOnB = try b.history()
        #expect(seenOnB == ["two", "one", "imported later", "imported"], "\(seenOnB)")
    }

    @Test func concurrentOperationsConverge() throws {
        try a.copy("shared")
        try a.sync()
        try b.sync()
        // Both offline: a pins, b deletes, each copies something.
        try a.store.setPinned(true, id: try #require(try a.id(of: "shared")))
        try a.copy("from a")
        try b.store.delete(id: try #require(try b.id(of: "shared")))
        try b.copy("from b")
        try a.engine.writeLocalChanges()
        try b.engine.writeLocalChanges()
        try a.engine.applyArrivals()
        try b.engine.applyArrivals()
        #expect(try a.history() == b.history())
        // b's delete came after a's copy of "shared": it is gone everywhere.
        #expect(try a.history() == ["from b", "from a"])
    }

    @Test func anOfflineDeviceCatchesUpWhenItJoins() throws {
        for index in 0..<20 { try a.copy("item \(index)") }
        try a.store.delete(id: try #require(try a.id(of: "item 3")))
        try a.sync()
        let late = try Device("late", in: scratch, folder: folder, phrase: phrase)
        try late.sync()
        #expect(try late.history() == a.history())
        #expect(try late.history().count == 19)
    }

    @Test func anItemWhosePayloadIsLateWaitsForIt() throws {
        let big = String(repeating: "large payload ", count: 400)  // above the inline limit: a payload file
        try a.copy(big)
        let written = try a.engine.writeLocalChanges()
        let payload = try #require(written.first { $0.hasPrefix("payloads/") })
        let aside = scratch.url.appendingPathComponent("aside")
        try FileManager.default.moveItem(at: folder.appendingPathComponent(payload), to: aside)
        try b.engine.applyArrivals()
        #expect(try b.history() == [])
        #expect(try SyncStatus.load(location: b.location)?.pendingItems == 1)
        try FileManager.default.moveItem(at: aside, to: folder.appendingPathComponent(payload))
        try b.engine.applyArrivals()
        #expect(try b.store.items(limit: 5).map(\.size) == [big.utf8.count])
        #expect(try SyncStatus.load(location: b.location)?.pendingItems == 0)
    }

    @Test func aWrongKeyIsRefused() throws {
        let other = try Scratch()
        let phraseOfAnotherFolder = try #require(
            try SyncSession.initialize(
                folder: other.url.appendingPathComponent("f"), location: StoreLocation(directory: other.url.appendingPathComponent("s"))))
        let location = StoreLocation(directory: scratch.url.appendingPathComponent("intruder"))
        #expect(throws: SyncError.self) { try SyncSession.join(folder: folder, location: location, secret: phraseOfAnotherFolder) }
        #expect(try SyncSetup.load(for: location) == nil)
        // A typing mistake is caught by the checksum.
        var typo = Array(phrase)
        typo[0] = typo[0] == "A" ? "B" : "A"
        let error = try #require(throws: SyncError.self) { try SyncSession.join(folder: folder, location: location, secret: String(typo)) }
        #expect(error.code == .invalidInput)
    }

    @Test(arguments: ["tamper", "truncate", "foreign"])
    func aDamagedSegmentIsRejectedAndReported(damage: String) throws {
        try a.copy("first")
        try a.sync()
        try b.sync()
        try a.copy("second")
        let written = try a.engine.writeLocalChanges()
        let segment = try #require(written.first { $0.hasSuffix(".pblog") })
        let url = folder.appendingPathComponent(segment)
        var bytes = try Data(contentsOf: url)
        switch damage {
        case "tamper": bytes[bytes.count - 5] ^= 0x01
        case "truncate": bytes = bytes.prefix(bytes.count - 20)
        default:
            // A segment sealed with another folder's key, under this device's name.
            let key = try SyncKey.generate()
            bytes = try SecretStream.seal([Data("{}".utf8)], key: key.logKey, context: segment)
        }
        try bytes.write(to: url)
        let arrivals = try b.engine.applyArrivals()
        #expect(arrivals.rejected.count == 1)
        #expect(try b.history() == ["first"])
        let status = try #require(try SyncStatus.load(location: b.location))
        #expect(status.rejected.map(\.path) == [segment])
    }

    @Test func aPassphraseFolderJoinsWithThePassphraseOnly() throws {
        let other = try Scratch()
        let shared = other.url.appendingPathComponent("f")
        let first = StoreLocation(directory: other.url.appendingPathComponent("one"))
        #expect(try SyncSession.initialize(folder: shared, location: first, passphrase: "correct horse battery") == nil)
        let second = StoreLocation(directory: other.url.appendingPathComponent("two"))
        let wrong = try #require(throws: SyncError.self) {
            try SyncSession.join(folder: shared, location: second, secret: "wrong horse battery")
        }
        #expect(wrong.code == .wrongKey)
        try SyncSession.join(folder: shared, location: second, secret: "correct horse battery")
        #expect(try SyncSetup.load(for: second)?.key == SyncSetup.load(for: first)?.key)
    }

    @Test func whatNeverSyncsIsNeverInTheFolder() throws {
        var settings = SyncSettings()
        settings.maxItemBytes = 1000
        settings.ignoredApplications = ["KeePassXC"]
        let c = try Device("c", in: scratch, folder: folder, phrase: phrase, settings: settings)
        try c.store.record(PasteboardItem(string: "EXPIRING-SECRET"), metadata: CaptureMetadata(expiresAt: Date().addingTimeInterval(60)))
        let local = PasteboardItem(string: "LOCAL-ONLY-TEXT")
        try SyncSession.markLocalOnly(local, location: c.location)
        try c.store.record(local)
        try c.store.record(PasteboardItem(string: "FROM-KEEPASS"), metadata: CaptureMetadata(source: "KeePassXC"))
        try c.store.record(PasteboardItem(string: "BIG-" + String(repeating: "x", count: 2000)))
        try c.copy("ordinary")
        try c.sync()
        let key = try #require(try SyncSetup.load(for: c.location)).key
        let everything = try decryptedFolder(folder, key: key)
        for secret in ["EXPIRING-SECRET", "LOCAL-ONLY-TEXT", "FROM-KEEPASS", "BIG-xxxx"] {
            #expect(everything.range(of: Data(secret.utf8)) == nil, "\(secret) reached the folder")
        }
        #expect(everything.range(of: Data("ordinary".utf8)) != nil)
        try b.sync()
        #expect(try b.history() == ["ordinary"])
    }
}

@Suite struct CompactionTests {
    @Test func aCompactedLogBringsANewDeviceToTheSameHistory() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        let a = try Device("a", in: scratch, folder: folder)
        for round in 0..<12 {
            try a.copy("item \(round % 5)")  // repeated copies
            if round % 3 == 0, let id = try a.id(of: "item \(round % 5)") { try a.store.setPinned(round % 2 == 0, id: id) }
            if round == 7, let id = try a.id(of: "item 1") { try a.store.delete(id: id) }
            try a.engine.writeLocalChanges()
        }
        let before = SyncFolder(root: folder).segmentPaths()
        #expect(before.count == 12)
        let early = try Device("early", in: scratch, folder: folder, phrase: phrase)
        try early.sync()
        let compaction = try #require(try a.engine.compactLog(threshold: 4))
        #expect(compaction.removed == before)
        #expect(SyncFolder(root: folder).segmentPaths() == [compaction.written])
        let late = try Device("late", in: scratch, folder: folder, phrase: phrase)
        try late.sync()
        try early.sync()
        #expect(try late.history() == a.history())
        #expect(try early.history() == a.history())
        #expect(try a.engine.compactLog(threshold: 4) == nil)
    }

    /// Segments that hold many operations (a first export of a big history) are not read whole into memory to be
    /// compacted: a snapshot is made due instead, and it replaces them; a new device joins from it.
    @Test func manySegmentsOfManyOperationsAreReplacedByASnapshotNotCompacted() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("folder")
        let phrase = try #require(
            try SyncSession.initialize(folder: folder, location: StoreLocation(directory: scratch.url.appendingPathComponent("a"))))
        let a = try Device("a", in: scratch, folder: folder)
        let count = SyncEngine.segmentOperations * 5
        try a.importItems(count)
        try a.engine.writeLocalChanges()
        let segments = SyncFolder(root: folder).segmentPaths()
        #expect(segments.count == 5)
        #expect(try a.engine.compactLog(threshold: 4) == nil)
        #expect(SyncFolder(root: folder).segmentPaths() == segments, "nothing was compacted")
        let snapshot = try #require(try a.engine.writeSnapshotIfDue(), "a snapshot is due at once")
        #expect(Set(snapshot.removed).isSuperset(of: segments))
        #expect(SyncFolder(root: folder).segmentPaths().isEmpty)
        let late = try Device("late", in: scratch, folder: folder, phrase: phrase)
        try late.engine.applyArrivals()
        #expect(try late.store.count() == count)
        #expect(try late.history() == a.history())
    }
}
