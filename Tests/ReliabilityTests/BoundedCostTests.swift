import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// No rule a user writes and no copy an application makes can wedge the daemon: a catastrophic regex meets a
    /// 100 KB copy built to trip a backtracking engine, capture goes on, and SIGTERM is obeyed within a second,
    /// even while the daemon is busy storing a huge copy.
    @Suite struct BoundedCost {
        @Test func aCatastrophicRuleCannotStopCaptureOrSIGTERM() async throws {
            let harness = try await Harness(label: "pbredos", display: "the ReDoS test")
            try harness.writeConfig("ignore-text = (a+)+$\nignore-text = ^(a|aa)*c$\nignore-text = ^\\d{6}$\n")
            let daemon = try await harness.startDaemon()
            // Each copy waits for the one before to be decided, so none is superseded before its rules run.
            let attack = String(repeating: "a", count: 100_000) + "b"
            try await harness.xclipCopy(Data(attack.utf8))
            #expect(
                try await eventually(within: .seconds(10), every: .milliseconds(50)) { try await harness.itemCount() == 1 },
                "the attack text matches no rule, so it is kept: \(daemon.stderr.suffix(2000))")
            for ignored in [String(repeating: "a", count: 100_000) + "c", "123456"] {
                try await harness.xclipCopy(Data(ignored.utf8))
                let decided = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
                    daemon.stderr.components(separatedBy: "matches an ignore-text rule").count > (ignored == "123456" ? 2 : 1)
                }
                #expect(decided, "\(daemon.stderr.suffix(2000))")
            }
            try await harness.xclipCopy(Data("copied after the attack".utf8))
            let captured = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
                try await harness.itemTexts().values.contains("copied after the attack")
            }
            #expect(captured, "the daemon stopped capturing: \(daemon.stderr.suffix(2000))")
            #expect(try await harness.itemCount() == 2, "the ignored copies are not recorded")

            let started = ContinuousClock.now
            daemon.send(SIGTERM)
            let exit = try await daemon.waitForExit(timeout: .seconds(5))
            let took = (daemon.exitedAt ?? .now) - started  // the reaper thread's instant, not this task's wake-up
            #expect(exit == .init(status: 0, wasSignalled: false), "\(daemon.stderr.suffix(2000))")
            #expect(took < .seconds(1), "SIGTERM took \(took)")
        }

        @Test func sigtermEndsTheDaemonWithinASecondWhileItStoresAHugeCopy() async throws {
            let harness = try await Harness(label: "pbterm", display: "the SIGTERM test")
            let daemon = try await harness.startDaemon()
            try await harness.copy("kept before")
            try await harness.xclipCopy(Payloads.largeText(count: 150_000_000))
            try await Task.sleep(for: .milliseconds(300))  // the daemon is now fetching or storing it
            let started = ContinuousClock.now
            daemon.send(SIGTERM)
            let exit = try await daemon.waitForExit(timeout: .seconds(5))
            let took = (daemon.exitedAt ?? .now) - started  // the reaper thread's instant, not this task's wake-up
            #expect(exit?.wasSignalled == false, "\(daemon.stderr.suffix(2000))")
            #expect(took < .seconds(1), "SIGTERM took \(took)")
            #expect(try await harness.integrityCheck() == "ok")
            #expect(try await harness.itemTexts().values.contains("kept before"))
            let again = try await harness.startDaemon()
            try await harness.stop(daemon: again)
        }
    }
}
