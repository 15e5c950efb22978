import Foundation
import PasteboardTestSupport
import Testing

/// `pb daemon` as a real subprocess: it expires items on time, runs once per user, and stops cleanly on SIGTERM.
@Suite struct DaemonTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Starts `pb daemon` and waits until `pb doctor` reports it running.
    func startDaemon() async throws -> LaunchedProcess {
        let daemon = try sandbox.launch(["daemon"])
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            guard daemon.isRunning, FileManager.default.fileExists(atPath: sandbox.socketPath) else { return false }
            let doctor = try await sandbox.run(["doctor"])
            return doctor.outputLines.contains { $0.hasPrefix("daemon:   running (pid ") }
        }
        try #require(ready, "pb daemon did not come up within 10 s; its stderr: \(daemon.stderrSoFar)")
        return daemon
    }

    /// Stops the daemon with SIGTERM and returns how it exited.
    func stop(_ daemon: LaunchedProcess) async throws -> PBResult {
        daemon.send(SIGTERM)
        let exit = try await daemon.waitForExit(timeout: .seconds(10))
        return try #require(exit, "pb daemon ignored SIGTERM for 10 s; its stderr: \(daemon.stderrSoFar) \((try? String(contentsOfFile: "/proc/\(daemon.processIdentifier)/status", encoding: .utf8)) ?? "")")
    }

    /// Items in the store (with an expiry date, if asked), counted with the sqlite3 tool: every pb command
    /// drops expired items itself when it opens the store, which would hide what the daemon did or did not do.
    func storedItemCount(expiring: Bool = false) throws -> Int? {
        let sql = "SELECT count(*) FROM items" + (expiring ? " WHERE expires_at IS NOT NULL;" : ";")
        return Int(try SQLiteTool.run(sql, on: sandbox.databaseURL, in: sandbox))
    }

    @Test func expiredItemIsRemovedByADaemonStartedLater() async throws {
        try await sandbox.copy("keeper")
        try await sandbox.copy("secret token", ["--expire", "1s"])
        #expect(try storedItemCount() == 2)
        #expect(try storedItemCount(expiring: true) == 1)
        try await Task.sleep(for: .seconds(1))

        let daemon = try await startDaemon()
        let started = ContinuousClock.now
        let removed = try await eventually(within: .seconds(3), every: .milliseconds(50)) { try storedItemCount() == 1 }
        #expect(removed, "the expired item is still stored \(ContinuousClock.now - started) after the daemon started")
        #expect(try storedItemCount(expiring: true) == 0)
        #expect(daemon.stderrSoFar.contains("pb daemon: expired 1 item"), "\(daemon.stderrSoFar)")
        #expect(try await sandbox.history().map(\.preview) == ["keeper"])
        let paste = try await sandbox.run(["paste"])
        #expect(paste.stdout != Data("secret token".utf8), "an expired secret must not stay on the clipboard")
        _ = try await stop(daemon)
    }

    /// A store from before schema 9 has no letters for its blocks (short searches read them whole); the daemon computes
    /// them in its housekeeping, and a block a delete made unknown too.
    @Test func theDaemonComputesTheLettersOfOlderBlocksAndOfDeletedOnes() async throws {
        let lines = (0..<3_000).map { #"{"text":"item \#($0) "# + ($0 == 10 ? "qz" : "ab") + #""}"# }.joined(separator: "\n")
        let file = try sandbox.file("io/items.jsonl", Data((lines + "\n").utf8))
        try await sandbox.succeed(["import", file.path])
        try SQLiteTool.run(
            "DELETE FROM search_blocks; UPDATE search_blocks_since SET block = 100;", on: sandbox.databaseURL, in: sandbox)
        func since() throws -> Int? { Int(try SQLiteTool.run("SELECT block FROM search_blocks_since;", on: sandbox.databaseURL, in: sandbox)) }
        func unknown() throws -> Int? {
            Int(try SQLiteTool.run("SELECT count(*) FROM search_blocks WHERE grams IS NULL;", on: sandbox.databaseURL, in: sandbox))
        }
        let lowest = try #require(Int(try SQLiteTool.run("SELECT min(position) >> 10 FROM items;", on: sandbox.databaseURL, in: sandbox)))
        let daemon = try await startDaemon()
        let computed = try await eventually(within: .seconds(10), every: .milliseconds(100)) { try since() == lowest }
        let sinceNow = try since()
        #expect(computed, "search_blocks_since is \(String(describing: sinceNow)), not \(lowest)")
        #expect(try await sandbox.succeed(["search", "qz"]).outputLines.count == 1)
        // A delete through the daemon: its block is unknown at once, then computed again.
        let id = try #require(try await sandbox.succeed(["search", "--format", "dmenu", "qz"]).outputLines.first?.split(separator: "\t").first)
        try await sandbox.succeed(["delete", String(id)])
        let recomputed = try await eventually(within: .seconds(10), every: .milliseconds(100)) { try unknown() == 0 }
        let unknownNow = try unknown()
        #expect(recomputed, "\(String(describing: unknownNow)) blocks still unknown")
        let result = try await sandbox.run(["search", "qz"])
        #expect(result.outputLines.isEmpty)
        _ = try await stop(daemon)
    }

    @Test func everyLogLineStartsWithItsTime() async throws {
        let daemon = try await startDaemon()
        try await sandbox.copy("logged by id only", ["--expire", "250ms"])
        _ = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            daemon.stderrSoFar.contains("expired 1 item")
        }
        _ = try await stop(daemon)
        let lines = daemon.stderrSoFar.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2, "\(lines)")
        let stamped = #/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} pb daemon: /#
        for line in lines { #expect(line.contains(stamped), "\(line)") }
    }

    @Test func runningDaemonExpiresANewCopyOnTime() async throws {
        let daemon = try await startDaemon()
        try await sandbox.copy("plain")
        try await sandbox.copy("one-time password", ["--expire", "1s"])
        let copied = ContinuousClock.now
        // Not checked before it is due: on a loaded machine the second already passed by now.
        let removed = try await eventually(within: .seconds(3), every: .milliseconds(50)) { try storedItemCount() == 1 }
        #expect(removed, "the daemon left the expired item in place for \(ContinuousClock.now - copied)")
        #expect(daemon.stderrSoFar.contains("expired 1 item"), "\(daemon.stderrSoFar)")
        let paste = try await sandbox.run(["paste"])
        #expect(paste.stdout != Data("one-time password".utf8))
        _ = try await stop(daemon)
    }

    @Test func sigtermStopsCleanlyAndASecondDaemonIsRefused() async throws {
        let daemon = try await startDaemon()
        let second = try await sandbox.run(["daemon"], timeout: .seconds(15))
        #expect(second.status == 1, "\(second)")
        #expect(second.errorLines.count == 1, "\(second)")
        #expect(second.stderr.contains("already running"), "\(second)")
        #expect(daemon.isRunning, "the refused second daemon must not disturb the first")
        #expect(FileManager.default.fileExists(atPath: sandbox.socketPath))

        let exit = try await stop(daemon)
        #expect(exit.status == 0, "\(exit)")
        #expect(!exit.wasSignalled, "\(exit)")
        #expect(exit.output.contains("Pasteboard daemon 0.1.0 running (headless backend"), "\(exit)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.socketPath), "the socket is removed on exit")
        let doctor = try await sandbox.run(["doctor"])
        #expect(doctor.outputLines.contains { $0.hasPrefix("daemon:   not running") }, "\(doctor)")
    }

    @Test func unknownBackendIsAUsageError() async throws {
        let result = try await sandbox.run(["daemon", "--backend", "carrier-pigeon"])
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("Error: Unknown backend 'carrier-pigeon'. Available: ") == true, "\(result)")
        #expect(result.errorLines.last == "  See 'pb daemon --help'.")
        #expect(!FileManager.default.fileExists(atPath: sandbox.socketPath))
    }

    @Test func doctorWithoutADaemon() async throws {
        let result = try await sandbox.run(["doctor"])
        #expect(result.status == 0, "\(result)")
        #expect(result.outputLines.first == "display:  none (headless)")
        #expect(result.outputLines.contains("store:    \(sandbox.databaseURL.path) (0 items)"))
        #expect(result.outputLines.contains { $0.hasPrefix("daemon:   not running") })
        #expect(result.outputLines.last == "All good.")
    }
}
