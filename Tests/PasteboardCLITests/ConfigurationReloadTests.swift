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

    /// Sends one request line on the daemon's socket and returns its reply line (python3, as a client).
    func request(_ line: String) throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
            s.sendall(sys.argv[2].encode() + b"\\n")
            reply = b""
            while not reply.endswith(b"\\n"):
                chunk = s.recv(65536)
                if not chunk: break
                reply += chunk
            print(reply.decode().strip())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, sandbox.socketPath, line]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

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
