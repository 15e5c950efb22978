import Foundation
import PasteboardTestSupport
import Testing

/// LibreOffice's copies through the built `pb`: the same selection imported again is the same item, with the
/// newest bytes, and `pb show` says where its HTML takes its pictures from.
@Suite struct LibreOfficeCopyTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// One `pb import` line for a copy, copied at `lastCopied` (an ISO 8601 date).
    static func line(_ copy: [(target: String, bytes: Data)], lastCopied: String) -> String {
        let representations = copy.map { representation in
            // The text target as its identifier, every other type by its MIME type without parameters.
            let type =
                representation.target == "UTF8_STRING"
                ? "public.utf8-plain-text" : String(representation.target.prefix { $0 != ";" })
            return #"{"type":"\#(type)","base64":"\#(representation.bytes.base64EncodedString())"}"#
        }
        return #"{"representations":[\#(representations.joined(separator: ","))],"lastCopied":"\#(lastCopied)"}"#
    }

    @Test func theSameWriterSelectionImportedThreeTimesIsOneItemWithTheNewestBytes() async throws {
        let lines = try (1...3).map { number in
            Self.line(try LibreOfficeSamples.writerCopy(number), lastCopied: "2026-01-0\(number)T10:00:00Z")
        }
        try await sandbox.succeed(["import", "-"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        let history = try await sandbox.history()
        #expect(history.count == 1, "\(history)")
        let id = try #require(history.first?.id)
        let details = try await sandbox.succeed(["show", "--json", String(id)])
        let object = try #require(try JSONSerialization.jsonObject(with: details.stdout) as? [String: Any])
        #expect((object["copyCount"] as? NSNumber)?.intValue == 3)
        let html = try await sandbox.succeed(["decode", "--type", "html", String(id)])
        #expect(html.stdout == (try LibreOfficeSamples.bytes("writer-3.html")))
        let rtf = try await sandbox.succeed(["decode", "--type", "rtf", String(id)])
        #expect(rtf.stdout == (try LibreOfficeSamples.bytes("writer-3.rtf")))

        // An edited selection is an item of its own; a plain repeat merges as ever.
        let edited = Self.line(try LibreOfficeSamples.writerCopy(4), lastCopied: "2026-01-04T10:00:00Z")
        try await sandbox.succeed(["import", "-"], stdin: Data((edited + "\n").utf8))
        try await sandbox.copy("plain")
        try await sandbox.copy("plain")
        #expect(try await sandbox.history().count == 3)
    }

    @Test func showNamesThePicturesInLibreOfficesTemporaryFiles() async throws {
        let line = Self.line(try LibreOfficeSamples.writerCopy(2), lastCopied: "2026-01-02T10:00:00Z")
        try await sandbox.succeed(["import", "-"], stdin: Data((line + "\n").utf8))
        let id = try #require(try await sandbox.history().first?.id)
        let shown = try await sandbox.succeed(["show", String(id)])
        // The sample's temporary file went with the LibreOffice that made it.
        let note =
            "note:        its HTML shows 1 picture from LibreOffice's temporary files, which go when LibreOffice "
            + "exits (gone already)"
        #expect(shown.outputLines.contains(note), "\(shown)")
        let details = try await sandbox.succeed(["show", "--json", String(id)])
        let object = try #require(try JSONSerialization.jsonObject(with: details.stdout) as? [String: Any])
        let files = try #require(object["temporaryFiles"] as? [String])
        #expect(files.count == 1)
        #expect(files.first?.hasPrefix("file:///tmp/lu") == true)
        #expect(files.first?.hasSuffix("_tmp_7f598580967b648.png") == true)

        // An item without such pictures has no note.
        try await sandbox.copy("plain")
        let plain = try #require(try await sandbox.history().first?.id)
        #expect(!(try await sandbox.succeed(["show", String(plain)])).output.contains("note:"))
    }
}
