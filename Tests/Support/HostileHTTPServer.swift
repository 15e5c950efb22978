import Foundation

/// The hostile HTTP server of the Copy from URL tests (`Tests/URLFetchingTests/hostile_server.py`) on 127.0.0.1:
/// gzip bombs, redirects to anywhere, raw Location headers, stalls. Stopped with its sandbox.
public struct HostileHTTPServer: Sendable {
    public let process: ChildProcess
    public let port: Int

    /// Starts the server in `sandbox`, on `port` (0: a free one).
    public init(in sandbox: ProcessSandbox, port: Int = 0) async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../URLFetchingTests/hostile_server.py").standardizedFileURL
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            throw SetupFailure("the Copy from URL tests need python3 (Debian package python3)")
        }
        let process = try sandbox.launch("/usr/bin/python3", [script.path, String(port)])
        var found: Int?
        _ = try await eventually(within: .seconds(30), every: .milliseconds(20)) {
            found = Int(String(decoding: process.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            return found != nil || !process.isRunning
        }
        guard let found else { throw SetupFailure("the hostile HTTP server did not start: \(process.stderr)") }
        self.process = process
        self.port = found
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// A redirect to `target`, percent-encoded into the query.
    public func redirect(to target: String) -> String {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return url("redirect?to=\(encoded)")
    }

    /// A redirect whose Location header holds exactly `bytes`.
    public func rawRedirect(_ bytes: [UInt8]) -> String {
        url("redirect-raw?to=" + bytes.map { String(format: "%%%02X", $0) }.joined())
    }
}
