import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// `kill -9` of the process writing the store, always while it is inside a write transaction (or a
    /// checkpoint): the database stays sound, nothing announced is lost, nothing half-imported stays, and the next
    /// process starts cleanly. The full-size run (20 storms of 10,000 copies) is `scripts/reliability/crash_storm.py`.
    @Suite struct CrashSafety {
        /// The daemon is the only writer of captured items: it is killed five times during a storm of 1,000 X11
        /// copies, each time caught mid-write, and restarted.
        @Test func daemonKilledMidWriteDuringACopyStormKeepsEveryAnnouncedItem() async throws {
            let harness = try await Harness(label: "pbcrash", display: "the crash-safety tests")
            let prefix = "storm\(UInt32.random(in: 0...UInt32.max))"
            var daemon = try await harness.startDaemon()
            var watch = try await harness.startWatch()
            // 1,000 copies at 100 per second; on a machine so loaded that the five kills take longer, another
            // storm follows, so that every kill lands while copies are coming in.
            var storms: [ChildProcess] = []
            func stormGoesOn() throws {
                if let last = storms.last, last.isRunning { return }
                storms.append(
                    try harness.launchNicely(
                        try OwnerStorm.executable(),
                        OwnerStorm.arguments(rate: 100, count: 1000, prefix: "\(prefix)-\(storms.count)")))
            }
            try stormGoesOn()

            var announced: [Int64: WatchedEvent] = [:]
            var startedWith = 0
            for round in 1...5 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 200...700)))
                // Wait for the new daemon's first capture: a kill before it would only test start-up.
                let capturing = try await eventually(within: .seconds(10)) { watch.captures.count > 0 }
                try #require(capturing, "round \(round): the restarted daemon captures nothing: \(daemon.stderr)")
                try stormGoesOn()
                let (state, looks) = try await MidWriteKill.kill(
                    daemon, database: harness.databasePath, deadline: .seconds(10))
                #expect(
                    state == .transaction || state == .checkpoint,
                    "round \(round): the kill did not catch the daemon writing (\(state) after \(looks) looks)")

                // The watch ends with the daemon's socket; everything it printed was announced before the kill.
                _ = try await watch.process.waitForExit(timeout: .seconds(5))
                for event in watch.captures { if let id = event.id { announced[id] = event } }
                #expect(try await harness.integrityCheck() == "ok", "round \(round)")
                let present = try await harness.itemTexts()
                let missing = announced.keys.filter { present[$0] == nil }.sorted()
                #expect(missing.isEmpty, "round \(round): announced items missing after kill -9: \(missing)")
                startedWith = present.count

                daemon = try await harness.startDaemon()
                watch = try await harness.startWatch()
            }

            var textsAt: [UInt64: Set<String>] = [:]  // two changes can share a millisecond of server time
            for storm in storms {
                let finished = try await storm.finish(timeout: .seconds(60))
                try #require(finished.succeeded, "\(finished)")
                for change in OwnerStorm.changes(in: finished.output) {
                    textsAt[change.serverTime, default: []].insert(change.text)
                }
            }
            #expect(textsAt.count > 500 * storms.count, "the storms reported only \(textsAt.count) changes")
            // The last captures settle, then the last daemon stops cleanly.
            _ = try await eventually(within: .seconds(5), every: .milliseconds(300)) {
                let count = watch.captures.count
                try await Task.sleep(for: .milliseconds(300))
                return watch.captures.count == count
            }
            try await harness.stop(daemon: daemon)
            for event in watch.captures { if let id = event.id { announced[id] = event } }

            #expect(try await harness.integrityCheck() == "ok")
            let present = try await harness.itemTexts()
            #expect(present.count > startedWith, "the restarted daemon recorded nothing more")
            var wrong: [String] = []
            for (id, event) in announced.sorted(by: { $0.key < $1.key }) {
                guard let texts = event.ownerTime.flatMap({ textsAt[$0] }) else {
                    if present[id] == nil { wrong.append("\(id): missing") }
                    continue
                }
                if case let text?? = present[id], texts.contains(text) { continue }
                wrong.append("\(id): holds \(String(describing: present[id])), announced as \(texts.sorted())")
            }
            #expect(
                wrong.isEmpty, "\(wrong.count) of \(announced.count) announced items are wrong: \(wrong.prefix(10))")
            let strangers = present.filter { !($0.value ?? "").hasPrefix(prefix + "-") }  // "stormN-S-000042"
            #expect(strangers.isEmpty, "items no copy made: \(strangers.prefix(5))")
            #expect(!daemon.stderr.contains("could not record"), "\(daemon.stderr.suffix(2000))")
        }

        /// `pb import` is one transaction: killed mid-write, twice at different depths, it leaves nothing of the
        /// file behind and the items already there untouched; the third run imports everything.
        @Test func importKilledMidwayLeavesNothingOfItAndARerunSucceeds() async throws {
            let harness = try Harness(label: "pbimport")
            for text in ["kept one", "kept two", "kept three"] { try await harness.copy(text) }
            let before = try await harness.itemTexts()
            try #require(before.count == 3)

            var lines = (0..<30_000).map {
                "{\"text\":\"import-line-\(String(format: "%06d", $0)) \(UUID().uuidString)\"}"
            }
            for index in [1_000, 12_000, 25_000, 29_000] {  // payloads stored as files, beside the database
                lines[index] = "{\"text\":\"large-\(index) \(String(repeating: "x", count: 80_000))\"}"
            }
            let file = try harness.sandbox.file(
                Data((lines.joined(separator: "\n") + "\n").utf8), name: "history.jsonl")

            let size = fileSize(file.path)
            for (round, depth) in [(1, size / 4), (2, size * 3 / 4)] {
                let importer = try harness.launch(["import", file.path])
                // Killed inside its transaction once it has read `depth` bytes of the file. (The WAL is no measure:
                // an import keeps up to 16 MiB of uncommitted pages in memory, all of this one.)
                let (state, looks) = try await MidWriteKill.kill(
                    importer, database: harness.databasePath, deadline: .seconds(60)
                ) { readOffset(of: importer.pid, file: file.path) >= depth }
                let outcome = importer.result.map(\.description) ?? ""
                try #require(
                    state == .transaction,
                    "round \(round): pb import was \(state) when killed (\(looks) looks): \(outcome)")
                #expect(try await harness.integrityCheck() == "ok", "round \(round)")
                let after = try await harness.itemTexts()
                #expect(
                    after == before, "round \(round): \(after.count - before.count) items of a killed import stayed")
            }

            let rerun = try await harness.pbSucceeding(["import", file.path])
            #expect(rerun.output == "Imported 30000 items from \(file.path).\n", "\(rerun)")
            #expect(try await harness.integrityCheck() == "ok")
            let after = try await harness.itemTexts()
            #expect(after.count == 30_003)
            #expect(before.allSatisfy { after[$0.key] == $0.value }, "the items already there changed")
            #expect(try await harness.search("import-line-029999").count == 1)
            #expect(try await harness.search("large-25000").count == 1)
        }

        /// After its result, `pb import` builds the search index a slice per transaction: killed inside a slice (once
        /// after adding the lines, once after merging them all again), it keeps every item, searchable; the daemon
        /// catches the index up between events and still stops within a second of SIGTERM; a later import finishes
        /// nothing twice.
        @Test func importKilledWhileIndexingKeepsItsItemsAndTheIndexCatchesUp() async throws {
            let harness = try Harness(label: "pbindexkill")
            try await harness.copy("kept one")
            let lines = (0..<60_000).map {
                "{\"text\":\"indexed-line-\(String(format: "%06d", $0)) \(UUID().uuidString)\"}"
            }
            let file = try harness.sandbox.file(Data((lines.joined(separator: "\n") + "\n").utf8), name: "history.jsonl")
            let empty = try harness.sandbox.file(Data(), name: "empty.jsonl")
            let backlogSQL = "SELECT count(*) FROM items WHERE position > (SELECT indexed_through FROM search_backlog);"
            var backlog = 0
            for round in 1...2 {
                let importer = try harness.launch(["import", file.path])
                let (state, looks) = try await MidWriteKill.kill(
                    importer, database: harness.databasePath, deadline: .seconds(120)
                ) { importer.stdout.starts(with: Data("Imported".utf8)) }
                try #require(
                    state == .transaction,
                    "round \(round): pb import was \(state) when killed (\(looks) looks): \(importer.result.map(\.description) ?? "")")
                #expect(try await harness.integrityCheck() == "ok", "round \(round)")
                // The search index itself is sound, and some items were left to index.
                _ = try await harness.sqlite("INSERT INTO item_text(item_text, rank) VALUES ('integrity-check', 0);")
                backlog = Int(try await harness.sqlite(backlogSQL)) ?? 0
                #expect(backlog > 0 && backlog <= 60_001, "round \(round): \(backlog) items not indexed")
                #expect(try await harness.itemTexts().count == 60_001, "round \(round)")
                #expect(try await harness.search("indexed-line-059999").count == 1, "round \(round)")
                #expect(try await harness.search("indexed-line-000000").count == 1, "round \(round)")
                #expect(try await harness.search("kept one").count == 1, "round \(round)")
            }

            // The daemon indexes what is left; SIGTERM while it does stops it within a second. The backlog is read
            // straight from the database (no pb start-up between two looks); on a busy machine the daemon may
            // finish the whole backlog between two looks, and the signal then finds it idle, which must stop it
            // as quickly.
            var daemon = try await harness.startDaemon()
            var left = backlog
            let started = try await eventually(within: .seconds(60), every: .milliseconds(5)) {
                left = Int(try await harness.sqlite(backlogSQL)) ?? 0
                return left < backlog
            }
            try #require(started, "the daemon indexed nothing: \(daemon.stderr)")
            let signalled = ContinuousClock.now
            daemon.send(SIGTERM)
            let exit = try await daemon.waitForExit(timeout: .seconds(10))
            let took = (daemon.exitedAt ?? .now) - signalled  // the reaper thread's instant, not this task's wake-up
            print("SIGTERM with \(left) of \(backlog) items still to index: stopped after \(took)")
            #expect(exit == .init(status: 0, wasSignalled: false) && took < .seconds(1), "stopped after \(took): \(daemon.stderr)")
            daemon = try await harness.startDaemon()
            let caughtUp = try await eventually(within: .seconds(120), every: .milliseconds(200)) {
                try await harness.stats()["unindexedItems"] as? Int == 0
            }
            #expect(caughtUp, "the daemon did not finish the index: \(daemon.stderr)")
            try await harness.stop(daemon: daemon)

            let again = try await harness.pbSucceeding(["import", empty.path])
            #expect(again.output == "Imported 0 items from \(empty.path).\n")
            #expect(try await harness.sqlite("SELECT count(*) FROM search_backlog;") == "0")
            _ = try await harness.sqlite("INSERT INTO item_text(item_text, rank) VALUES ('integrity-check', 0);")
            #expect(try await harness.search("indexed-line-").count == 1000, "the search's limit, all from the index")
            #expect(try await harness.search("indexed-line-031415").count == 1)
        }
    }
}

/// How far `pid` has read the file at `path`: the offset of the descriptor it has open on it (from
/// /proc/PID/fdinfo), 0 when it has none.
func readOffset(of pid: pid_t, file path: String) -> Int {
    let descriptors = "/proc/\(pid)/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: descriptors) else { return 0 }
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    for name in names {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name)) == resolved,
            let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(name)", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("pos:") })
        else { continue }
        return Int(line.dropFirst(4).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    return 0
}

/// The size of the file at `path`, 0 when there is none.
func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}
