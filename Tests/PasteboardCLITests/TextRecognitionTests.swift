import Foundation
import PasteboardTestSupport
import Testing

/// Words in pictures, end to end: pictures rendered by ImageMagick, copied through `pb copy` to a real headless
/// `pb daemon`, whose worker reads them with Tesseract (pasteboard-ocr); then `pb search`, `pb show`, `pb stats` and
/// the store itself are looked at.
@Suite struct TextRecognitionTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// A PNG of `text` in black on white, 800×200 (ImageMagick's `convert`).
    func picture(_ text: String) throws -> Data {
        guard let convert = executableOnPath("convert") else {
            throw SetupFailure("ImageMagick's convert is needed to render test pictures (apt-get install -y imagemagick).")
        }
        let url = sandbox.root.appendingPathComponent("picture-\(UUID().uuidString).png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: convert)
        process.arguments = [
            "-size", "800x200", "xc:white", "-fill", "black", "-pointsize", "48", "-annotate", "+30+120", text, url.path,
        ]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "convert failed")
        return try Data(contentsOf: url)
    }

    func startDaemon() async throws -> LaunchedProcess {
        let daemon = try sandbox.launch(["daemon"])
        let ready = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            guard daemon.isRunning, FileManager.default.fileExists(atPath: sandbox.socketPath) else { return false }
            return try await sandbox.run(["doctor"]).outputLines.contains { $0.hasPrefix("daemon:   running (pid ") }
        }
        try #require(ready, "pb daemon did not come up within 10 s; its stderr: \(daemon.stderrSoFar)")
        return daemon
    }

    /// The ids `pb search QUERY` lists.
    func search(_ query: String) async throws -> [Int64] {
        let result = try await sandbox.run(["search", "--json", query])
        try #require(result.status == 0 || result.status == 1, "\(result)")  // 1: nothing matches
        return result.status == 1 ? [] : try Sandbox.entries(fromJSON: result.stdout).map(\.id)
    }

    /// Waits until `pb stats` says `done` of the images were looked at.
    func waitForRecognition(_ done: Int, of images: Int, daemon: LaunchedProcess) async throws {
        let line = "image text:   \(done) of \(images) images read"
        let seen = try await eventually(within: .seconds(60), every: .milliseconds(200)) {
            try await sandbox.succeed(["stats"]).outputLines.contains { $0.hasPrefix(line) }
        }
        try #require(seen, "no '\(line)' within 60 s; the daemon's stderr: \(daemon.stderrSoFar)")
    }

    @Test func aCopiedPictureIsFoundByItsWordsShownAndForgottenWithTheItem() async throws {
        let daemon = try await startDaemon()
        try await sandbox.copy("an older text neighbour")
        try await sandbox.copy(try picture("quarterly zebra revenue 4711"), ["--type", "image/png"])
        let id = try #require(try await sandbox.history().first?.id)
        try await waitForRecognition(1, of: 1, daemon: daemon)
        #expect(try await search("zebra") == [id])
        #expect(try await search("4711") == [id])
        #expect(try await search("quarterly revenue") == [])  // words apart are not one substring
        let show = try await sandbox.succeed(["show", String(id)]).outputLines
        let heading = try #require(show.firstIndex(of: "Recognized text:"), "\(show)")
        #expect(show.dropFirst(heading + 1).contains("quarterly zebra revenue 4711"), "\(show)")
        try await sandbox.succeed(["delete", String(id)])
        #expect(try await search("zebra") == [])
        let indexed = try SQLiteTool.run(
            "SELECT count(*) FROM item_text WHERE item_text MATCH '\"zeb\" AND \"ebr\" AND \"bra\"'",
            on: sandbox.databaseURL, in: sandbox)
        #expect(indexed == "0")
        #expect(try SQLiteTool.run("SELECT count(*) FROM recognized_text", on: sandbox.databaseURL, in: sandbox) == "0")
        #expect(daemon.isRunning)
    }

    @Test func secretLocalAndExpiringPicturesAreNeverRead() async throws {
        let daemon = try await startDaemon()
        try await sandbox.copy(try picture("secret zebra 1111"), ["--type", "image/png", "--ask"])
        try await sandbox.copy(try picture("local zebra 2222"), ["--type", "image/png", "--local"])
        try await sandbox.copy(try picture("expiring zebra 3333"), ["--type", "image/png", "--expire", "1h"])
        try await sandbox.copy(try picture("plain walrus 4444"), ["--type", "image/png"])
        try await waitForRecognition(4, of: 4, daemon: daemon)
        #expect(try await search("walrus").count == 1)
        #expect(try await search("zebra") == [])
        #expect(try await sandbox.succeed(["stats"]).output.contains("(3 excluded)"))
        let texts = try SQLiteTool.run(
            "SELECT count(*) FROM recognized_text WHERE text <> ''", on: sandbox.databaseURL, in: sandbox)
        #expect(texts == "1")
    }

    @Test func ocrOffReadsNothing() async throws {
        try sandbox.writeConfig("ocr = off\n")
        let daemon = try await startDaemon()
        try await sandbox.copy(try picture("quarterly zebra revenue 4711"), ["--type", "image/png"])
        // Long enough for a worker to read it (a second at most here), were there one.
        try await Task.sleep(for: .seconds(4))
        #expect(try await search("zebra") == [])
        #expect(try await sandbox.succeed(["stats"]).output.contains("image text:   0 of 1 images read"))

        // Turned on in the file, and the running daemon told (as the app's settings window does): read at once.
        try sandbox.writeConfig("ocr = on\n")
        #expect(try sandbox.controlRequest(#"{"command":"reload-config"}"#) == #"{"ok":true}"#)
        try await waitForRecognition(1, of: 1, daemon: daemon)
        #expect(try await search("zebra").count == 1)
        #expect(daemon.isRunning)
    }
}
