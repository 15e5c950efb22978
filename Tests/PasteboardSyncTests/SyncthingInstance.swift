import Foundation
import PasteboardTestSupport

/// One real Syncthing for a test: its own home and ports on 127.0.0.1, global and local discovery, relays, NAT
/// traversal, upgrades and usage reports off (the recipe in the design notes). Started through the test's sandbox,
/// which stops it when the test ends.
final class SyncthingInstance {
    let name: String
    let home: URL
    let guiPort: Int
    let listenPort: Int
    let apiKey: String
    let deviceID: String
    let process: ChildProcess
    private let sandbox: ProcessSandbox
    private let curl: String

    static let environment: [String: String?] = [
        "STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1", "STNORESTART": "1", "STMONITORED": "1", "STHASHING": "minio",
    ]

    /// The executable, or a failure that says how to install it (also with PB_REQUIRE_DISPLAY unset: a test that
    /// needs Syncthing never passes without it).
    static func executables() throws -> (syncthing: String, curl: String) {
        guard let syncthing = executableOnPath("syncthing"), let curl = executableOnPath("curl") else {
            let required = ProcessInfo.processInfo.environment["PB_REQUIRE_DISPLAY"] == "1" ? " (PB_REQUIRE_DISPLAY=1)" : ""
            throw SetupFailure(
                "syncthing or curl is not installed, so the Syncthing sync tests cannot run\(required). "
                    + "Install them with 'apt-get install -y syncthing curl'.")
        }
        return (syncthing, curl)
    }

    init(name: String, sandbox: ProcessSandbox, guiPort: Int, listenPort: Int) async throws {
        let (syncthing, curl) = try Self.executables()
        self.name = name
        self.sandbox = sandbox
        self.curl = curl
        self.guiPort = guiPort
        self.listenPort = listenPort
        home = try sandbox.directory("syncthing-\(name)")
        let generate = try await sandbox.launch(
            syncthing, ["generate", "--home=\(home.path)", "--no-default-folder", "--skip-port-probing"],
            environment: Self.environment
        ).finish(timeout: .seconds(30))
        guard generate.status == 0 else { throw SetupFailure("syncthing generate failed: \(generate)") }
        let id = try await sandbox.launch(syncthing, ["serve", "--home=\(home.path)", "--device-id"], environment: Self.environment)
            .finish(timeout: .seconds(30))
        deviceID = id.output.trimmingCharacters(in: .whitespacesAndNewlines)
        apiKey = "pbtest" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20)
        let configURL = home.appendingPathComponent("config.xml")
        var config = try String(contentsOf: configURL, encoding: .utf8)
        let replacements: [(String, String)] = [
            (#"<address>127\.0\.0\.1:8384</address>"#, "<address>127.0.0.1:\(guiPort)</address>"),
            (#"<apikey>[^<]*</apikey>"#, "<apikey>\(apiKey)</apikey>"),
            (#"<listenAddress>default</listenAddress>"#, "<listenAddress>tcp://127.0.0.1:\(listenPort)</listenAddress>"),
            (#"<globalAnnounceEnabled>true</globalAnnounceEnabled>"#, "<globalAnnounceEnabled>false</globalAnnounceEnabled>"),
            (#"<localAnnounceEnabled>true</localAnnounceEnabled>"#, "<localAnnounceEnabled>false</localAnnounceEnabled>"),
            (#"<relaysEnabled>true</relaysEnabled>"#, "<relaysEnabled>false</relaysEnabled>"),
            (#"<natEnabled>true</natEnabled>"#, "<natEnabled>false</natEnabled>"),
            (#"<startBrowser>true</startBrowser>"#, "<startBrowser>false</startBrowser>"),
            (#"<urAccepted>0</urAccepted>"#, "<urAccepted>-1</urAccepted>"),
            (#"<crashReportingEnabled>true</crashReportingEnabled>"#, "<crashReportingEnabled>false</crashReportingEnabled>"),
            (#"<autoUpgradeIntervalH>12</autoUpgradeIntervalH>"#, "<autoUpgradeIntervalH>0</autoUpgradeIntervalH>"),
        ]
        for (pattern, replacement) in replacements {
            guard config.range(of: pattern, options: .regularExpression) != nil else {
                throw SetupFailure("Syncthing's generated config.xml has no \(pattern); the recipe needs updating.")
            }
            config = config.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        process = try sandbox.launch(
            syncthing, ["serve", "--home=\(home.path)", "--no-browser", "--no-restart", "--no-upgrade"],
            environment: Self.environment)
        // Up in a second or two here; a full parallel test run on a loaded machine (load average 40) took over 20 s.
        let up = try await eventually(within: .seconds(60), every: .milliseconds(100)) {
            (try? await self.get("/rest/system/ping")) != nil  // not answering yet
        }
        guard up else { throw SetupFailure("Syncthing \(name) did not answer on port \(guiPort): \(process.stderr.suffix(2000))") }
    }

    // MARK: - REST

    private func request(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        var arguments = [
            "-sS", "--fail", "--max-time", "5", "-X", method, "-H", "X-API-Key: \(apiKey)",
            "http://127.0.0.1:\(guiPort)\(path)",
        ]
        if body != nil { arguments += ["-H", "Content-Type: application/json", "--data-binary", "@-"] }
        let result = try await sandbox.run(curl, arguments, stdin: body, timeout: .seconds(10))
        guard result.status == 0 else { throw SetupFailure("\(method) \(path) failed: \(result)") }
        return result.stdout
    }

    func get(_ path: String) async throws -> Data { try await request("GET", path) }

    func post(_ path: String, json: [String: Any]) async throws {
        _ = try await request("POST", path, body: try JSONSerialization.data(withJSONObject: json))
    }

    /// Introduces `peer` (at its explicit loopback address).
    func add(peer: SyncthingInstance) async throws {
        try await post(
            "/rest/config/devices",
            json: ["deviceID": peer.deviceID, "name": peer.name, "addresses": ["tcp://127.0.0.1:\(peer.listenPort)"]])
    }

    /// Shares `path` as folder `id` with `peers`; `watcherDelay` is Syncthing's `fsWatcherDelayS`.
    func share(folder id: String, path: URL, with peers: [SyncthingInstance], watcherDelay: Int = 1) async throws {
        try await post(
            "/rest/config/folders",
            json: [
                "id": id, "label": id, "path": path.path, "type": "sendreceive", "fsWatcherEnabled": true,
                "fsWatcherDelayS": watcherDelay, "rescanIntervalS": 3600,
                "devices": ([self] + peers).map { ["deviceID": $0.deviceID] },
            ])
    }

    func isConnected(to peer: SyncthingInstance) async throws -> Bool {
        let data = try await get("/rest/system/connections")
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let connections = object?["connections"] as? [String: Any]
        return (connections?[peer.deviceID] as? [String: Any])?["connected"] as? Bool == true
    }
}
