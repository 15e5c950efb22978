import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pb import`, `pb export` and `pb history --format dmenu` on the defects found in them: one test per defect,
/// each starting from its reproduction.
@Suite struct BulkPathTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Imports `lines` from standard input; returns the run.
    func importing(_ lines: [String], environment: [String: String?] = [:]) async throws -> PBResult {
        try await sandbox.run(["import", "-"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8), environment: environment)
    }

    /// The exported lines as JSON objects.
    func exportedObjects(_ result: PBResult) throws -> [[String: Any]] {
        try result.outputLines.map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw UnexpectedJSON(text: line)
            }
            return object
        }
    }

    // MARK: - Export past damage

    /// One missing payload file stopped `pb export` after the first line: nothing after it could be backed up.
    @Test func exportWritesEveryIntactItemPastAMissingPayloadFile() async throws {
        try await sandbox.copy("first")
        try await sandbox.copy(Data(String(repeating: "large payload ", count: 8000).utf8))  // 112 KB: in a file
        try await sandbox.copy("third")
        let history = try await sandbox.history()
        let damaged = try #require(history.first { $0.preview.hasPrefix("large payload") }).id
        let blobs = sandbox.storeDirectory.appendingPathComponent("blobs")
        let shards = try FileManager.default.contentsOfDirectory(atPath: blobs.path).filter { !$0.hasPrefix(".") }
        let files = try shards.flatMap { shard in
            try FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent(shard).path).map {
                blobs.appendingPathComponent(shard).appendingPathComponent($0)
            }
        }
        try #require(files.count == 1, "one payload file: \(files)")
        try FileManager.default.removeItem(at: files[0])

        let export = try await sandbox.run(["export"])
        #expect(export.status == 1, "\(export)")
        let texts = try exportedObjects(export).map { object in
            ((object["representations"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        }
        #expect(texts == ["first", "third"], "every intact item is written, in order")
        #expect(export.errorLines.count == 2, "\(export)")
        #expect(export.errorLines.first?.hasPrefix("Error: item \(damaged) left out of the export: ") == true, "\(export)")
        #expect(export.errorLines.first?.contains(files[0].path) == true, "names the missing file: \(export)")
        #expect(export.errorLines.last?.contains("1 damaged item was left out of the export (\(damaged))") == true, "\(export)")

        let restored = try Sandbox()
        let file = try restored.file("backup.jsonl", export.stdout)
        try await restored.succeed(["import", file.path])
        #expect(try await restored.history().map(\.preview) == ["third", "first"])
    }

    // MARK: - Packing

    /// Payloads stored before the store had its dictionary (or before schema 11) stayed as they were; `pb prune
    /// --vacuum` packs them, says how much they shrank, and every text is exported as it was imported.
    @Test func pruneVacuumPacksPayloadsStoredUnpacked() async throws {
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
        let texts = (0..<4_300).map { n in
            (0..<12).map { words[(n &* 7 &+ $0 &* 3) % words.count] }.joined(separator: " ") + ", item \(n)"
        }
        let lines = texts.map { #"{"text":"\#($0)"}"# }
        // 4,000 payloads are too few to learn a dictionary from: they are stored as they are; the next import learns it.
        #expect(try await importing(Array(lines[..<4_000])).status == 0)
        #expect(try await importing(Array(lines[4_000...])).status == 0)
        let pruned = try await sandbox.run(["prune", "--vacuum"])
        #expect(pruned.status == 0, "\(pruned)")
        let packed = try #require(pruned.outputLines.first { $0.hasPrefix("Packed ") }, "\(pruned)")
        let count = try #require(Int(packed.dropFirst("Packed ".count).prefix { $0.isNumber }), "\(packed)")
        #expect(count >= 4_000 && packed.contains(" payloads stored unpacked: "), "\(pruned)")
        #expect(pruned.outputLines.last == "Deleted 0 items.", "\(pruned)")
        let again = try await sandbox.run(["prune", "--vacuum"])
        #expect(again.outputLines == ["Deleted 0 items."], "nothing is left to pack: \(again)")
        let export = try await sandbox.run(["export"])
        #expect(export.status == 0)
        let exported = try exportedObjects(export).map { object in
            ((object["representations"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        }
        #expect(exported == texts)
        let check = try await sandbox.run(["doctor", "--check"])
        #expect(check.outputLines.contains("database: integrity ok"), "\(check)")
        #expect(check.outputLines.contains { $0.hasPrefix("payloads: 4300 checked (") && $0.hasSuffix("), all intact") }, "\(check)")
    }

    // MARK: - Input validation

    /// Fields of the wrong type were silently dropped (a string "pinned" imported an unpinned item).
    @Test(arguments: [
        (#"{"text":"x","pinned":"yes"}"#, #""pinned" must be true or false"#),
        (#"{"text":"x","pinned":1}"#, #""pinned" must be true or false"#),
        (#"{"text":"x","copyCount":"3"}"#, #""copyCount" must be a whole number from 1 to 2147483647"#),
        (#"{"text":"x","copyCount":2.5}"#, #""copyCount" must be a whole number from 1 to 2147483647"#),
        (#"{"text":"x","copyCount":0}"#, #""copyCount" must be a whole number from 1 to 2147483647"#),
        (#"{"text":"x","source":42}"#, #""source" must be a string"#),
        (#"{"text":"x","created":true}"#, #""created" is not a date"#),
        (#"{"text":["x"]}"#, #""text" must be a string"#),
        (#"{"representations":{"type":"public.html"}}"#, #""representations" must be a non-empty array of objects"#),
        (#"{"representations":["text"]}"#, "representation 1 is not an object"),
        (#"{"representations":[{"type":5,"text":"x"}]}"#, #"representation 1: "type" must be a string"#),
        (#"{"representations":[{"type":"public.html","base64":false}]}"#, #"representation 1: "base64" must be a string"#),
        (#"{"text":"lone \ud800 surrogate"}"#, "lone surrogate"),
        (#"{"text":"x",}"#, "not valid JSON"),
    ])
    func wrongTypedFieldsNameTheLineAndImportNothing(line: String, problem: String) async throws {
        try await sandbox.copy("already here")
        let before = try await sandbox.history()
        let result = try await importing([#"{"text":"good one"}"#, #"{"text":"good two"}"#, line, #"{"text":"good four"}"#])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("Error: standard input:3: "), "\(result)")
        #expect(result.stderr.contains(problem), "\(result)")
        #expect(result.stderr.hasSuffix(". Nothing was imported.\n"), "\(result)")
        #expect(try await sandbox.history() == before)
    }

    /// "2024-01-01" was refused as a date; so were other ISO 8601 forms people write.
    @Test(arguments: [
        ("2024-01-01", "2024-01-01T00:00:00.000Z"),
        ("2024-02-29T23:59Z", "2024-02-29T23:59:00.000Z"),
        ("2024-01-01T12:34:56", "2024-01-01T12:34:56.000Z"),
        ("2024-01-01 12:34:56.5Z", "2024-01-01T12:34:56.500Z"),
        ("2024-01-01T12:34:56.123456789Z", "2024-01-01T12:34:56.123Z"),
        ("2024-01-01T12:34:56.9996Z", "2024-01-01T12:34:57.000Z"),
        ("2024-01-01T05:00:00+05:30", "2023-12-31T23:30:00.000Z"),
        ("2024-01-01T05:00:00+0530", "2023-12-31T23:30:00.000Z"),
        ("2023-12-31T20:00:00-08", "2024-01-01T04:00:00.000Z"),
    ])
    func isoDatesInTheirCommonFormsAreAccepted(written: String, exported: String) async throws {
        let result = try await importing([#"{"text":"dated","created":"\#(written)","lastCopied":"\#(written)"}"#])
        #expect(result.status == 0, "\(result)")
        let export = try await sandbox.succeed(["export"])
        let object = try #require(try exportedObjects(export).first)
        #expect(object["created"] as? String == exported)
        #expect(object["lastCopied"] as? String == exported)
    }

    /// Dates no ISO 8601 four-digit year can write, and durations that would reach them, are refused clearly.
    @Test(arguments: [
        (#""created":"10000-01-01""#, #""created" is not a date"#),
        (#""created":"0000-12-31""#, #""created" is outside the years 1 to 9999"#),
        (#""created":"0001-01-01T00:30:00+01:00""#, #""created" is outside the years 1 to 9999"#),
        (#""lastCopied":"9999-12-31T23:59:59-01:00""#, #""lastCopied" is outside the years 1 to 9999"#),
        (#""created":"2023-02-29""#, #""created" is not a date"#),
        (#""created":"2024-13-01""#, #""created" is not a date"#),
        (#""created":"2024-01-01T24:00:00Z""#, #""created" is not a date"#),
        (#""created":"2024-01-01T12:00:60Z""#, #""created" is not a date"#),
        (#""expiresAt":1e300"#, #""expiresAt" is outside the years 1 to 9999"#),
        (#""expiresAt":253402300800"#, #""expiresAt" is outside the years 1 to 9999"#),
    ])
    func absurdDatesAreRefused(field: String, problem: String) async throws {
        let result = try await importing([#"{"text":"dated",\#(field)}"#])
        #expect(result.status == 1 && !result.wasSignalled, "\(result)")
        #expect(result.errorLines == ["Error: standard input:1: \(problem)" + problemTail(problem) + ". Nothing was imported."], "\(result)")
        #expect(try await sandbox.history().isEmpty)
    }

    private func problemTail(_ problem: String) -> String {
        problem.hasSuffix("is not a date")
            ? #" (give ISO 8601 text such as "2024-01-01" or "2024-01-01T12:00:00Z", or seconds since 1970)"# : ""
    }

    @Test func absurdDurationsAreRefused() async throws {
        let copy = try await sandbox.run(["copy", "--expire", "36501d"], stdin: Data("x".utf8))
        #expect(copy.status == 64, "\(copy)")
        #expect(copy.stderr.contains("--expire '36501d': a duration is a positive number with a unit"), "\(copy)")
        let prune = try await sandbox.run(["prune", "--max-age", "1e12s"])
        #expect(prune.status == 64, "\(prune)")
        try sandbox.writeConfig("max-age = 5300w\n")
        let history = try await sandbox.run(["history"])
        #expect(history.status == 1 && history.stderr.contains("at most 100 years"), "\(history)")
        try sandbox.writeConfig("")
        try await sandbox.copy("kept", ["--expire", "36500d"])  // 100 years is long, not absurd
        #expect(try await sandbox.history().first?.hasExpiry == true)
    }

    /// The ends of the range round-trip exactly, and an export of them imports again (into this pb or another).
    @Test func extremeButValidDatesRoundTrip() async throws {
        let line = #"{"created":"0001-01-01T00:00:00.000Z","lastCopied":"9999-12-31T23:59:59.999Z","copyCount":7,"#
            + #""pinned":false,"expiresAt":"9999-12-31T23:59:59.999Z","representations":[{"type":"public.utf8-plain-text","text":"ends"}]}"#
        let others = [
            #"{"text":"leap","created":"2000-02-29T00:00:00Z","lastCopied":"2000-02-29T00:00:00Z"}"#,
            #"{"text":"in the Julian gap","created":"1582-10-10T00:00:00Z","lastCopied":"1582-10-10T00:00:00Z"}"#,
            #"{"text":"before 1970","created":-1.5,"lastCopied":-1.5}"#,
        ]
        try await importing([line] + others).expectSuccess()
        let export = try await sandbox.succeed(["export"])
        let objects = try exportedObjects(export)
        let first = try #require(objects.first { ($0["copyCount"] as? Int) == 7 })
        #expect(first["created"] as? String == "0001-01-01T00:00:00.000Z")
        #expect(first["lastCopied"] as? String == "9999-12-31T23:59:59.999Z")
        #expect(first["expiresAt"] as? String == "9999-12-31T23:59:59.999Z")
        let created = objects.compactMap { $0["created"] as? String }
        #expect(created.contains("2000-02-29T00:00:00.000Z"))
        #expect(created.contains("1582-10-10T00:00:00.000Z"))
        #expect(created.contains("1969-12-31T23:59:58.500Z"))
        try await sandbox.succeed(["show", String(try #require(try await sandbox.history().first?.id))])

        let again = try Sandbox()
        let file = try again.file("backup.jsonl", export.stdout)
        try await again.succeed(["import", file.path])
        #expect(try await again.succeed(["export"]).stdout == export.stdout, "export → import → export is lossless")
    }

    /// A binary payload declared as text was stored as text (garbage previews, garbage in the search index).
    @Test func binaryPayloadDeclaredAsTextIsRefused() async throws {
        let png = Payloads.png.base64EncodedString()
        let declared = try await importing([#"{"representations":[{"type":"public.utf8-plain-text","base64":"\#(png)"}]}"#])
        #expect(declared.status == 1, "\(declared)")
        #expect(declared.stderr.contains("standard input:1: representation 1 says it is text (public.utf8-plain-text) but holds binary data"), "\(declared)")
        let controls = try await importing([#"{"text":"\u0000\u0001\u0002\u0003\u0004"}"#])
        #expect(controls.status == 1 && controls.stderr.contains(#""text" holds binary data"#), "\(controls)")
        #expect(try await sandbox.history().isEmpty)

        // Under a binary type the same bytes are kept as they are, and shown as data, not text.
        try await importing([#"{"representations":[{"type":"application/octet-stream","base64":"\#(png)"}]}"#]).expectSuccess()
        let entry = try #require(try await sandbox.history().first)
        #expect(entry.kind == "data" && entry.types == ["public.data"], "\(entry)")
        #expect(try await sandbox.succeed(["decode", String(entry.id)]).stdout == Payloads.png)
    }

    // MARK: - Capture rules

    /// `ignore-text`, `ignore-type` and `max-item-size` kept items out of captures but not out of imports.
    @Test func captureRulesSkipAndCountImportedLines() async throws {
        try sandbox.writeConfig("ignore-text = ^\\d{6}$\nignore-type = image/*\nmax-item-size = 100\n")
        let png = Payloads.png.prefix(90).base64EncodedString()
        let result = try await importing([
            #"{"text":"123456"}"#,
            #"{"representations":[{"type":"image/png","base64":"\#(png)"}]}"#,
            #"{"text":"\#(String(repeating: "long ", count: 40))"}"#,
            #"{"text":"keep me"}"#,
            #"{"text":"keep me"}"#,
            #"{"text":"654321"}"#,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.outputLines == [
            "Imported 1 item (1 merged, 4 skipped by rules: 1 ignore-type, 2 ignore-text, 1 max-item-size) from standard input."
        ])
        #expect(try await sandbox.history().map(\.preview) == ["keep me"])
    }

    // MARK: - Durability

    /// `pb import` said it was done while its rows could still be lost: the store's `synchronous = NORMAL` leaves a
    /// commit in the write-ahead log unsynced until the next checkpoint, which a small import never reaches. The
    /// import's commit now syncs the log (strace shows a sync of `history.sqlite-wal` after its last write and before
    /// the result line).
    @Test func importSyncsTheLogBeforeItSaysItIsDone() async throws {
        try await sandbox.copy("already there")
        let file = try sandbox.file("lines.jsonl", Data(#"{"text":"one"}\#n{"text":"two"}\#n"#.utf8))
        let strace = try #require(executableOnPath("strace"), "strace is missing (.ci/run installs it)")
        let trace = sandbox.root.appendingPathComponent("import.strace")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: strace)
        process.arguments = [
            "-f", "-y", "-e", "trace=fsync,fdatasync,write,pwrite64", "-o", trace.path, try Product.pb.url().path,
            "import", file.path,
        ]
        process.environment = sandbox.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let calls = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        let done = try #require(
            calls.firstIndex { $0.contains("write(1") && $0.contains("Imported 2 items") },
            "\(calls.joined(separator: "\n"))")
        func touchesLog(_ call: Substring, _ names: [String]) -> Bool {
            call.contains("history.sqlite-wal>") && names.contains { call.contains($0 + "(") }
        }
        // The commit's last write to the log, then a sync of it, then the result (before: no sync in between).
        let lastWrite = try #require(calls[..<done].lastIndex { touchesLog($0, ["pwrite64"]) }, "no write to the log")
        let shown = calls[lastWrite...done].joined(separator: "\n")
        #expect(
            calls[lastWrite..<done].contains { touchesLog($0, ["fsync", "fdatasync"]) },
            "no sync of the log between its last write and the result:\n\(shown)")
        #expect(try await sandbox.history().map(\.preview) == ["two", "one", "already there"])
    }

    // MARK: - Progress

    @Test func progressIsSilentWhenStandardErrorIsNoTerminal() async throws {
        let lines = (0..<2000).map { #"{"text":"line \#($0)"}"# }
        let result = try await importing(lines, environment: ["PB_PROGRESS_DELAY": "0"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let export = try await sandbox.run(["export"], environment: ["PB_PROGRESS_DELAY": "0"])
        #expect(export.status == 0 && export.stderr.isEmpty, "\(export)")
    }

    /// On a terminal (a pseudo-terminal from `script`), a long import shows count, rate and time left.
    @Test func progressShowsOnATerminal() async throws {
        let lines = (0..<3000).map { #"{"text":"line \#($0)"}"# }
        let file = try sandbox.file("lines.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "util-linux's script(1) is needed for a pty")
        var environment = sandbox.environment
        environment["PB_PROGRESS_DELAY"] = "0"
        let command = "'\(try Product.pb.path())' import '\(file.path)'"
        let child = try ChildProcess(
            executable: script, arguments: ["-qec", command, "/dev/null"], environment: environment, stdin: nil,
            ioDirectory: sandbox.root.appendingPathComponent("io"))
        let result = try await child.finish(timeout: .seconds(60))
        #expect(result.status == 0, "\(result)")
        let output = String(decoding: result.stdout, as: UTF8.self)
        #expect(output.contains("\rImporting: "), "\(output.debugDescription)")
        #expect(output.contains(" items/s"), "\(output.debugDescription)")
        #expect(output.contains(" s left"), "the file's size gives the time left: \(output.debugDescription)")
        #expect(output.contains("\r\u{1B}[K"), "the line is erased at the end")
        #expect(output.contains("Imported 3000 items from \(file.path)."), "\(output.debugDescription)")
        // The search index is built after the result is out, with its own progress line.
        let summary = try #require(output.range(of: "Imported 3000 items"))
        let indexing = try #require(output.range(of: "\rIndexing: 3,000 items"), "\(output.debugDescription)")
        #expect(summary.lowerBound < indexing.lowerBound)
        let stats = try await sandbox.succeed(["stats", "--json"])
        #expect(stats.output.contains(#""unindexedItems":0"#), "\(stats)")
    }

    // MARK: - dmenu

    /// `pb history --format dmenu` paged with OFFSET (each page slower than the last: 437,000 lines in 60 s for a
    /// million items); a picker wants the first line at once and the whole list soon after.
    @Test func dmenuStreamsTheFirstLineBeforeTheWholeListIsWritten() async throws {
        let count = 50_000
        let lines = (0..<count).map { #"{"text":"item number \#($0) with some words"}"# }
        let file = try sandbox.file("many.jsonl", Data((lines.joined(separator: "\n") + "\n").utf8))
        // Setting up, not measured: the import (rows, then their search index) of a debug build beside the rest of
        // the suite can take more than the usual minute.
        let imported = try await sandbox.run(["import", file.path], timeout: .seconds(180))
        try #require(imported.status == 0, "\(imported)")

        // Read through a pipe on a thread of its own, as a picker reads: pb cannot run ahead of the reader by more
        // than the pipe holds, so a pb that wrote nothing until it had the whole list would show it.
        let process = Process()
        process.executableURL = try Product.pb.url()
        process.arguments = ["history", "--format", "dmenu"]
        process.environment = sandbox.environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let reader = PipeReader(pipe.fileHandleForReading)
        let started = ContinuousClock.now
        try process.run()
        let timings = await reader.readToEnd(from: started)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let all = String(decoding: timings.bytes, as: UTF8.self).split(separator: "\n")
        #expect(all.count == count)
        #expect(all.first?.hasSuffix("\titem number \(count - 1) with some words") == true, "newest first")
        let firstLine = try #require(timings.firstLine, "no line came out")
        #expect(
            firstLine * 2 < timings.end,
            "the first line came after \(firstLine) of the \(timings.end) the whole list took")
    }
}

/// Reads a pipe to its end on a thread of its own, noting when the first line and the end arrived.
final class PipeReader: Sendable {
    struct Timings: Sendable {
        let bytes: Data
        let firstLine: Duration?
        let end: Duration
    }

    private let handle: FileHandle

    init(_ handle: FileHandle) { self.handle = handle }

    func readToEnd(from start: ContinuousClock.Instant) async -> Timings {
        await withCheckedContinuation { continuation in
            let thread = Thread { [handle] in
                var bytes = Data()
                var firstLine: Duration?
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    if firstLine == nil && chunk.contains(0x0A) { firstLine = ContinuousClock.now - start }
                    bytes.append(chunk)
                }
                continuation.resume(returning: Timings(bytes: bytes, firstLine: firstLine, end: ContinuousClock.now - start))
            }
            thread.start()
        }
    }
}

extension PBResult {
    /// Fails the test (with the run's output) unless pb exited 0.
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0 && !wasSignalled, "\(self)", sourceLocation: sourceLocation)
    }
}
