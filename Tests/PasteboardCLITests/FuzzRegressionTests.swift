import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Inputs the fuzz targets in `Fuzz/` found crashing `pb` (see `scripts/fuzz.sh`): each must now be refused with
/// an error, never kill the process.
@Suite struct FuzzRegressionTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Fuzz/item-line.swift: ISO8601DateFormatter (ICU) died of SIGFPE on a fraction of 40-odd digits.
    @Test(arguments: [
        "2026-11-29T14:55:00.000" + String(repeating: "9", count: 40) + "Z",
        "2026-11-29T14:55:00." + String(repeating: "0", count: 100) + "Z",
        "2026-11-29T14:55:00.0000000001Z",
        "+2026-11-29T14:55:00Z",
        "२०२६-११-२९T14:55:00Z",
    ])
    func importRefusesADateOfTheWrongShape(date: String) async throws {
        let line = #"{"text":"dated","created":"\#(date)"}"# + "\n"
        let result = try await sandbox.run(["import", "-"], stdin: Data(line.utf8))
        #expect(!result.wasSignalled && result.status == 1, "\(result)")
        #expect(result.stderr.contains(#""created" is not a date"#), "\(result)")
        #expect(try await sandbox.history().isEmpty)
    }

    /// Seconds since 1970 beyond what a date can be written as (years 1 to 9999) are not dates either: shown in
    /// `pb history`, a date 1e30 s ago trapped converting its age in years to Int.
    @Test(arguments: ["-1e30", "1e300", "253402300800", "-62135596801"])
    func importRefusesSecondsOutsideYearsOneToNineThousand(seconds: String) async throws {
        let line = #"{"text":"dated","lastCopied":\#(seconds)}"# + "\n"
        let result = try await sandbox.run(["import", "-"], stdin: Data(line.utf8))
        #expect(!result.wasSignalled && result.status == 1, "\(result)")
        #expect(result.stderr.contains(#""lastCopied" is outside the years 1 to 9999"#), "\(result)")
    }

    @Test func importStillTakesTheDatesExportWrites() async throws {
        let line = #"{"text":"dated","created":"2026-11-29T14:55:34.123Z","lastCopied":"2026-11-30T01:02:03+05:30"}"#
        try await sandbox.succeed(["import", "-"], stdin: Data((line + "\n").utf8))
        let export = try await sandbox.succeed(["export"])
        #expect(export.output.contains(#""created":"2026-11-29T14:55:34.123Z""#), "\(export)")
        #expect(export.output.contains(#""lastCopied":"2026-11-29T19:32:03.000Z""#), "\(export)")
    }

    /// Fuzz/configuration.swift: `Units.bytes` trapped converting a size beyond Int.max ("1e30G", "inf k") to Int.
    @Test(arguments: ["1e30G", "8333333333333333333333k", "inf k", "9223372036854775807k"])
    func configurationRefusesASizeTooLargeToCount(size: String) async throws {
        try sandbox.writeConfig("max-bytes = \(size)\n")
        let result = try await sandbox.run(["history"])
        #expect(!result.wasSignalled && result.status == 1, "\(result)")
        #expect(result.stderr.contains("max-bytes needs a size like 500M or 2G."), "\(result)")
    }

    @Test func pruneRefusesASizeTooLargeToCount() async throws {
        let result = try await sandbox.run(["prune", "--max-bytes", "1e300G"])
        #expect(!result.wasSignalled && result.status == 64, "\(result)")
    }

    /// A duration whose seconds overflow to infinity ("1e308w") is not a duration.
    @Test func copyRefusesAnInfiniteExpiry() async throws {
        let result = try await sandbox.run(["copy", "--expire", "1e308w"], stdin: Data("x".utf8))
        #expect(!result.wasSignalled && result.status == 64, "\(result)")
        #expect(result.stderr.contains("--expire '1e308w': a duration is a positive number"), "\(result)")
    }

    /// Fuzz/control-protocol.swift: `notify` passed any object on to watchers, though every event must have an
    /// `event` name (docs/protocol.md); one without is now refused, and watchers get only named events.
    @Test func daemonRefusesToBroadcastAnEventWithoutAName() async throws {
        let daemon = try sandbox.launch(["daemon"])
        defer { daemon.send(SIGTERM) }
        let up = try await eventually(within: .seconds(10)) {
            FileManager.default.fileExists(atPath: sandbox.socketPath)
        }
        try #require(up, "pb daemon did not come up: \(daemon.stderrSoFar)")
        let watcher = try #require(RawControlConnection(path: sandbox.socketPath))
        #expect(watcher.request(#"{"command":"watch"}"#)?.contains(#""watching":true"#) == true)

        let client = try #require(RawControlConnection(path: sandbox.socketPath))
        for bad in [#"{"command":"notify","event":{"evedt":"pinned","id":1}}"#, #"{"command":"notify","event":7}"#] {
            let reply = client.request(bad)
            #expect(reply?.contains(#""ok":false"#) == true, "\(bad): \(reply ?? "no reply")")
        }
        // A name of a client's own is passed on (a change of the history, such as "pinned", comes from the store's
        // change feed instead, never from a client's word).
        #expect(client.request(#"{"command":"notify","event":{"event":"pinned","id":1}}"#) == #"{"ok":true}"#)
        #expect(client.request(#"{"command":"notify","event":{"event":"my-news","id":1}}"#) == #"{"ok":true}"#)
        let event = try #require(watcher.readLine(), "the watcher got nothing")
        #expect(event.contains(#""event":"my-news""#), "the first event a watcher gets is the named one: \(event)")
    }

    /// Fuzz/control-protocol.swift: replies that did not fit in the client's socket at once were dropped, so a
    /// client sending many requests before reading waited forever. Every request gets its reply, in order.
    @Test func daemonAnswersEveryRequestOfAClientThatSendsManyBeforeReading() async throws {
        let daemon = try sandbox.launch(["daemon"])
        defer { daemon.send(SIGTERM) }
        let up = try await eventually(within: .seconds(10)) {
            FileManager.default.fileExists(atPath: sandbox.socketPath)
        }
        try #require(up, "pb daemon did not come up: \(daemon.stderrSoFar)")
        let client = try #require(RawControlConnection(path: sandbox.socketPath))
        let count = 5000
        let requests = Array(String(repeating: #"{"command":"ping"}"# + "\n", count: count).utf8)
        #expect(send(client.fd, requests, requests.count, Int32(MSG_NOSIGNAL)) == requests.count)
        try await Task.sleep(for: .seconds(1))  // not reading yet: the replies fill the socket
        var replies = 0
        while replies < count, let reply = client.readLine() {
            guard reply.hasPrefix(#"{"ok":true,"pid":"#) else {
                Issue.record("reply \(replies + 1) is \(reply)")
                break
            }
            replies += 1
        }
        #expect(replies == count, "\(replies) of \(count) requests answered")
        #expect(client.request(#"{"command":"ping"}"#)?.hasPrefix(#"{"ok":true"#) == true, "the connection still works")
    }
}
