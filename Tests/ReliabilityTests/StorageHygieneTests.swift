import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// Space comes back: deleting, expiring or retiring an item removes its payload file (unless another item still
    /// uses it; deleting the clipboard's item empties the clipboard), `pb prune --vacuum` shrinks the database, and `pb stats` says what is used and what can be reclaimed.
    @Suite struct StorageHygiene {
        let harness: Harness

        init() throws {
            harness = try Harness(label: "pbspace")
        }

        /// A distinct payload large enough to be kept as a file (64 KiB and more).
        static func large(_ tag: String) -> Data {
            Data("\(tag)\n".utf8) + Payloads.largeText(count: 100_000)
        }

        func newestID() async throws -> Int64 {
            let result = try await harness.pbSucceeding(["history", "--json", "--limit", "1"])
            let array = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
            return try #require((array?.first?["id"] as? NSNumber)?.int64Value, "\(result)")
        }

        @Test func deletingItemsRemovesTheirPayloadFilesOnceNothingUsesThem() async throws {
            var ids: [Int64] = []
            for tag in ["first", "second", "third"] {
                try await harness.pbSucceeding(["copy"], stdin: Self.large(tag))
                ids.append(try await newestID())
            }
            // The same bytes under another type: another item, the same payload file.
            try await harness.pbSucceeding(["copy", "--type", "public.data"], stdin: Self.large("third"))
            let sharing = try await newestID()
            #expect(harness.blobFiles().count == 3, "\(harness.blobFiles())")

            try await harness.pbSucceeding(["delete", String(ids[0])])
            #expect(harness.blobFiles().count == 2, "the deleted item's file stayed: \(harness.blobFiles())")
            try await harness.pbSucceeding(["delete", String(ids[2])])
            #expect(harness.blobFiles().count == 2, "a file another item still uses went: \(harness.blobFiles())")
            #expect(
                try await harness.pbSucceeding(["decode", String(sharing), "--type", "public.data"]).stdout
                    == Self.large("third"))
            // The general pasteboard holds the last copy ("third" as data): deleting that item empties it too, so
            // the file goes.
            try await harness.pbSucceeding(["delete", String(sharing)])
            #expect(harness.blobFiles().count == 1, "\(harness.blobFiles())")
            #expect(try await !harness.pb(["paste"]).succeeded, "the deleted item is still on the clipboard")
            try await harness.pbSucceeding(["clear"])
            #expect(harness.blobFiles().isEmpty, "files left after clear: \(harness.blobFiles())")
            #expect(try await harness.integrityCheck() == "ok")
        }

        @Test func expiredAndRetiredItemsTakeTheirFilesWithThem() async throws {
            try await harness.pbSucceeding(["copy", "--expire", "3s"], stdin: Self.large("expiring"))
            try await harness.copy("replaces the expiring one on the clipboard")
            #expect(harness.blobFiles().count == 1)
            try await Task.sleep(for: .milliseconds(3_200))
            _ = try await harness.pbSucceeding(["history"])  // every pb command drops expired items first
            #expect(harness.blobFiles().isEmpty, "the expired item's file stayed: \(harness.blobFiles())")

            try harness.writeConfig("max-items = 2\n")
            for tag in ["one", "two", "three"] {
                try await harness.pbSucceeding(["copy"], stdin: Self.large(tag))
            }
            try await harness.copy("small, pushes 'two' out too")
            #expect(try await harness.itemCount() == 2)
            #expect(harness.blobFiles().count == 1, "retired items' files stayed: \(harness.blobFiles())")
        }

        /// `pb copy FILE` streams the file into a temporary file beside the payloads; killed midway, it leaves that
        /// file behind, and the next `pb prune` (or daemon start) removes it once it is a minute old.
        @Test func fileCopyKilledMidwayLeavesNoFileForGood() async throws {
            try await harness.copy("before")
            let input = try harness.sandbox.file(Data(), name: "huge.bin")
            try #require(truncate(input.path, 1 << 30) == 0)  // 1 GiB, sparse: read fast, never stored whole
            let copy = try harness.launch(["copy", input.path])
            let temporary = try await eventually(within: .seconds(30), every: .milliseconds(2)) {
                harness.blobFiles().contains {
                    $0.contains(".tmp-") && fileSize(harness.blobDirectory.path + "/" + $0) > 1 << 20
                }
                    || !copy.isRunning
            }
            copy.send(SIGKILL)
            let exit = try await copy.waitForExit(timeout: .seconds(10))
            try #require(
                temporary && exit?.wasSignalled == true, "pb copy was not killed mid-copy: \(String(describing: exit))")
            let left = harness.blobFiles()
            try #require(left.count == 1 && left[0].contains(".tmp-"), "\(left)")

            // Young, it may belong to a copy still running: kept. A minute old, it is collected.
            #expect(try await harness.pbSucceeding(["prune"]).output == "Deleted 0 items.\n")
            #expect(harness.blobFiles() == left)
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-120)],
                ofItemAtPath: harness.blobDirectory.path + "/" + left[0])
            let pruned = try await harness.pbSucceeding(["prune"])
            #expect(pruned.output.hasPrefix("Removed "), "\(pruned)")
            #expect(harness.blobFiles().isEmpty, "\(harness.blobFiles())")
            #expect(Set(try await harness.itemTexts().values.compactMap { $0 }) == ["before"])
            #expect(try await harness.integrityCheck() == "ok")
        }

        @Test func pruneVacuumShrinksTheDatabaseAndStatsSayWhatIsReclaimable() async throws {
            let lines = (0..<4_000).map {
                "{\"text\":\"note \($0) \(String(repeating: "lorem ipsum dolor ", count: 60))\"}"
            }
            let file = try harness.sandbox.file(Data(lines.joined(separator: "\n").utf8), name: "notes.jsonl")
            try await harness.pbSucceeding(["import", file.path])
            try await harness.pbSucceeding(["pin", "7"])
            let full = fileSize(harness.databasePath)
            #expect(full > 4_000_000, "only \(full) bytes")

            try await harness.pbSucceeding(["clear", "--keep-pinned"])
            #expect(try await harness.itemCount() == 1)
            // It never shrinks by itself (it may grow a little: deleting from the search index writes pages first).
            #expect(fileSize(harness.databasePath) >= full, "the file shrank before any vacuum")
            let before = try await harness.stats()
            let reclaimable = (before["reclaimableBytes"] as? NSNumber)?.intValue ?? 0
            #expect(reclaimable > full / 2, "pb stats reports \(reclaimable) reclaimable bytes of \(full)")
            #expect(try await harness.pbSucceeding(["stats"]).output.contains("reclaimable:  "))

            let pruned = try await harness.pbSucceeding(["prune", "--vacuum"])
            #expect(pruned.output.contains("Deleted 0 items."), "\(pruned)")
            let vacuumed = fileSize(harness.databasePath)
            #expect(vacuumed < full / 4, "pb prune --vacuum left \(vacuumed) of \(full) bytes")
            #expect(((try await harness.stats())["reclaimableBytes"] as? NSNumber)?.intValue == 0)
            #expect(try await harness.search("note 6 ").map(\.id) == [7], "the pinned item survived")
            #expect(try await harness.integrityCheck() == "ok")
        }

        @Test func statsCountItemsAndBytesByKind() async throws {
            try await harness.copy("hello, world")
            try await harness.copy("https://swift.org/documentation/")
            try await harness.pbSucceeding(["copy"], stdin: Payloads.png)
            let binary = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }) + Data([0, 0xFF])
            try await harness.pbSucceeding(["copy", "--type", "public.data"], stdin: binary)

            let stats = try await harness.stats()
            #expect((stats["items"] as? NSNumber)?.intValue == 4)
            let kinds = try #require(stats["kinds"] as? [String: [String: Any]], "\(stats)")
            func usage(_ kind: String) -> [Int] {
                [kinds[kind]?["count"], kinds[kind]?["bytes"]].map { ($0 as? NSNumber)?.intValue ?? -1 }
            }
            #expect(usage("text") == [1, 12])
            #expect(usage("url") == [1, 32])
            #expect(usage("image") == [1, Payloads.png.count])
            #expect(usage("data") == [1, binary.count])
            #expect((stats["fileBlobs"] as? NSNumber)?.intValue == 1)
            #expect((stats["fileBlobBytes"] as? NSNumber)?.intValue == binary.count)
            let payloads = (stats["payloadBytes"] as? NSNumber)?.intValue ?? 0
            #expect(payloads >= 12 + 32 + Payloads.png.count + binary.count)
            let table = try await harness.pbSucceeding(["stats"]).output
            for label in ["items:        4 (0 pinned)", "text", "url", "image", "data", "payloads:", "reclaimable:"] {
                #expect(table.contains(label), "pb stats lacks '\(label)': \(table)")
            }
        }
    }
}
