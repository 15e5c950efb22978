import Foundation
import PasteboardTestSupport
import Testing

/// `pb daemon`'s log lines carry the user's local time, from the time zone in `TZ`.
///
/// pb links FoundationEssentials alone, where `TimeZone.current` is GMT whatever `TZ` says: a log time made with it
/// would be off by the zone's offset. The daemon runs here with a zone five and a half hours east of UTC (a POSIX `TZ`
/// rule, which needs no tzdata), so a time written in UTC fails by hours.
@Suite struct DaemonLogTimeTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// `TZ=PBT-5:30`: POSIX writes the offset west of UTC, so this is UTC+5:30.
    static let zone = "PBT-5:30"
    static let offset: TimeInterval = 5.5 * 3600

    @Test func logLinesShowTheLocalTimeOfTZ() async throws {
        let daemon = try sandbox.launch(["daemon", "--backend", "headless"], environment: ["TZ": Self.zone])
        let started = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            daemon.stdoutSoFar.contains("Stop with Ctrl-C.")
        }
        let before = Date()
        daemon.send(SIGTERM)
        _ = try await daemon.waitForExit(timeout: .seconds(10))
        let after = Date()
        try #require(started, "no start message; stdout: \(daemon.stdoutSoFar) stderr: \(daemon.stderrSoFar)")
        // "2026-12-01 10:05:01.123 pb daemon: received signal 15"
        let line = try #require(
            daemon.stderrSoFar.split(separator: "\n").first { $0.contains("pb daemon: received signal") },
            "no log line for the signal; stderr: \(daemon.stderrSoFar)")
        let logged = try #require(Self.wallClock(String(line.prefix(23))), "no time at the start of '\(line)'")
        // The logged wall-clock time read as UTC, less the zone's offset, is the instant it was written.
        let instant = logged.addingTimeInterval(-Self.offset)
        #expect(
            instant >= before.addingTimeInterval(-2) && instant <= after.addingTimeInterval(2),
            "'\(line)' is not UTC+5:30 between \(before) and \(after) (UTC)")
    }

    /// `2026-12-01 10:05:01.123` read as a UTC date.
    static func wallClock(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { " -:.".contains($0) }).compactMap { Int($0) }
        guard parts.count == 7 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5],
            nanosecond: parts[6] * 1_000_000)
        return calendar.date(from: components)
    }
}
