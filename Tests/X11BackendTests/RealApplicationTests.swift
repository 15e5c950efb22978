import Foundation
import ClipboardBackend
import PasteboardModel
import PasteboardTestSupport
import Testing
import X11Backend

#if canImport(Glibc)
    import Glibc
#endif

extension X11IntegrationTests {
    /// Real applications as the other party: GTK 3, GTK 4 and Qt 5 copying with their own clipboard code (the
    /// owners in `Tests/Fixtures`), CopyQ driven by its command line, and xclip. A user's history is made of such
    /// copies: each kind must be kept as the application offered it and served back exactly after it exits.
    @Suite struct RealApplications {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        /// One kind of copy a toolkit owner makes, and what the history should make of it.
        struct CopyCase: Sendable, CustomStringConvertible {
            let name: String
            let arguments: [String]
            /// The kind pb history shows; nil for a secret (nothing recorded).
            let kind: String?
            /// When set, exactly these types are kept.
            var keptTypes: [String]? = nil
            var description: String { name }
        }

        static func cases(picture: URL) -> [CopyCase] {
            [
                CopyCase(name: "text", arguments: ["--text", "Grüße, 世界 🎉 from a toolkit"], kind: "text"),
                CopyCase(
                    name: "rich text",
                    arguments: ["--html", "<meta charset=\"utf-8\"><b>Grüße</b>, <i>世界</i>", "--text", "Grüße, 世界"],
                    kind: "html"),
                CopyCase(
                    name: "image", arguments: ["--image", picture.path], kind: "image", keptTypes: ["public.png"]),
                CopyCase(
                    name: "files", arguments: ["--uris", "file:///etc/hostname", "--uris", "file:///etc/os-release"],
                    kind: "file"),
                CopyCase(name: "URL", arguments: ["--text", "https://www.swift.org/documentation/"], kind: "url"),
                CopyCase(
                    name: "secret", arguments: ["--text", "PB-SECRET-\(UUID().uuidString)", "--secret"], kind: nil),
            ]
        }

        /// Each kind of copy from a toolkit: recorded as the right kind, every kept representation served back
        /// byte for byte after the application exits; a secret neither recorded nor served. GTK's `text/ico`
        /// and other encodings of one picture are not kept (only PNG), and GTK 4's unreadable password hint
        /// still marks a secret.
        @Test(arguments: Toolkit.allCases)
        func everyKindOfCopyIsKeptAndOutlivesTheApplication(_ toolkit: Toolkit) async throws {
            let daemon = try await session.startDaemon()
            let picture = try session.sandbox.file(Self.picture, name: "picture.png")
            var recorded = 0
            for copy in Self.cases(picture: picture) {
                let mark = session.logLength(daemon)
                let owner = try await session.startToolkitOwner(toolkit, copy.arguments)
                let offered = try await session.offeredTargets()
                guard let kind = copy.kind else {
                    let skipped = try await session.daemonSays(
                        daemon, "skipped a concealed (secret) offer", since: mark)
                    #expect(skipped, "\(toolkit) \(copy): the secret was not skipped; daemon log: \(daemon.stderr)")
                    try await session.stopOwner(owner)
                    try await Task.sleep(for: .milliseconds(300))
                    let after = try await session.xclipPaste()
                    #expect(!after.succeeded || after.stdout.isEmpty, "\(toolkit) \(copy): still served: \(after)")
                    #expect(try await session.history().count == recorded, "\(toolkit) \(copy): recorded")
                    try FidelityReport.record(
                        application: "\(toolkit)", copy: copy.name, offered: offered, kept: [],
                        servedBack: "nothing (not kept)")
                    continue
                }
                recorded += 1
                var entries: [HistoryEntry] = []
                _ = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
                    entries = try await session.history()
                    return entries.count >= recorded
                }
                guard entries.count == recorded, let entry = entries.first else {
                    Issue.record("\(toolkit) \(copy): not recorded; daemon log: \(daemon.stderr.suffix(3000))")
                    try await session.stopOwner(owner)
                    return
                }
                #expect(entry.kind == kind, "\(toolkit) \(copy): kind \(entry.kind), types \(entry.types)")
                if let keptTypes = copy.keptTypes { #expect(entry.types == keptTypes, "\(toolkit) \(copy)") }
                #expect(!entry.preview.contains("\0") && !entry.preview.contains("dyn."), "\(entry.preview)")
                // What the application serves, then what pb serves once it has exited: the same bytes.
                var served: [String: Data] = [:]
                for type in entry.types {
                    let target = Self.target(for: type)
                    let read = try await session.xclipRead(target)
                    #expect(read.succeeded, "\(toolkit) \(copy): \(read)")
                    served[target] = read.stdout
                }
                try await session.stopOwner(owner)
                let took = try await session.daemonSays(daemon, "now serving its content", since: mark)
                #expect(took, "\(toolkit) \(copy): the daemon did not take over; log: \(daemon.stderr.suffix(2000))")
                var exact = true
                for (target, bytes) in served.sorted(by: { $0.key < $1.key }) {
                    let again = try await session.xclipRead(target)
                    if !again.succeeded || again.stdout != bytes {
                        exact = false
                        Issue.record("\(toolkit) \(copy): \(target) differs after exit: \(again)")
                    }
                }
                try FidelityReport.record(
                    application: "\(toolkit)", copy: copy.name, offered: offered, kept: entry.types,
                    servedBack: exact ? "yes, byte-exact" : "**no**", note: "kind `\(entry.kind)`")
            }
            try await session.stop(daemon: daemon)
        }

        /// A picture that takes seconds to encode (Qt and GTK 4 encode on request): the daemon waits for the busy
        /// owner instead of calling it stalled, keeps the one PNG, and serves it after the application exits.
        @Test(arguments: [Toolkit.qt5, .gtk4])
        func aLargePictureThatTakesSecondsToEncodeIsKeptAndOutlivesTheApplication(_ toolkit: Toolkit) async throws {
            let (width, height) = (1600, 1200)
            let daemon = try await session.startDaemon()
            let owner = try await session.startToolkitOwner(toolkit, ["--noise", "\(width)x\(height)"])
            let started = ContinuousClock.now
            let found = try await session.waitForEntry(within: .seconds(90)) { $0.types.contains("public.png") }
            let elapsed = ContinuousClock.now - started
            let entry = try #require(found, "\(toolkit): not recorded; daemon log: \(daemon.stderr.suffix(3000))")
            print("\(toolkit) \(width)×\(height) picture: captured \(entry.size) bytes in \(elapsed)")
            #expect(entry.types == ["public.png"], "only the PNG: no ICO, BMP, TIFF, no empty conversion")
            #expect(entry.kind == "image")
            #expect(!daemon.stderr.contains("stalled"), "\(daemon.stderr)")
            let stored = try await session.pbSucceeding(["decode", String(entry.id), "--type", "png"]).stdout
            #expect(PNGCheck.dimensions(of: stored).map { [$0.width, $0.height] } == [width, height], "a whole PNG")

            try await session.stopOwner(owner)
            #expect(try await session.daemonSays(daemon, "now serving its content"), "\(daemon.stderr.suffix(2000))")
            let served = try await session.xclipRead("image/png")
            #expect(served.succeeded && served.stdout == stored, "served after exit: \(served.stdout.count) bytes")
            try await session.stop(daemon: daemon)
        }

        /// xclip offers one target per copy (`-t`); each is kept and served byte for byte once xclip has gone.
        /// (xclip cannot mark a secret: it offers a single target.)
        @Test func everyKindOfXclipCopyOutlivesXclip() async throws {
            let daemon = try await session.startDaemon()
            let cases: [(copy: String, target: String, data: Data, kind: String)] = [
                ("text", "UTF8_STRING", Data("Grüße, 世界 🎉 from xclip".utf8), "text"),
                ("rich text", "text/html", Data("<b>Grüße</b>".utf8), "html"),
                ("image", "image/png", Payloads.png, "image"),
                ("files", "text/uri-list", Data("file:///etc/hostname\r\n".utf8), "file"),
                ("URL", "UTF8_STRING", Data("https://www.swift.org/".utf8), "url"),
            ]
            for (index, copy) in cases.enumerated() {
                let mark = session.logLength(daemon)
                let input = try session.sandbox.file(copy.data)
                // -quiet keeps xclip in the foreground, so the test can stop it.
                let xclip = try session.sandbox.launch(
                    session.xclip, ["-quiet", "-selection", "clipboard", "-t", copy.target, "-i", input.path])
                var entries: [HistoryEntry] = []
                _ = try await eventually(within: .seconds(10), every: .milliseconds(50)) {
                    entries = try await session.history()
                    return entries.count > index
                }
                let entry = try #require(entries.first, "xclip \(copy.copy): not recorded; \(daemon.stderr)")
                #expect(entries.count == index + 1 && entry.kind == copy.kind, "xclip \(copy.copy): \(entry)")
                #expect(entry.source == "xclip")
                let offered = try await session.offeredTargets()
                try await session.stopOwner(xclip)
                #expect(try await session.daemonSays(daemon, "now serving its content", since: mark))
                let again = try await session.xclipRead(copy.target)
                #expect(again.succeeded && again.stdout == copy.data, "xclip \(copy.copy) after exit: \(again)")
                try FidelityReport.record(
                    application: "xclip", copy: copy.copy, offered: offered, kept: entry.types,
                    servedBack: again.stdout == copy.data ? "yes, byte-exact" : "**no**", note: "kind `\(entry.kind)`")
            }
            try await session.stop(daemon: daemon)
        }

        /// The issue's recipe: a CLIPBOARD copy, the same text selected (PRIMARY), the selection grown. The
        /// CLIPBOARD item stays; only PRIMARY's own item grows.
        @Test func aGrowingPrimarySelectionNeverRewritesAClipboardItem() async throws {
            try session.writeConfig("primary = on\n")
            let daemon = try await session.startDaemon()
            try await session.xclipCopy("meeting notes")
            #expect(try await session.waitForEntry { $0.preview == "meeting notes" } != nil)
            try await session.xclipCopy("meeting notes", selection: "primary")
            #expect(try await session.daemonSays(daemon, "primary: recorded item"), "\(daemon.stderr)")
            try await session.xclipCopy("meeting notes v2", selection: "primary")
            #expect(try await session.waitForEntry { $0.preview == "meeting notes v2" } != nil)
            let search = try await session.pbSucceeding(["search", "meeting notes"])
            #expect(search.output.contains("meeting notes v2"), "\(search.output)")
            #expect(
                search.lines.contains { $0.hasSuffix("meeting notes") }, "the CLIPBOARD item is gone: \(search.output)")
            #expect(Set(try await session.history().map(\.preview)) == ["meeting notes", "meeting notes v2"])
            try await session.stop(daemon: daemon)
        }

        /// A GTK 4 entry keeps PRIMARY while Shift+Right extends the selection: the history gets the final
        /// selection, not its first character.
        @Test func aSelectionExtendedInAGTK4EntryIsRecordedAsTheFinalSelection() async throws {
            try session.writeConfig("primary = on\n")
            let daemon = try await session.startDaemon()
            let owner = try await session.startToolkitOwner(.gtk4, ["--entry", "meeting notes for today"])
            let window = try await session.window(named: "^gtk4-owner entry$")
            try await session.xdotool(["windowfocus", "--sync", window])
            try await session.xdotool(["key"] + Array(repeating: "shift+Right", count: 12))
            let found = try await session.waitForEntry(within: .seconds(10)) { $0.preview == "meeting note" }
            let seen = try await session.history().map(\.preview)
            #expect(found != nil, "history: \(seen); log: \(daemon.stderr)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await session.history().map(\.preview) == ["meeting note"], "the steps are one item")
            try await session.stopOwner(owner)
            try await session.stop(daemon: daemon)
        }

        /// CopyQ marks every copy with `application/x-copyq-owner`, new each time: selecting the same item again
        /// (and, with PRIMARY on, CopyQ setting both selections) is still one item.
        @Test func copyQSelectingTheSameItemAgainMakesNoNewItem() async throws {
            try session.writeConfig("primary = on\n")
            let daemon = try await session.startDaemon()
            let copyq = try await CopyQ(session: session)
            let text = Payloads.largeText(count: 2 << 20)
            try await copyq.run(["write", "text/plain", "-"], stdin: text)
            for round in 1...3 {
                try await copyq.run(["select", "0"])
                let seen = try await eventually(within: .seconds(10)) {
                    daemon.stderr.components(separatedBy: "clipboard: recorded item").count - 1 >= round
                }
                #expect(seen, "select \(round) not captured; daemon log: \(daemon.stderr.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(500))  // PRIMARY captures come too
            let entries = try await session.history()
            #expect(entries.count == 1, "\(entries.map { ($0.id, $0.types, $0.size) })")
            let entry = try #require(entries.first)
            #expect(entry.types == ["public.utf8-plain-text"], "no CopyQ marker is kept")
            #expect(entry.size == text.count)
            #expect(entry.copyCount >= 3)
            let offered = try await session.offeredTargets()
            try await copyq.stop()
            #expect(try await session.daemonSays(daemon, "now serving its content"), "\(daemon.stderr.suffix(2000))")
            let after = try await session.xclipRead("UTF8_STRING")
            #expect(after.succeeded && after.stdout == text, "served after CopyQ exits: \(after.stdout.count) bytes")
            try FidelityReport.record(
                application: "CopyQ", copy: "text (2 MiB, selected 3 times)", offered: offered, kept: entry.types,
                servedBack: after.stdout == text ? "yes, byte-exact" : "**no**",
                note: "one item, copy count \(entry.copyCount)")
            try await session.stop(daemon: daemon)
        }

        /// xclip's owner window has no WM_CLASS nor _NET_WM_PID: the X server's client id names its process, so
        /// the history says "xclip" and `ignore-app` rules match such programs too.
        @Test func theProcessNamesTheSourceWhenTheOwnerWindowDoesNot() async throws {
            let daemon = try await session.startDaemon()
            try await session.xclipCopy("copied with xclip")
            let found = try await session.waitForEntry { $0.preview == "copied with xclip" }
            #expect(found?.source == "xclip", "\(String(describing: found))")
            try await session.stop(daemon: daemon)

            try session.writeConfig("ignore-app = xclip\n")
            let strict = try session.sandbox.launch(try Product.pb.path(), ["daemon"])
            let up = try await eventually(within: .seconds(15)) {
                !strict.isRunning || strict.stdout.starts(with: Data("Pasteboard daemon".utf8))
            }
            #expect(up && strict.isRunning, "\(strict.stderr)")
            try await session.xclipCopy("copied with xclip again")
            #expect(
                try await session.daemonSays(strict, "not recorded (application xclip is ignored)"), "\(strict.stderr)")
            #expect(try await session.history().map(\.preview) == ["copied with xclip"])
            try await session.stop(daemon: strict)
        }

        /// `drop-type` leaves one representation out and keeps the rest of the copy; `ignore-type` still skips the
        /// whole copy, judged by what is offered.
        @Test func dropTypeLeavesOutOneRepresentationAndIgnoreTypeTheWholeCopy() async throws {
            try session.writeConfig("drop-type = text/html\nignore-type = application/x-pb-never\n")
            let daemon = try await session.startDaemon()
            let text = Data("kept text".utf8)
            let extra = Data("kept extra".utf8)
            _ = try await session.startOwner([
                ("text/html", Data("<b>dropped</b>".utf8)), ("UTF8_STRING", text), ("application/x-pb-extra", extra),
            ])
            let found = try await session.waitForEntry { $0.preview == "kept text" }
            let entry = try #require(found, "daemon log: \(daemon.stderr)")
            #expect(entry.types == ["public.utf8-plain-text", "dyn.mime.application/x-pb-extra"])
            _ = try await session.startOwner([
                ("UTF8_STRING", Data("never".utf8)), ("application/x-pb-never", Data("x".utf8)),
            ])
            #expect(
                try await session.daemonSays(daemon, "not recorded (type dyn.mime.application/x-pb-never is ignored)"),
                "\(daemon.stderr)")
            _ = try await session.startOwner([("text/html", Data("<i>only HTML</i>".utf8))])
            #expect(
                try await session.daemonSays(daemon, "not recorded (every type it offered is dropped"),
                "\(daemon.stderr)")
            #expect(try await session.history().count == 1)
            try await session.stop(daemon: daemon)
        }

        // MARK: - Helpers

        /// The picture the toolkits copy (each decodes it and encodes it again in every format it offers).
        static let picture: Data = Payloads.png

        /// The X11 target to read a stored type back with.
        static func target(for identifier: String) -> String {
            TargetPlan.targets(for: ContentType(identifier)).first ?? identifier
        }
    }
}

/// A CopyQ server of the test's own (its configuration under the sandbox), driven by its command line.
struct CopyQ {
    let session: X11Session
    let server: ChildProcess
    let environment: [String: String?]

    /// Starts `copyq` and waits until it answers and its clipboard monitor runs.
    init(session: X11Session) async throws {
        guard let copyq = executableOnPath("copyq") else {
            throw SetupFailure("CopyQ is needed by its fidelity test: apt-get install -y copyq")
        }
        self.session = session
        environment = [
            "COPYQ_SETTINGS_PATH": session.sandbox.root.appendingPathComponent("copyq").path, "QT_QPA_PLATFORM": "xcb",
            "NO_AT_BRIDGE": "1",
        ]
        server = try session.sandbox.launch(copyq, [], environment: environment)
        let up = try await eventually(within: .seconds(20), every: .milliseconds(100)) {
            guard server.isRunning else { return true }
            let answer = try await session.sandbox.launch(
                copyq, ["eval", "--", "print(size())"], environment: environment
            )
            .finish(timeout: .seconds(10))
            return answer.succeeded
        }
        guard up, server.isRunning else {
            throw SetupFailure(
                "CopyQ did not start: \(server.result.map(\.description) ?? server.stderr.suffix(2000).description)")
        }
    }

    /// Runs `copyq ARGUMENTS` and throws unless it succeeds.
    func run(_ arguments: [String], stdin: Data? = nil) async throws {
        let copyq = executableOnPath("copyq") ?? "/usr/bin/copyq"
        let result = try await session.sandbox.launch(copyq, arguments, stdin: stdin, environment: environment)
            .finish(timeout: .seconds(20))
        guard result.succeeded else { throw CommandFailed(result: result) }
    }

    /// `copyq exit`, then waits for the server to end.
    func stop() async throws {
        try await run(["exit"])
        guard try await server.waitForExit(timeout: .seconds(10)) != nil else {
            throw SetupFailure("CopyQ did not exit within 10 s of 'copyq exit'")
        }
    }
}
