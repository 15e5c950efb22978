import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension X11IntegrationTests {
    /// Every type verbatim: after the application that copied exits, pb offers every name it offered (MIME
    /// parameters, quotes, spaces and case as offered) with the bytes it offered, its own `text/plain` and
    /// `text/plain;charset=utf-16` included, and X11's own text targets converted from the UTF-8 text.
    @Suite struct VerbatimServing {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        static func utf16(_ text: String) -> Data { Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) }

        /// Latin-1 only, so that STRING, TEXT and COMPOUND_TEXT each have one right answer: its Latin-1 bytes.
        static let text = "Grüße, café ½"
        static let latin1 = Data(text.unicodeScalars.map { UInt8($0.value) })
        static let embedSource =
            #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#

        /// What Firefox and LibreOffice offer that pb used to drop or rename, with bytes of their kind.
        static let offered: [(String, Data)] = [
            ("text/html", Data("<b>Grüße</b>, café ½".utf8)),
            ("text/_moz_htmlcontext", utf16("<html><body></body></html>")),
            ("text/_moz_htmlinfo", utf16("0,0")),
            ("UTF8_STRING", Data(text.utf8)),
            ("COMPOUND_TEXT", latin1), ("TEXT", latin1), ("STRING", latin1),
            ("text/plain;charset=utf-8", Data(text.utf8)),
            ("text/plain", Data(#"Gr\u00fc\u00dfe, caf\u00e9 \u00bd"#.utf8)),
            ("text/plain;charset=utf-16", utf16(text)),
            (embedSource, Data("PK\u{03}\u{04} an embedded document".utf8)),
            (#"application/x-pb-Mixed;Case="Kept As Offered""#, Data("mixed".utf8)),
        ]

        @Test func everyNameIsServedWithTheOwnersBytesAfterItExits() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startOwner(Self.offered)
            let found = try await session.waitForEntry { $0.preview == Self.text }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr.suffix(2000))")
            #expect(
                Set(entry.types) == [
                    "public.utf8-plain-text", "public.html", "dyn.mime.text/_moz_htmlcontext",
                    "dyn.mime.text/_moz_htmlinfo", "public.plain-text", "public.utf16-plain-text",
                    "dyn.mime." + Self.embedSource, #"dyn.mime.application/x-pb-Mixed;Case="Kept As Offered""#,
                ], "text/plain;charset=utf-8 (the same bytes as UTF8_STRING) is not kept apart: \(entry.types)")
            #expect(entry.kind == "html")
            // pb paste --type reads a name kept verbatim by what it means, from the application.
            let pastes: [(type: String, bytes: Data)] = [
                ("text/plain;charset=utf-16", Self.utf16(Self.text)), ("text/_moz_htmlcontext", Self.offered[1].1),
                ("application/x-openoffice-embed-source-xml", Self.offered[10].1), ("text/plain", Data(Self.text.utf8)),
            ]
            for (type, bytes) in pastes {
                let paste = try await session.pb(["paste", "--type", type])
                #expect(paste.succeeded && paste.stdout == bytes, "pb paste --type \(type): \(paste)")
            }

            let mark = session.logLength(daemon)
            try await session.stopOwner(owner)
            #expect(try await session.daemonSays(daemon, "now serving its content", since: mark), "\(daemon.stderr)")
            let targets = try await session.offeredTargets()
            for (name, bytes) in Self.offered {
                #expect(targets.contains(name), "\(name) is not offered: \(targets)")
                let read = try await session.xclipRead(name)
                #expect(read.succeeded && read.stdout == bytes, "\(name): \(read.stdout.count) bytes, \(read)")
            }
            try await session.stop(daemon: daemon)
        }

        /// Real toolkits: every name GTK 3, GTK 4 and Qt 5 offer for a text or rich-text copy is offered again
        /// after they exit, with their bytes (their own `text/plain` included). GTK 4.8's STRING, TEXT and
        /// COMPOUND_TEXT are UTF-8 read as Latin-1 and then encoded again, plus a NUL (a GTK bug): pb serves them
        /// converted from the text instead, which a reader decodes back to the text.
        @Test(arguments: Toolkit.allCases, [false, true])
        func aToolkitsCopyIsServedUnderEveryNameItOffered(_ toolkit: Toolkit, rich: Bool) async throws {
            let daemon = try await session.startDaemon()
            let arguments = (rich ? ["--html", "<b>Grüße</b>, café"] : []) + ["--text", Self.text]
            let owner = try await session.startToolkitOwner(toolkit, arguments)
            let offered = try await session.offeredTargets()
            var bytes: [String: Data] = [:]
            for name in offered {
                let read = try await session.xclipRead(name)
                if read.succeeded { bytes[name] = read.stdout }
            }
            let found = try await session.waitForEntry { $0.preview == Self.text }
            let entry = try #require(found, "\(toolkit): not recorded; daemon log: \(daemon.stderr.suffix(2000))")
            let mark = session.logLength(daemon)
            try await session.stopOwner(owner)
            #expect(try await session.daemonSays(daemon, "now serving its content", since: mark), "\(daemon.stderr)")
            let servedTargets = try await session.offeredTargets()
            let derived: Set<String> = ["STRING", "TEXT", "COMPOUND_TEXT"]
            for name in offered {
                #expect(servedTargets.contains(name), "\(toolkit): \(name) is not offered after exit: \(servedTargets)")
                guard let before = bytes[name] else { continue }
                let after = try await session.xclipRead(name)
                if toolkit == .gtk4 && derived.contains(name) {
                    #expect(before.last == 0, "GTK 4.8's \(name) ends in a NUL (if not, compare bytes again)")
                    #expect(after.stdout == Self.latin1, "\(toolkit) \(name): \(Array(after.stdout))")
                } else {
                    #expect(after.succeeded && after.stdout == before, "\(toolkit) \(name): \(before) before, \(after)")
                }
            }
            print("\(toolkit) offered \(offered); kept \(entry.types)")
            try await session.stop(daemon: daemon)
        }

        /// Paste as plain text (issue 26): `pb restore ID --plain` serves the item's text alone, through the daemon
        /// and through pb's own owner, and adds no item.
        @Test(arguments: [true, false]) func restorePlainServesTheTextAlone(daemonRuns: Bool) async throws {
            let daemon = daemonRuns ? try await session.startDaemon() : nil
            let line = #"{"representations":[{"type":"public.html","text":"<b>bold</b> words"},"#
                + #"{"type":"public.utf8-plain-text","text":"bold words"}]}"#
            try await session.pbSucceeding(["import", "-"], stdin: Data((line + "\n").utf8))
            try await session.pbSucceeding(["copy"], stdin: Data("on top".utf8))
            let before = try await session.pbSucceeding(["history", "--json"])
            let items = try #require(try JSONSerialization.jsonObject(with: before.stdout) as? [[String: Any]])
            let id = try #require(items.first { ($0["preview"] as? String)?.contains("bold") == true }?["id"] as? Int)
            try await session.pbSucceeding(["restore", String(id), "--plain"])
            _ = try await session.waitForClipboard(Data("bold words".utf8))
            let targets = try await session.offeredTargets()
            #expect(!targets.contains("text/html") && targets.contains("UTF8_STRING"), "\(targets)")
            let after = try await session.pbSucceeding(["history", "--json"])
            let listed = try #require(try JSONSerialization.jsonObject(with: after.stdout) as? [[String: Any]])
            #expect(listed.count == items.count, "no item added")
            #expect(listed.first?["id"] as? Int == id, "the item moved to the top")
            if let daemon { try await session.stop(daemon: daemon) }
        }

        /// A file URL (what `pb import` makes of another manager's copied file) is offered as the file managers'
        /// types, made from it, never under its identifier `public.file-url` (issue 26, defect 10).
        @Test func aFileURLIsOfferedAsAURIListAndCopiedFiles() async throws {
            let daemon = try await session.startDaemon()
            let line = #"{"representations":[{"type":"public.file-url","text":"file:///etc/hosts"},"#
                + #"{"type":"public.utf8-plain-text","text":"/etc/hosts"}]}"#
            try await session.pbSucceeding(["import", "-"], stdin: Data((line + "\n").utf8))
            let history = try await session.pbSucceeding(["history", "--json", "--limit", "1"])
            let items = try #require(try JSONSerialization.jsonObject(with: history.stdout) as? [[String: Any]])
            let id = try #require(items.first?["id"] as? Int)
            #expect(items.first?["kind"] as? String == "file")
            try await session.pbSucceeding(["restore", String(id)])
            _ = try await session.waitForClipboard(Data("/etc/hosts".utf8))
            let targets = try await session.offeredTargets()
            #expect(targets.contains("text/uri-list") && targets.contains("x-special/gnome-copied-files"), "\(targets)")
            #expect(!targets.contains("public.file-url"), "\(targets)")
            #expect(try await session.xclipRead("text/uri-list").stdout == Data("file:///etc/hosts\r\n".utf8))
            #expect(try await session.xclipRead("x-special/gnome-copied-files").stdout == Data("copy\nfile:///etc/hosts".utf8))
            try await session.stop(daemon: daemon)
        }

        /// Text outside Latin-1: COMPOUND_TEXT and TEXT are compound text (Latin-1 with UTF-8 segments) that GTK 3
        /// decodes, through Xlib, back to the text; STRING is Latin-1 with `?` for the rest.
        @Test func x11TextTargetsOfAnyTextDecodeBackToIt() async throws {
            let daemon = try await session.startDaemon()
            let text = "Grüße, 世界 ∑ ąę — ½\nline two"
            try await session.pbSucceeding(["copy"], stdin: Data(text.utf8))
            _ = try await session.waitForClipboard(Data(text.utf8))
            let cases: [(target: String, type: String, text: String)] = [
                ("COMPOUND_TEXT", "COMPOUND_TEXT", text), ("TEXT", "COMPOUND_TEXT", text),
                ("STRING", "STRING", "Grüße, ?? ? ?? ? ½\nline two"), ("UTF8_STRING", "UTF8_STRING", text),
            ]
            for (target, type, expected) in cases {
                let read = try await gtk3Read(target)
                #expect(read.type == type && read.text == expected, "\(target): \(read)")
            }
            try await session.stop(daemon: daemon)
        }

        /// What GTK 3 makes of `target` when it pastes it: the reply's type and the text it decodes.
        func gtk3Read(_ target: String) async throws -> (type: String?, text: String?) {
            // Tests/X11BackendTests/VerbatimServingTests.swift → Tests/Fixtures
            let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures")
            let script = fixtures.appendingPathComponent("gtk3-text-reader.py").path
            let result = try await session.sandbox.launch(systemPython, [script, target], environment: Toolkit.gtk3.environment)
                .finish(timeout: .seconds(20))
            let line = result.stdout.split(separator: UInt8(ascii: "\n")).first.map { Data($0) } ?? Data()
            guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                throw SetupFailure("gtk3-text-reader.py printed no JSON: \(result)")
            }
            return (object["type"] as? String, object["text"] as? String)
        }
    }
}
