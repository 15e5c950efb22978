import Foundation
import PasteboardTestSupport
import Testing

/// `pb import --from NAME [PATH]`: other clipboard managers' histories. CopyQ runs for real (under Xvfb); GPaste's
/// fixture was made by GPaste 43, Klipper's, Maccy's and clipboard-indicator's by Tests/Fixtures/Importers/
/// make_fixtures.py from their formats; cliphist is a small script standing in for the program (not in Debian 12).
@Suite struct ImportFromManagerTests {
    let sandbox: Sandbox
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Importers")

    init() throws {
        sandbox = try Sandbox()
    }

    func fixture(_ path: String) -> String { Self.fixtures.appendingPathComponent(path).path }

    /// The 5×6 PNG of the written fixtures (and of the CopyQ ones: the same image was given to CopyQ), as base64.
    func fixturePNG() throws -> String {
        "base64:" + (try Data(contentsOf: Self.fixtures.appendingPathComponent("clipboard-indicator/5f2b1d"))).base64EncodedString()
    }

    /// A copy of a fixture whose `@DIR@` names the fixture's directory (where its payload files are).
    func located(_ path: String) throws -> String {
        let url = Self.fixtures.appendingPathComponent(path)
        let text = try String(contentsOf: url, encoding: .utf8)
            .replacingOccurrences(of: "@DIR@", with: url.deletingLastPathComponent().path)
        return try sandbox.file(url.lastPathComponent, Data(text.utf8)).path
    }

    func run(_ arguments: [String], environment: [String: String?] = [:]) async throws -> PBResult {
        try await sandbox.run(arguments, environment: environment)
    }

    /// The bytes of each representation of each item, newest first, from `pb export`.
    func exported() async throws -> [[String: String]] {
        let export = try await sandbox.succeed(["export"])
        return try export.outputLines.reversed().map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let representations = try #require(object["representations"] as? [[String: Any]])
            var result: [String: String] = [:]
            for representation in representations {
                let type = try #require(representation["type"] as? String)
                result[type] = (representation["text"] as? String) ?? (representation["base64"] as? String).map { "base64:" + $0 }
            }
            result["pinned"] = "\(object["pinned"] as? Bool ?? false)"
            return result
        }
    }

    @Test func aHistoryCopyQ64MadeComesOverWithEveryFormatAndThePNGByteExact() async throws {
        guard let copyq = executableOnPath("copyq") else { throw SetupFailure("copyq is not installed (apt-get install copyq).") }
        let io = sandbox.root.appendingPathComponent("io")
        let display = try await VirtualDisplay(ioDirectory: io, requiredBy: "the CopyQ import test")
        let config = sandbox.root.appendingPathComponent("copyq-config")
        var environment = sandbox.environment
        environment["DISPLAY"] = display.name
        environment["XDG_CONFIG_HOME"] = config.path
        environment["QT_QPA_PLATFORM"] = "xcb"
        let server = try ChildProcess(executable: copyq, arguments: [], environment: environment, stdin: nil, ioDirectory: io)
        defer { server.terminate(grace: .seconds(2)) }
        func client(_ arguments: [String], stdin: URL? = nil) async throws -> ProcessResult {
            let process = try ChildProcess(
                executable: copyq, arguments: arguments, environment: environment, stdin: stdin, ioDirectory: io)
            return try await process.finish(timeout: .seconds(30))
        }
        #expect(try await eventually(within: .seconds(30), every: .milliseconds(300)) { try await client(["count"]).status == 0 })
        let png = try sandbox.file("image.png", Payloads.png)
        #expect(try await client(["add", "plain zebra text"]).status == 0)
        #expect(try await client(["write", "text/html", "<b>bold zebra</b>", "text/plain", "bold zebra"]).status == 0)
        #expect(try await client(["write", "image/png", "-"], stdin: png).status == 0)
        #expect(try await client(["plugins.itempinned.pin(2)"]).status == 0)
        _ = try await client(["exit"])
        _ = try await server.waitForExit(timeout: .seconds(20))

        let imported = try await run(["import", "--from", "copyq", config.appendingPathComponent("copyq").path])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.starts(with: Data("Imported 3 items (4 formats) from copyq".utf8)), "\(imported)")
        let items = try await exported()
        #expect(items.count == 3)
        #expect(items[0]["public.png"] == "base64:" + Payloads.png.base64EncodedString(), "the PNG byte for byte")
        #expect(items[1]["public.html"] == "<b>bold zebra</b>" && items[1]["public.plain-text"] == "bold zebra", "\(items)")
        #expect(items[2]["public.plain-text"] == "plain zebra text" && items[2]["pinned"] == "true", "\(items)")

        let export = try await sandbox.succeed(["export"])
        let again = try await run(["import", "--from", "copyq", config.appendingPathComponent("copyq").path])
        #expect(again.stdout.starts(with: Data("Imported 0 items".utf8)), "importing twice adds nothing: \(again)")
        #expect(try await sandbox.succeed(["export"]).stdout == export.stdout, "and changes nothing (counts, order)")

        // pb's own export carries every format of these items to another store and back unchanged.
        let fresh = try Sandbox()
        try await fresh.succeed(["import", try fresh.file("backup.jsonl", export.stdout).path])
        #expect(try await fresh.succeed(["export"]).stdout == export.stdout)
    }

    @Test func aCopyQExportAndATabFileGiveTheSameItems() async throws {
        try await sandbox.succeed(["import", "--from", "copyq", fixture("copyq/export.cpq")])
        let fromExport = try await exported()
        let other = try Sandbox()
        try await other.succeed(["import", "--from", "copyq", fixture("copyq/copyq_tab_JmNsaXBib2FyZA==.dat")])
        #expect(fromExport.count == 3)
        #expect(try await other.history().map(\.types) == (try await sandbox.history()).map(\.types))
        #expect(fromExport[0]["public.png"] == (try fixturePNG()))
    }

    @Test(arguments: [
        ("copyq", "copyq/truncated.dat", "at byte 193 (item 2)"),
        ("klipper", "klipper/truncated.lst", "(item 3)"),
        ("klipper", "klipper/short.lst", "at byte 8"),
        ("gpaste", "gpaste/truncated.xml", "(item 3)"),
        ("maccy", "maccy/NotADatabase.sqlite", "file is not a database"),
        ("clipboard-indicator", "clipboard-indicator/truncated.txt", "the file ends inside a string at byte 266 (item 3)"),
    ])
    func aDamagedFileStopsTheImportSayingWhereAndImportsNothing(source: String, path: String, place: String) async throws {
        try await sandbox.copy("already here")
        let result = try await run(["import", "--from", source, fixture(path)])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains(fixture(path)) && result.stderr.contains(place), "\(result)")
        #expect(result.stderr.contains("Nothing was imported."), "\(result)")
        #expect(try await sandbox.history().map(\.preview) == ["already here"])
    }

    @Test func klipperKeepsTextsURLsAndImagesInOrder() async throws {
        let result = try await run(["import", "--from", "klipper", fixture("klipper/history2.lst")])
        #expect(result.status == 0, "\(result)")
        let items = try await exported()
        #expect(items.count == 4)
        #expect(items[0]["public.plain-text"] == "klipper zebra text" || items[0]["public.utf8-plain-text"] == "klipper zebra text", "\(items)")
        #expect(items[1]["public.utf8-plain-text"] == "file:///etc/hostname\nhttps://example.org/a", "\(items)")
        #expect(items[2]["public.png"] == (try fixturePNG()), "\(items)")
        #expect(try await sandbox.history().last?.preview == "oldest klipper text")
    }

    @Test func maccyKeepsEveryTypeTheTimesAndThePin() async throws {
        let result = try await run(["import", "--from", "maccy", fixture("maccy/Storage.sqlite")])
        #expect(result.status == 0, "\(result)")
        let history = try await sandbox.history()
        #expect(history.map(\.preview) == ["maccy zebra html", "maccy plain", "PNG image 5×6 (135 B)"], "\(history)")
        #expect(history.map(\.isPinned) == [true, false, false])
        #expect(history[2].types == ["public.png", "public.tiff"], "\(history)")
        let export = try await sandbox.succeed(["export"])
        // ZLASTCOPIEDAT 700000500 after 2001-01-01 is 2023-03-08T20:35:00Z.
        #expect(export.output.contains("\"lastCopied\":\"2023-03-08T20:35:00"), "\(export)")
        #expect(!export.output.contains("p0deje"), "Maccy's marker types stay behind")
    }

    @Test func gpasteAndClipboardIndicatorHistoriesComeOver() async throws {
        let gpaste = try await run(["import", "--from", "gpaste", try located("gpaste/history.xml")])
        #expect(gpaste.status == 0, "\(gpaste)")
        #expect(try await sandbox.history().map(\.preview).prefix(3) == ["newest", "PNG image 5×6 (128 B)", "tricky ]]> & <tag> text"])
        let other = try Sandbox()
        let registry = try located("clipboard-indicator/registry.txt")
        let indicator = try await other.run(["import", "--from", "clipboard-indicator", registry])
        #expect(indicator.status == 0, "\(indicator)")
        let history = try await other.history()
        #expect(history.map(\.preview) == ["indicator newest", "PNG image 5×6 (116 B)", "indicator favorite zebra", "indicator old string"])
        #expect(history.map(\.isPinned) == [false, false, true, false])
    }

    /// cliphist is not in Debian 12: a script answering `list` and `decode ID` as cliphist does stands in for it.
    @Test func cliphistIsReadThroughItsListAndDecode() async throws {
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let png = try sandbox.file("clip.png", Payloads.png)
        let script = """
            #!/bin/sh
            case "$1" in
              list) printf '3\\tnewest clip\\n2\\t[[ binary data 116 B png 5x6 ]]\\n1\\toldest clip\\n' ;;
              decode) case "$2" in 3) printf 'newest clip' ;; 2) cat '\(png.path)' ;; 1) printf 'oldest clip' ;; *) exit 1 ;; esac ;;
              *) exit 2 ;;
            esac
            """
        let fake = bin.appendingPathComponent("cliphist")
        try Data(script.utf8).write(to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let path = bin.path + ":" + (sandbox.environment["PATH"] ?? "/usr/bin")
        let result = try await run(["import", "--from", "cliphist"], environment: ["PATH": path])
        #expect(result.status == 0, "\(result)")
        let history = try await sandbox.history()
        #expect(history.map(\.preview) == ["newest clip", "PNG image 2×2 (86 B)", "oldest clip"], "\(history)")
        let missing = try await run(["import", "--from", "cliphist"], environment: ["PATH": "/nonexistent"])
        #expect(missing.status == 1 && missing.stderr.contains("cliphist is not installed"), "\(missing)")
    }
}
