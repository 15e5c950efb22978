import Foundation
import PasteboardTestSupport
import Testing

/// `pb copy` and `pb paste` through the built executable: bytes in, the same bytes out.
@Suite struct CopyPasteTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// A named byte string for table-driven tests.
    struct Payload: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: Data
        var testDescription: String { name }
    }

    static let payloads: [Payload] = [
        Payload(name: "ASCII", bytes: Data("hello, clipboard".utf8)),
        Payload(name: "emoji and CJK", bytes: Data("emoji 🎉👩‍💻 and 漢字かなカナ 한국어".utf8)),
        Payload(name: "CRLF line ends", bytes: Data("first\r\nsecond\r\n\r\nlast\r\n".utf8)),
        Payload(name: "NUL bytes", bytes: Data([0x61, 0x00, 0x62, 0x00, 0x00, 0x63, 0x0A])),
        Payload(name: "invalid UTF-8", bytes: Data([0x6F, 0x6B, 0x20, 0xFF, 0xFE, 0xC3, 0x28, 0xE2, 0x82, 0x20, 0x80, 0x0A])),
        Payload(
            name: "mostly text, one stray byte",
            bytes: Data("caf".utf8) + Data([0xE9]) + Data(" au lait, mostly plain text here".utf8)),
        Payload(name: "leading spaces, no trailing newline", bytes: Data("   indented".utf8)),
        Payload(name: "PNG", bytes: Payloads.png),
    ]

    @Test(arguments: payloads)
    func roundTripIsByteExact(payload: Payload) async throws {
        let payload = payload.bytes
        let copy = try await sandbox.run(["copy"], stdin: payload)
        #expect(copy.status == 0, "\(copy)")
        #expect(copy.stdout.isEmpty)
        #expect(copy.stderr.isEmpty)
        let paste = try await sandbox.run(["paste"])
        #expect(paste.status == 0, "\(paste)")
        #expect(paste.stdout == payload)
    }

    @Test func pngIsRecognisedAndPastedByType() async throws {
        try await sandbox.copy(Payloads.png)
        let types = try await sandbox.succeed(["paste", "--list-types"])
        let first = try #require(types.outputLines.first)
        #expect(first.split(separator: "\t").first == "public.png", "\(types)")
        #expect(first.hasSuffix("\t\(Payloads.png.count)"))
        #expect(try await sandbox.paste(["--type", "png"]) == Payloads.png)
        #expect(try await sandbox.paste(["--type", "image/png"]) == Payloads.png)
        #expect(try await sandbox.paste(["-t", "public.png"]) == Payloads.png)
        let entry = try #require(try await sandbox.history().first)
        #expect(entry.kind == "image")
        #expect(entry.types == ["public.png"])
    }

    @Test func fiveMebibytesRoundTrip() async throws {
        let payload = Payloads.largeText(count: 5 << 20)
        try await sandbox.copy(payload)
        let pasted = try await sandbox.paste()
        #expect(pasted.count == payload.count)
        #expect(pasted == payload)
        let binary = Data((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
        try await sandbox.copy(binary)
        #expect(try await sandbox.paste() == binary)
    }

    @Test func copiesANamedFile() async throws {
        let text = Data("from a file\nline two\n".utf8)
        let url = try sandbox.file("note.txt", text)
        let copy = try await sandbox.run(["copy", url.path])
        #expect(copy.status == 0, "\(copy)")
        #expect(try await sandbox.paste() == text)
        let png = try sandbox.file("picture.png", Payloads.png)
        try await sandbox.succeed(["copy", png.path])
        #expect(try await sandbox.paste(["--type", "png"]) == Payloads.png)
    }

    @Test func dashReadsStandardInput() async throws {
        try await sandbox.succeed(["copy", "-"], stdin: Data("dash input".utf8))
        #expect(try await sandbox.paste() == Data("dash input".utf8))
    }

    @Test func missingFileFailsWithOneErrorLine() async throws {
        try await sandbox.copy("before")
        let missing = sandbox.root.appendingPathComponent("no-such-file.txt").path
        let result = try await sandbox.run(["copy", missing])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1, "\(result)")
        let line = try #require(result.errorLines.first)
        #expect(line.hasPrefix("Error: "))
        #expect(line.contains(missing))
        #expect(result.stdout.isEmpty)
        #expect(try await sandbox.paste() == Data("before".utf8))
    }

    @Test func directoryIsRefused() async throws {
        let result = try await sandbox.run(["copy", sandbox.home.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: Cannot copy \(sandbox.home.path): it is a directory."])
    }

    @Test func emptyInputLeavesTheClipboardAlone() async throws {
        try await sandbox.copy("earlier value")
        let result = try await sandbox.run(["copy"], stdin: Data())
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.stderr.contains("Nothing to copy: the input is empty"))
        #expect(try await sandbox.paste() == Data("earlier value".utf8))
        #expect(try await sandbox.history().count == 1)
    }

    @Test func binaryAsTextIsRefused() async throws {
        try await sandbox.copy("kept")
        let before = try await sandbox.history()
        let result = try await sandbox.run(["copy", "--type", "text"], stdin: Payloads.png)
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.stderr.hasPrefix("Error: The input is "), "\(result)")
        #expect(result.stderr.contains("not text: refusing --type text"), "\(result)")
        #expect(try await sandbox.history() == before)
        #expect(try await sandbox.paste() == Data("kept".utf8))
    }

    @Test func unknownTypeIsAUsageError() async throws {
        let result = try await sandbox.run(["copy", "--type", "zzz-not-a-type/?"], stdin: Data("x".utf8))
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.first?.hasPrefix("Error: Unknown content type 'zzz-not-a-type/?'") == true, "\(result)")
        #expect(result.errorLines.contains { $0.hasPrefix("Usage: pb copy") })
        #expect(result.errorLines.last == "  See 'pb copy --help'.")
        #expect(try await sandbox.run(["paste"]).status == 1)  // nothing was copied
    }

    @Test func explicitTextTypeIsKept() async throws {
        try await sandbox.copy("<b>bold</b>", ["--type", "html"])
        let types = try await sandbox.succeed(["paste", "--list-types"])
        #expect(types.output.hasPrefix("public.html\ttext/html\t11\n"), "\(types)")
        #expect(try await sandbox.paste(["--type", "html"]) == Data("<b>bold</b>".utf8))
    }

    @Test func htmlIsOfferedWithItsPlainTextUnlessOnly() async throws {
        try await sandbox.copy("<p>Meet at <b>noon</b> &amp; bring <i>caf&eacute;</i>?</p><script>x()</script>", ["--type", "html"])
        let types = try await sandbox.succeed(["paste", "--list-types"])
        #expect(types.outputLines.map { String($0.split(separator: "\t")[0]) } == ["public.html", "public.utf8-plain-text"], "\(types)")
        #expect(try await sandbox.paste(["--type", "public.utf8-plain-text"]) == Data("Meet at noon & bring caf&eacute;?".utf8))
        #expect(try await sandbox.history().first?.kind == "html")

        try await sandbox.copy("<p>only html</p>", ["--type", "html", "--only"])
        let only = try await sandbox.succeed(["paste", "--list-types"])
        #expect(only.outputLines.count == 1 && only.output.hasPrefix("public.html\t"), "\(only)")
    }

    @Test func rtfIsOfferedWithItsPlainText() async throws {
        let rtf = #"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard Hello \b world\b0\par caf\'e9 \u8364?\par}"#
        try await sandbox.copy(rtf, ["--type", "rtf"])
        #expect(try await sandbox.paste(["--type", "public.utf8-plain-text"]) == Data("Hello world\ncafé €".utf8))
    }

    @Test func pasteOnAnEmptyStoreFails() async throws {
        let result = try await sandbox.run(["paste"])
        #expect(result.status == 1)
        #expect(result.errorLines == ["Error: The clipboard is empty."])
        #expect(result.stdout.isEmpty)
    }

    @Test func pasteOfAMissingTypeFails() async throws {
        try await sandbox.copy("only text")
        let result = try await sandbox.run(["paste", "--type", "html"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines.count == 1)
        #expect(result.stderr.hasPrefix("Error: The clipboard holds no public.html"), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func expiryIsRecorded() async throws {
        try await sandbox.copy("short-lived", ["--expire", "1h"])
        let entry = try #require(try await sandbox.history().first)
        #expect(entry.hasExpiry)
        let show = try await sandbox.succeed(["show", String(entry.id)])
        #expect(show.outputLines.contains { $0.hasPrefix("expires:") }, "\(show)")
        let bad = try await sandbox.run(["copy", "--expire", "soon"], stdin: Data("x".utf8))
        #expect(bad.status == 64, "\(bad)")
        #expect(bad.stderr.contains("--expire 'soon': a duration is a positive number with a unit"))
    }
}
