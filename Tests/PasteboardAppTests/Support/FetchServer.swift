import Foundation
import PasteboardTestSupport

/// The local HTTP server of the "Copy from URL" tests (`fetch_server.py` beside this file) on 127.0.0.1.
struct FetchServer {
    let process: ChildProcess
    let port: Int

    init(in sandbox: ProcessSandbox) async throws {
        let filePath = #filePath
        let python =
            FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            ? "/usr/bin/python3" : try AppSession.tool("python3", package: "python3")
        let script = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(
            "fetch_server.py")
        process = try sandbox.launch(python, [script.path])
        var port: Int?
        let process = self.process
        _ = try await eventually(within: .seconds(10), every: .milliseconds(20)) {
            port = Int(String(decoding: process.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            return port != nil || !process.isRunning
        }
        guard let port else { throw SetupFailure("the test HTTP server did not start: \(process.stderr)") }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
}
