import Foundation
import PasteboardTestSupport
import Testing

/// `reload-config` (what the app's settings window sends after it saved): the running `pb daemon` reads the file
/// again and applies its retention at once; a file with a problem is refused with pb's message, and the daemon
/// keeps what it had.
@Suite struct ConfigurationReloadTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func request(_ line: String) throws -> String { try sandbox.controlRequest(line) }

    func storedItemCount() throws -> Int? {
        Int(try SQLiteTool.run("SELECT count(*) FROM items;", on: sandbox.databaseURL, in: sandbox))
    }

    @Test func theDaemonAppliesTheNewRetentionAndRefusesABadFile() async throws {
        try sandbox.writeConfig("max-items = 10\n")
        for text in ["one", "two", "three"] { try await sandbox.copy(text) }
        let daemon = try sandbox.launch(["daemon"])
        defer { daemon.send(SIGTERM) }
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            daemon.isRunning && FileManager.default.fileExists(atPath: sandbox.socketPath)
        }
        try #require(ready, "pb daemon did not come up: \(daemon.stderrSoFar)")
        #expect(try storedItemCount() == 3)

        try sandbox.writeConfig("max-items = 1\n")
        #expect(try request(#"{"command":"reload-config"}"#) == #"{"ok":true}"#)
        #expect(try storedItemCount() == 1)

        try sandbox.writeConfig("max-items = 1\nmax-age.image = soon\n")
        let refused = try request(#"{"command":"reload-config"}"#)
        #expect(refused.contains(#""ok":false"#), "\(refused)")
        #expect(refused.contains("config:2: max-age.image: a duration is a positive number"), "\(refused)")
        #expect(daemon.isRunning)
        #expect(try request(#"{"command":"ping"}"#).contains(#""ok":true"#))
    }
}
