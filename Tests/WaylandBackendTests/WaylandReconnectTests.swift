import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The compositor restarts under a running daemon: it says so, retries, connects to the new one on the same
/// socket, holds its item again and records copies again; SIGTERM stops it within 1 s meanwhile. Each test has
/// compositors of its own, in a directory it keeps so that the second comes up on the first one's socket.
@Suite(.timeLimit(.minutes(2))) struct WaylandReconnectTests {
    private static func directory() throws -> URL {
        let url = URL(fileURLWithPath: "/tmp/pbswayre-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func daemonConnectsAgainWhenTheCompositorComesBackAndHoldsItsItemAgain() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }  // best effort: a temporary directory
        let first = try await HeadlessSway(requiredBy: "the Wayland reconnection tests", in: directory)
        let session = try await WaylandSession(sway: first)
        let daemon = try await session.startDaemon()
        try await session.succeed(["copy"], stdin: Data("held across the restart".utf8))
        _ = try await session.waitForHistory(count: 1)

        first.stop()
        #expect(!first.isRunning)
        #expect(try await session.waitForLog(daemon, "the Wayland connection was lost"), "\(daemon.stderr)")
        let doctor = try await session.pb(["doctor"])
        #expect(doctor.output.contains("compositor gone, retrying"), "\(doctor)")
        #expect(daemon.isRunning, "\(daemon.stderr)")

        let second = try await HeadlessSway(requiredBy: "the Wayland reconnection tests", in: directory)
        defer { second.stop() }
        #expect(second.socketPath == first.socketPath)
        #expect(
            try await session.waitForLog(daemon, "connected to the Wayland compositor again"),
            "\(daemon.stderr)")
        // What it held, it holds again.
        let held = try await session.wlPaste()
        #expect(held.succeeded && held.output == "held across the restart", "\(held); \(daemon.stderr)")
        // And it records again.
        try session.wlCopy(Data("copied after the restart".utf8))
        let items = try await session.waitForHistory(count: 2)
        #expect(items.first?["preview"] as? String == "copied after the restart", "\(items); \(daemon.stderr)")
        let healthy = try await session.pb(["doctor"])
        #expect(!healthy.output.contains("compositor gone"), "\(healthy)")
        try await session.stop(daemon: daemon)
    }

    @Test func sigtermStopsTheDaemonWithinOneSecondWhileTheCompositorIsGone() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }  // best effort: a temporary directory
        let sway = try await HeadlessSway(requiredBy: "the Wayland reconnection tests", in: directory)
        let session = try await WaylandSession(sway: sway)
        let daemon = try await session.startDaemon()
        sway.stop()
        #expect(try await session.waitForLog(daemon, "the Wayland connection was lost"), "\(daemon.stderr)")
        // A few attempts in: between two of them, or in one.
        try await Task.sleep(for: .milliseconds(700))

        let clock = ContinuousClock()
        let start = clock.now
        daemon.send(SIGTERM)
        let exit = try await daemon.waitForExit(timeout: .seconds(5))
        let took = (daemon.exitedAt ?? clock.now) - start  // the reaper thread's instant, not this task's wake-up
        #expect(exit == .init(status: 0, wasSignalled: false), "\(String(describing: exit)); \(daemon.stderr)")
        #expect(took < .seconds(1), "pb daemon took \(took) to stop after SIGTERM; \(daemon.stderr)")
    }
}
