import Foundation
import PasteboardTestSupport
import Testing

/// Every type verbatim on Wayland: after a source exits, pb offers every MIME type it offered, spelled as it was
/// (parameters, quotes, spaces, case), with the bytes it offered. Part of the serialized `WaylandTests`.
extension WaylandTests {
    static func utf16(_ text: String) -> Data { Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }

    /// Latin-1 only, so that STRING, TEXT and COMPOUND_TEXT have one right answer: its Latin-1 bytes.
    static let verbatimText = "Grüße, café ½"

    /// Firefox's and LibreOffice's kinds of names, as a Wayland source offers them (GTK 3 offers X11's text
    /// names on Wayland too).
    static let verbatimOffer: [(String, Data)] = [
        ("text/html", Data("<b>Grüße</b>, café ½".utf8)),
        ("text/_moz_htmlcontext", utf16("<html><body></body></html>")),
        ("text/plain;charset=utf-8", Data(verbatimText.utf8)),
        ("text/plain", Data(#"Gr\u00fc\u00dfe, caf\u00e9 \u00bd"#.utf8)),
        ("UTF8_STRING", Data(verbatimText.utf8)),
        ("STRING", Data(verbatimText.unicodeScalars.map { UInt8($0.value) })),
        ("COMPOUND_TEXT", Data(verbatimText.unicodeScalars.map { UInt8($0.value) })),
        ("text/plain;charset=utf-16", utf16(verbatimText)),
        (#"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#,
            Data("PK\u{03}\u{04} an embedded document".utf8)),
        (#"application/x-pb-Mixed;Case="Kept As Offered""#, Data("mixed".utf8)),
    ]

    @Test func everyTypeASourceOfferedIsServedWithItsBytesAfterItExits() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        var arguments: [String] = []
        for (name, data) in Self.verbatimOffer { arguments += ["--file", name, try session.sandbox.file(data).path] }
        let source = try await session.testSource(arguments)
        var entry: [String: Any]?
        _ = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            entry = try await session.history().first { $0["preview"] as? String == Self.verbatimText }
            return entry != nil
        }
        let types = Set(entry?["types"] as? [String] ?? [])
        #expect(
            types == [
                "public.utf8-plain-text", "public.html", "dyn.mime.text/_moz_htmlcontext", "public.plain-text",
                "public.utf16-plain-text",
                #"dyn.mime.application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#,
                #"dyn.mime.application/x-pb-Mixed;Case="Kept As Offered""#,
            ], "\(types); \(daemon.stderr.suffix(2000))")

        source.terminate(grace: .seconds(2))
        #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
        let offered = try await session.wlTypes()
        for (name, bytes) in Self.verbatimOffer {
            #expect(offered.contains(name), "\(name) is not offered: \(offered)")
            let read = try await session.wlPaste(type: name)
            #expect(read.succeeded && read.stdout == bytes, "\(name): \(read.stdout.count) bytes, \(read)")
        }
        try await session.stop(daemon: daemon)
    }

    /// GTK 4 on Wayland: its own `text/plain` (what is not ASCII, escaped) is kept beside the UTF-8 text, and every
    /// type it offered is served with its bytes once it has exited.
    @Test func gtksOwnTextTypesAreServedWithTheirBytesAfterItExits() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let owner = try await session.gtkCopy(["--text", Self.verbatimText])
        let offered = try await session.wlTypes()
        var bytes: [String: Data] = [:]
        for name in offered {
            let read = try await session.wlPaste(type: name)
            if read.succeeded { bytes[name] = read.stdout }
        }
        let items = try await session.waitForHistory(count: 1)
        print("GTK 4 on Wayland offered \(offered); kept \(items.first?["types"] ?? [])")
        owner.terminate(grace: .seconds(2))
        #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
        let served = try await session.wlTypes()
        for name in offered {
            #expect(served.contains(name), "\(name) is not offered after exit: \(served)")
            guard let before = bytes[name] else { continue }
            let after = try await session.wlPaste(type: name)
            #expect(after.succeeded && after.stdout == before, "\(name): \(Array(before)) before, \(after)")
        }
        try await session.stop(daemon: daemon)
    }
}
