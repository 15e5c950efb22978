import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// What `pb watch` tells a script: a `pb copy` is `captured` like any other copy, a `pb restore` is one
    /// `restored`, and when the daemon stops, `pb watch` says so and exits non-zero.
    @Suite struct WatchEvents {
        func expectOneEventPerAction(_ harness: Harness) async throws {
            let daemon = try await harness.startDaemon()
            let watch = try await harness.startWatch()
            try await harness.copy("watched copy")
            let captured = try await eventually(within: .seconds(5), every: .milliseconds(20)) {
                watch.events.contains { $0.event == "captured" }
            }
            #expect(captured, "no captured event for pb copy: \(watch.process.stdout.count) bytes")
            // `captures` holds the daemon's own captures; a pb copy is announced as `captured` by pb.
            let id = try #require(watch.events.first { $0.event == "captured" }?.id)
            try await harness.copy("another copy")
            try await harness.pbSucceeding(["restore", String(id)])
            _ = try await eventually(within: .seconds(5), every: .milliseconds(20)) {
                watch.events.contains { $0.event == "restored" }
            }
            try await Task.sleep(for: .milliseconds(300))  // a duplicate would arrive by now
            let names = watch.events.map(\.event).filter { !$0.hasPrefix("watch-probe") }
            #expect(names == ["captured", "captured", "restored"], "\(names)")
            #expect(watch.events.last?.id == id)

            try await harness.stop(daemon: daemon)
            let exit = try await watch.process.waitForExit(timeout: .seconds(5))
            #expect(exit == .init(status: 1, wasSignalled: false))
            #expect(watch.process.stderr.contains("The daemon stopped; no more events."), "\(watch.process.stderr)")
        }

        @Test func headless() async throws {
            try await expectOneEventPerAction(try Harness(label: "pbwatch"))
        }

        @Test func onX11() async throws {
            try await expectOneEventPerAction(try await Harness(label: "pbwatchx", display: "the pb watch test"))
        }

        /// Every change of the history reaches `pb watch` from the store's change feed, whichever process made it:
        /// an import, an expiry, retention, a pin, a delete, a clear; and a watcher that comes back with the last
        /// `seq` it saw gets exactly what it missed.
        @Test func everyChangeOfTheHistoryIsAnEvent() async throws {
            let harness = try Harness(label: "pbfeed")
            let daemon = try await harness.startDaemon()
            let watch = try await harness.startWatch()
            try await harness.copy("kept for a second", ["--expire", "1s"])
            try await harness.copy("to be pinned")
            let lines = (0..<3).map { #"{"text":"imported \#($0)"}"# }.joined(separator: "\n") + "\n"
            let file = harness.sandbox.root.appendingPathComponent("lines.jsonl")
            try Data(lines.utf8).write(to: file)
            try await harness.pbSucceeding(["import", file.path])
            try await harness.pbSucceeding(["pin", "2"])
            try await harness.pbSucceeding(["unpin", "2"])
            try await harness.pbSucceeding(["pin", "1"])  // kept by retention, still expiring
            try await harness.pbSucceeding(["delete", "3"])
            try await harness.pbSucceeding(["prune", "--max-items", "2"])
            let expected = ["captured", "captured", "imported", "pinned", "unpinned", "deleted", "pruned", "expired"]
            let seen = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
                Set(watch.events.map(\.event)).isSuperset(of: expected)
            }
            let history = watch.events.filter { $0.seq != nil }
            #expect(seen, "\(watch.events.map(\.event))")
            let imported = try #require(history.first { $0.event == "imported" })
            #expect(imported.count == 3 && imported.id == 3 && imported.lastID == 5, "\(imported)")
            let sequences = history.compactMap(\.seq)
            #expect(sequences == Array(sequences[0]...(sequences[0] + Int64(sequences.count) - 1)), "\(sequences)")
            try await harness.pbSucceeding(["clear"])
            _ = try await eventually(within: .seconds(5), every: .milliseconds(20)) {
                watch.events.contains { $0.event == "cleared" }
            }

            // A watcher that saw up to the import is sent everything after it, in order, then what comes.
            let missed = try await harness.startWatch(["--since", String(imported.seq ?? 0)])
            let caughtUp = try await eventually(within: .seconds(5), every: .milliseconds(20)) {
                missed.events.contains { $0.event == "cleared" }
            }
            #expect(caughtUp)
            let replayed = missed.events.filter { $0.seq != nil }
            let after = watch.events.filter { ($0.seq ?? 0) > (imported.seq ?? 0) }
            #expect(replayed.map(\.seq) == after.map(\.seq), "\(replayed) \(after)")
            #expect(replayed.map(\.event) == after.map(\.event))

            // One from another store (a number never given out here) is told to reload.
            let stranger = try await harness.startWatch(["--since", "999999"])
            let told = try await eventually(within: .seconds(5), every: .milliseconds(20)) {
                stranger.events.contains { $0.event == "reload" }
            }
            #expect(told, "\(stranger.events.map(\.event))")
            let bad = try await harness.pb(["watch", "--since", "-4"])
            #expect(bad.status == 64 && bad.stderr.contains("--since needs a change number"), "\(bad)")
            try await harness.stop(daemon: daemon)
        }

        @Test func restoreKeepsTheSourceApplication() async throws {
            let harness = try await Harness(label: "pbsrc", display: "the restore source test")
            let daemon = try await harness.startDaemon()
            try await harness.copy("from pb at first")
            let id = try #require(try await harness.search("from pb at first").first?.id)
            _ = try await harness.sqlite("UPDATE items SET source = 'gedit' WHERE id = \(id)")
            try await harness.pbSucceeding(["restore", String(id)])
            let shown = try await harness.pbSucceeding(["show", String(id)])
            #expect(shown.output.contains("source:      gedit"), "\(shown)")
            let banner = String(decoding: daemon.stdout, as: UTF8.self)
            #expect(banner.contains("PRIMARY: not recorded (set primary = on"), "\(banner)")
            try await harness.stop(daemon: daemon)
        }
    }
}
