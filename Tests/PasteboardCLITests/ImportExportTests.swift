import Foundation
import PasteboardTestSupport
import Testing

/// `pb export` and `pb import`: JSON Lines that carry a history from one store to another.
@Suite struct ImportExportTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// An imported line equal to a pinned item, with an expiry in the past, used to merge into it and delete it.
    @Test func importingAnExpiredCopyOfAPinnedItemKeepsIt() async throws {
        try await sandbox.copy(Data("x".utf8))
        let id = try #require(try await sandbox.history().first?.id)
        try await sandbox.succeed(["pin", String(id)])
        let line = #"{"text":"x","expiresAt":"2000-01-01T00:00:00Z"}"# + "\n"
        try await sandbox.succeed(["import", "-"], stdin: Data(line.utf8))
        let history = try await sandbox.history()
        #expect(history.map(\.id) == [id], "the pinned item is still there")
        let paste = try await sandbox.succeed(["show", String(id)])
        #expect(paste.output.contains("x"), "\(paste)")
    }

    @Test func exportThenImportReproducesTheHistory() async throws {
        let texts = [Data("oldest, pinned\n".utf8), Data("emoji 🎉 and 漢字\r\n".utf8), Data([0x62, 0x69, 0x6E, 0x00, 0xFF, 0x0A])]
        try await sandbox.copy(texts[0])
        try await sandbox.copy(Payloads.png)
        try await sandbox.copy(texts[1])
        try await sandbox.copy(texts[2])
        let original = try await sandbox.history()
        #expect(original.count == 4)
        try await sandbox.succeed(["pin", String(original[3].id)])

        let export = try await sandbox.succeed(["export"])
        #expect(export.outputLines.count == 4, "\(export)")
        for line in export.outputLines {
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any], "\(line)")
        }
        #expect(export.outputLines[1].contains("\"base64\":\"\(Payloads.png.base64EncodedString())\""), "the PNG travels as base64")
        #expect(export.outputLines[0].contains("\"pinned\":true"))

        let fresh = try Sandbox()
        let file = try fresh.file("backup.jsonl", export.stdout)
        let imported = try await fresh.run(["import", file.path])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.outputLines == ["Imported 4 items from \(file.path)."])

        let copied = try await fresh.history()
        #expect(copied.map(\.preview) == original.map(\.preview))
        #expect(copied.map(\.kind) == original.map(\.kind))
        #expect(copied.map(\.isPinned) == [false, false, false, true])
        #expect(copied.map(\.types) == original.map(\.types))
        for (entry, expected) in zip(copied, [texts[2], texts[1], Payloads.png, texts[0]]) {
            let bytes = try await fresh.succeed(["decode", String(entry.id)])
            #expect(bytes.stdout == expected, "item \(entry.id) \(entry.preview)")
        }
        let again = try await fresh.succeed(["export"])
        #expect(again.stdout == export.stdout, "export → import → export is lossless")
    }

    @Test func importFromStandardInputAndTextShorthand() async throws {
        let lines = """
            {"text":"from another manager"}
            {"text":"second \\u00e9\\t tab","pinned":true}

            {"representations":[{"type":"text/html","text":"<i>html</i>"}],"created":1700000000,"copyCount":3}
            """
        let result = try await sandbox.run(["import", "-"], stdin: Data(lines.utf8))
        #expect(result.status == 0, "\(result)")
        #expect(result.outputLines == ["Imported 3 items from standard input."])
        let entries = try await sandbox.history()
        #expect(entries.count == 3)
        let second = try #require(entries.first { $0.preview.hasPrefix("second") })
        #expect(second.isPinned)
        #expect(try await sandbox.succeed(["decode", String(second.id)]).stdout == Data("second é\t tab".utf8))
        let html = try #require(entries.first { $0.kind == "html" })
        #expect(html.types == ["public.html"])
        #expect(try await sandbox.succeed(["decode", "--type", "html", String(html.id)]).stdout == Data("<i>html</i>".utf8))
    }

    /// Types kept under the names applications offered them (parameters, quotes and spaces included) travel
    /// through export and import unchanged, print in pb show, and answer --type by what they mean. UTF-16 text,
    /// declared or kept verbatim, is text that is not UTF-8: it imports as it was exported.
    @Test func verbatimTypeNamesSurviveExportAndImport() async throws {
        let embed = #"dyn.mime.application/x-openoffice-embed-source-xml;windows_formatname=\"Star Embed Source (XML)\""#
        let line = """
            {"representations":[{"type":"public.utf8-plain-text","text":"Grüße"},\
            {"type":"dyn.mime.text/plain;charset=UTF-16","base64":"RwByAPwA3wBlAA=="},\
            {"type":"public.utf16-plain-text","base64":"RwByAPwA3wBlAA=="},\
            {"type":"dyn.mime.text/_moz_htmlcontext","text":"<html><body></body></html>"},\
            {"type":"\(embed)","base64":"UEsDBA=="}]}
            """
        try await sandbox.succeed(["import", "-"], stdin: Data((line + "\n").utf8))
        let entry = try #require(try await sandbox.history().first)
        let embedIdentifier = #"dyn.mime.application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#
        #expect(
            entry.types == [
                "public.utf8-plain-text", "dyn.mime.text/plain;charset=UTF-16", "public.utf16-plain-text",
                "dyn.mime.text/_moz_htmlcontext", embedIdentifier,
            ])
        #expect(entry.preview == "Grüße")
        let show = try await sandbox.succeed(["show", String(entry.id)])
        #expect(show.output.contains(#"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#))
        let utf16 = try await sandbox.succeed(["decode", "--type", "text/plain;charset=utf-16", String(entry.id)])
        #expect(utf16.stdout == Data([0x47, 0, 0x72, 0, 0xFC, 0, 0xDF, 0, 0x65, 0]))
        let zip = try await sandbox.succeed(["decode", "--type", "application/x-openoffice-embed-source-xml", String(entry.id)])
        #expect(zip.stdout == Data("PK\u{03}\u{04}".utf8))

        let export = try await sandbox.succeed(["export"])
        let fresh = try Sandbox()
        try await fresh.succeed(["import", "-"], stdin: export.stdout)
        #expect(try await fresh.history().first?.types == entry.types)
        #expect(try await fresh.succeed(["export"]).stdout == export.stdout, "lossless")
    }

    @Test(arguments: [
        "{not json",
        "[1, 2, 3]",
        #"{"text":""}"#,
        #"{"nothing":"useful"}"#,
        #"{"representations":[{"type":"public.png","base64":"%%%"}]}"#,
        #"{"representations":[]}"#,
        #"{"text":"ok","created":"yesterday"}"#,
    ])
    func badThirdLineImportsNothing(badLine: String) async throws {
        try await sandbox.copy("already here")
        let before = try await sandbox.history()
        let lines = [#"{"text":"good one"}"#, #"{"text":"good two"}"#, badLine, #"{"text":"good four"}"#]
        let file = try sandbox.file("bad.jsonl", Data(lines.joined(separator: "\n").utf8))
        let result = try await sandbox.run(["import", file.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("Error: \(file.path):3: "), "\(result)")
        #expect(result.stderr.contains("Nothing was imported."))
        #expect(try await sandbox.history() == before)
    }

    @Test func importOfAMissingFileFails() async throws {
        let result = try await sandbox.run(["import", "/nonexistent/backup.jsonl"])
        #expect(result.status == 1)
        #expect(result.errorLines == ["Error: Cannot read /nonexistent/backup.jsonl: no such file."])
    }

    @Test func exportFiltersByType() async throws {
        try await sandbox.copy("text item")
        try await sandbox.copy(Payloads.png)
        let images = try await sandbox.succeed(["export", "--type", "image"])
        #expect(images.outputLines.count == 1)
        #expect(images.output.contains("public.png"))
        let empty = try Sandbox()
        let nothing = try await empty.succeed(["export"])
        #expect(nothing.stdout.isEmpty)
    }

    /// Newest first means by last copy: old lines imported after a copy go below it, in the order of their dates
    /// (issue 26: "2y" listed above "now").
    @Test func importedOldItemsGoBelowACopyMadeNow() async throws {
        try await sandbox.copy("copied now")
        let years = [2010, 2001, 2020, 2015, 2005]
        let lines = years.map { #"{"text":"from \#($0)","lastCopied":"\#($0)-06-01T00:00:00Z"}"# }
            + [#"{"text":"copied now","lastCopied":"2003-01-01"}"#]
        let imported = try await sandbox.succeed(["import", "-"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(imported.outputLines == ["Imported 5 items (1 merged) from standard input."], "\(imported)")
        let history = try await sandbox.history()
        #expect(history.map(\.preview) == ["copied now"] + years.sorted(by: >).map { "from \($0)" })
        let listed = try await sandbox.succeed(["history"])
        #expect(listed.outputLines.first?.hasSuffix("  copied now") == true, "\(listed)")
        #expect(listed.outputLines.dropFirst().first?.hasSuffix("from 2020") == true, "\(listed)")
    }

    /// Issue 27, finding 5: a line duplicating a live item with dates in 2001 made it 25 years old, and with
    /// max-age = 90d the next copy deleted it. The item keeps its later last copy and takes the earlier creation.
    @Test func anOldImportedDuplicateNeverMakesALiveItemExpire() async throws {
        try sandbox.writeConfig("max-age = 90d\n")
        try await sandbox.copy("copied now")
        let line = #"{"text":"copied now","created":"2001-01-01T00:00:00Z","lastCopied":"2001-01-01T00:00:00Z"}"#
        let imported = try await sandbox.succeed(["import", "-"], stdin: Data((line + "\n").utf8))
        #expect(imported.outputLines == ["Imported 0 items (1 merged) from standard input."], "\(imported)")
        try await sandbox.copy("the next copy")
        let listed = try await sandbox.succeed(["history"])
        #expect(listed.outputLines.count == 2, "\(listed)")
        let row = listed.outputLines.last ?? ""
        #expect(row.hasSuffix("  copied now") && !row.contains("y  copied now"), "listed as copied now: \(listed)")
        let json = try await sandbox.succeed(["history", "--json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        let item = try #require(objects.first { $0["preview"] as? String == "copied now" })
        #expect((item["created"] as? String)?.hasPrefix("2001-01-01") == true, "the earlier creation: \(item)")
        #expect((item["lastCopied"] as? String)?.hasPrefix("2001") == false, "the later last copy: \(item)")
    }
}
