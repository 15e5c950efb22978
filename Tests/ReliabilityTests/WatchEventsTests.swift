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
