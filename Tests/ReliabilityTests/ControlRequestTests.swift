import Foundation
import PasteboardTestSupport
import Testing

extension ReliabilityTests {
    /// Requests a client could send by hand to a running daemon: every one that cannot be done gets an error reply,
    /// never a success that did nothing.
    @Suite struct ControlRequests {
        @Test func restoreOfAnUnknownIdIsAnErrorHeadless() async throws {
            let harness = try Harness(label: "pbctl")
            let daemon = try await harness.startDaemon()
            try await harness.copy("a stored text")
            let socket = harness.runtimeDirectory + "/control.sock"
            let missing = try #require(RawControlSocket.send(["command": "restore", "id": 987_654], to: socket))
            #expect(missing["ok"] as? Bool == false, "\(missing)")
            #expect(missing["error"] as? String == "No history item with id 987654.", "\(missing)")
            let id = try #require(try await harness.itemTexts().keys.first)
            let known = try #require(RawControlSocket.send(["command": "restore", "id": id], to: socket))
            #expect(known["ok"] as? Bool == true, "\(known)")
            let unknown = try #require(RawControlSocket.send(["command": "dance"], to: socket))
            #expect(unknown["ok"] as? Bool == false, "\(unknown)")
            try await harness.stop(daemon: daemon)
        }
    }
}
