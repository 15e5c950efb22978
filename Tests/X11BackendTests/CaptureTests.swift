import Foundation
import PasteboardTestSupport
import Testing

extension X11IntegrationTests {
    /// `pb daemon` records what other applications copy: every representation, byte-exact, and nothing secret.
    @Suite struct Capture {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        static let texts = [
            "plain ASCII text, 123 !? <>&",
            "emoji 🎉👩‍👩‍👧 and CJK 漢字 かな カナ 한국어\n\tsecond line, Grüße\n",
        ]

        @Test(arguments: texts)
        func textCopiedWithXclipIsCapturedAndPastedByteExact(_ text: String) async throws {
            let daemon = try await session.startDaemon()
            let bytes = Data(text.utf8)
            try await session.xclipCopy(bytes)

            let found = try await session.waitForEntry { $0.types.contains("public.utf8-plain-text") }
            let entry = try #require(found, "the daemon did not record the copy; its log: \(daemon.stderr)")
            #expect(entry.size == bytes.count)
            #expect(
                try await session.pbSucceeding(["decode", String(entry.id)]).stdout == bytes, "stored bytes differ")
            #expect(try await session.pbSucceeding(["paste"]).stdout == bytes, "pasted bytes differ")
            #expect(try await session.history().count == 1)
            try await session.stop(daemon: daemon)
        }

        @Test func htmlAndTextFromOneOwnerAreBothStoredAndRestoredByteExact() async throws {
            let daemon = try await session.startDaemon()
            let html = Data("<meta charset=\"utf-8\"><p>Grüße, <b>世界</b> 🎉 &amp; more</p>".utf8)
            let text = Data("Grüße, 世界 🎉 & more".utf8)
            let owner = try await session.startOwner([("text/html", html), ("UTF8_STRING", text)])

            let found = try await session.waitForEntry { $0.types.contains("public.html") }
            let entry = try #require(found, "the daemon did not record the HTML offer; its log: \(daemon.stderr)")
            #expect(entry.source == "X11TestOwner", "the source should be the owner window's WM_CLASS")
            let show = try await session.pbSucceeding(["show", String(entry.id), "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: show.stdout) as? [String: Any])
            let representations = try #require(object["representations"] as? [[String: Any]], "\(show)")
            var sizes: [String: Int] = [:]
            for representation in representations {
                sizes[representation["type"] as? String ?? "?"] = (representation["size"] as? NSNumber)?.intValue
            }
            #expect(sizes == ["public.html": html.count, "public.utf8-plain-text": text.count])
            #expect(try await session.pbSucceeding(["decode", String(entry.id), "--type", "html"]).stdout == html)

            // Another application copies; then the item is put back with both representations.
            try await session.xclipCopy("something else")
            #expect(try await session.waitForEntry { $0.preview == "something else" } != nil)
            #expect(try await owner.waitForExit(timeout: .seconds(5)) == .init(status: 0, wasSignalled: false))
            try await session.pbSucceeding(["restore", String(entry.id)])
            let pastedHTML = try await session.xclipPaste(target: "text/html")
            let pastedText = try await session.xclipPaste(target: "UTF8_STRING")
            #expect(pastedHTML.succeeded && pastedHTML.stdout == html, "\(pastedHTML)")
            #expect(pastedText.succeeded && pastedText.stdout == text, "\(pastedText)")
            let targets = try await session.xclipPaste(target: "TARGETS").output.split(separator: "\n").map(String.init)
            #expect(
                Set(["TARGETS", "TIMESTAMP", "MULTIPLE", "text/html", "UTF8_STRING"]).isSubset(of: targets),
                "\(targets)")
            try await session.stop(daemon: daemon)
        }

        @Test func pngCopiedWithXclipIsCapturedByteExact() async throws {
            let daemon = try await session.startDaemon()
            let png = Payloads.png
            try await session.xclipCopy(png, target: "image/png")

            let found = try await session.waitForEntry { $0.types.contains("public.png") }
            let entry = try #require(found, "the daemon did not record the PNG; its log: \(daemon.stderr)")
            #expect(entry.types == ["public.png"])
            #expect(entry.size == png.count)
            #expect(try await session.pbSucceeding(["paste", "--type", "png"]).stdout == png, "pasted PNG differs")
            #expect(
                try await session.pbSucceeding(["decode", String(entry.id), "--type", "png"]).stdout == png,
                "stored PNG differs")
            try await session.stop(daemon: daemon)
        }

        /// The two ways an owner says "secret": KDE's password-manager hint, and the nspasteboard concealed marker.
        static let secretOffers: [(modes: [TestOwner.Mode], extraTargets: [String])] = [
            ([.secret], []),
            ([], ["org.nspasteboard.ConcealedType"]),
        ]

        @Test(arguments: 0..<secretOffers.count)
        func secretOfferLeavesNoTraceAndIsNotKeptAlive(_ index: Int) async throws {
            let (modes, extraTargets) = Self.secretOffers[index]
            let daemon = try await session.startDaemon()
            try await session.xclipCopy("copied before the secret")
            #expect(try await session.waitForEntry { $0.preview == "copied before the secret" } != nil)

            let marker = "PB-SECRET-" + UUID().uuidString
            let owner = try await session.startOwner(
                [("UTF8_STRING", Data(marker.utf8))] + extraTargets.map { ($0, Data()) }, modes)
            let skipped = try await eventually(within: .seconds(5)) {
                daemon.stderr.contains("skipped a concealed (secret) offer")
            }
            #expect(skipped, "the daemon did not report skipping the secret; its log: \(daemon.stderr)")

            // The password manager exits: the daemon must not serve the secret, nor resurrect the older copy.
            owner.send(SIGTERM)
            #expect(try await owner.waitForExit(timeout: .seconds(5)) != nil)
            try await Task.sleep(for: .milliseconds(300))
            let afterExit = try await session.xclipPaste()
            #expect(
                !afterExit.succeeded || afterExit.stdout.isEmpty, "the clipboard still serves something: \(afterExit)")

            try await session.xclipCopy("copied after the secret")
            #expect(try await session.waitForEntry { $0.preview == "copied after the secret" } != nil)
            try await session.stop(daemon: daemon)

            let entries = try await session.history()
            #expect(entries.map(\.preview) == ["copied after the secret", "copied before the secret"])
            let files = session.storeFiles()
            #expect(files.contains { $0.lastPathComponent == "history.sqlite" }, "\(files)")
            for file in files {
                let bytes = try Data(contentsOf: file)
                #expect(bytes.range(of: Data(marker.utf8)) == nil, "the secret is in \(file.path)")
            }
            #expect(!daemon.stderr.contains(marker))
        }

        @Test func stalledOwnerDoesNotStopTheNextCopyFromBeingCaptured() async throws {
            let daemon = try await session.startDaemon()
            _ = try await session.startOwner([("UTF8_STRING", Data("from the stalled owner".utf8))], [.stall])
            try await Task.sleep(for: .milliseconds(200))  // the daemon now waits for the stalled owner's TARGETS

            let copied = Date()
            let text = "after the stall " + UUID().uuidString
            try await session.xclipCopy(text)
            let entry = try await session.waitForEntry(within: .seconds(3)) { $0.preview == text }
            #expect(entry != nil, "not captured within 3 s of the copy; daemon log: \(daemon.stderr)")
            // By the daemon's record of it, not by when this test got to look.
            let took = try #require(entry?.created).timeIntervalSince(copied)
            #expect(took < 3, "recorded \(took) s after the copy")
            #expect(try await session.history().map(\.preview) == [text])
            try await session.stop(daemon: daemon)
        }

        @Test func pasteFromAStalledOwnerFailsInBoundedTime() async throws {
            _ = try await session.startOwner([("UTF8_STRING", Data("never sent".utf8))], [.stall])
            let started = ContinuousClock.now
            let paste = try await session.pb(["paste"], timeout: .seconds(20))
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(paste.status == 1 && !paste.wasSignalled, "\(paste)")
            #expect(paste.stdout.isEmpty)
            #expect(paste.stderr.contains("Could not read the clipboard"), "\(paste)")
        }

        @Test func captureRulesInTheConfigurationKeepMatchingCopiesOutOfTheHistory() async throws {
            try session.writeConfig(
                """
                ignore-text = ^secret-
                ignore-app = PBIgnoredApp
                ignore-type = image/*
                max-item-size = 1K
                """)
            let daemon = try await session.startDaemon()
            /// Makes one copy and waits for the daemon to say why it did not record it.
            func expectNotRecorded(_ reason: String, _ copy: () async throws -> Void) async throws {
                try await copy()
                let said = try await eventually(within: .seconds(5)) {
                    daemon.stderr.contains("not recorded (\(reason))")
                }
                #expect(said, "expected 'not recorded (\(reason))'; daemon log: \(daemon.stderr)")
            }

            try await expectNotRecorded("text matches an ignore-text rule") {
                try await session.xclipCopy("secret-123456")
            }
            try await expectNotRecorded("application PBIgnoredApp is ignored") {
                _ = try await session.startOwner(
                    [("UTF8_STRING", Data("copied in an ignored app".utf8))], [.windowClass("PBIgnoredApp")])
            }
            try await expectNotRecorded("type public.png is ignored") {
                try await session.xclipCopy(Payloads.png, target: "image/png")
            }
            try await expectNotRecorded("item larger than max-item-size") {
                try await session.xclipCopy(String(repeating: "x", count: 2048))
            }

            try await session.xclipCopy("public-7890")
            #expect(
                try await session.waitForEntry { $0.preview == "public-7890" } != nil, "daemon log: \(daemon.stderr)")
            #expect(try await session.history().map(\.preview) == ["public-7890"])
            try await session.stop(daemon: daemon)
        }

        @Test func primarySelectionIsIgnoredByDefault() async throws {
            let daemon = try await session.startDaemon()
            try await session.xclipCopy("selected with the mouse", selection: "primary")
            try await session.xclipCopy("copied with ctrl-c")
            #expect(try await session.waitForEntry { $0.preview == "copied with ctrl-c" } != nil)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await session.history().map(\.preview) == ["copied with ctrl-c"])
            try await session.stop(daemon: daemon)
        }

        @Test func primarySelectionIsRecordedWhenEnabledAndAGrowingSelectionBecomesOneItem() async throws {
            try session.writeConfig("primary = on\n")
            let daemon = try await session.startDaemon()
            for step in ["grow", "growing", "growing selection"] {
                try await session.xclipCopy(step, selection: "primary")
                #expect(try await session.waitForEntry { $0.preview == step } != nil, "daemon log: \(daemon.stderr)")
            }
            #expect(try await session.history().map(\.preview) == ["growing selection"])
            try await session.xclipCopy("something unrelated", selection: "primary")
            #expect(try await session.waitForEntry { $0.preview == "something unrelated" } != nil)
            #expect(try await session.history().map(\.preview) == ["something unrelated", "growing selection"])
            try await session.stop(daemon: daemon)
        }

        @Test func watchPrintsACapturedEventForAnXclipCopy() async throws {
            let daemon = try await session.startDaemon()
            let stream = try await session.startWatch()
            let text = "watched " + UUID().uuidString
            try await session.xclipCopy(text)

            let found = try await stream.first(within: .seconds(10)) { $0.event == "captured" }
            let event = try #require(
                found, "no captured event; watch printed \(stream.events.map(\.line)); daemon log: \(daemon.stderr)")
            #expect(event.types == ["public.utf8-plain-text"])
            #expect(event.size == text.utf8.count)
            #expect(event.line.contains("\"committed\":"), "\(event.line)")
            let entries = try await session.history()
            #expect(entries.map(\.preview) == [text])
            #expect(event.id == entries.first?.id)

            try await session.stop(daemon: daemon)
            // The daemon closed the connection: `pb watch` ends on its own.
            // pb watch says the daemon stopped and exits 1: a script must not mistake it for a clean end.
            #expect(try await stream.process.waitForExit(timeout: .seconds(5)) == .init(status: 1, wasSignalled: false))
        }

        @Test func twoHundredCopiesInARowAreAllCaptured() async throws {
            let daemon = try await session.startDaemon()
            let stream = try await session.startWatch()
            let run = UUID().uuidString.prefix(8)
            let count = 200
            for index in 0..<count {
                // Each xclip keeps the selection until the next one takes it.
                try await session.xclipCopy("change \(index) of run \(run)")
                let seen = try await stream.count(atLeast: index + 1, within: .seconds(5)) { $0.event == "captured" }
                guard seen == index + 1 else {
                    Issue.record(
                        "copy \(index) was not captured within 5 s (\(seen) captured); daemon log: \(daemon.stderr.suffix(2000))"
                    )
                    break
                }
            }
            let captured = stream.events.filter { $0.event == "captured" }
            #expect(captured.count == count)
            #expect(Set(captured.compactMap(\.id)).count == count, "every change is a new item")
            let entries = try await session.history()
            #expect(entries.count == count)
            #expect(Set(entries.map(\.preview)) == Set((0..<count).map { "change \($0) of run \(run)" }))
            try await session.stop(daemon: daemon)
        }
    }
}
