import Foundation
import PasteboardTestSupport
import Testing

extension X11IntegrationTests {
    /// `pb` puts items on the X11 clipboard that other applications read: through the daemon or a short-lived
    /// owner, once, for a while, or until taken; and the daemon keeps a copy alive when its application exits.
    @Suite struct Serving {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        /// Whether an `xclip -o`/`xsel -o` result means "nothing on the clipboard".
        func isEmpty(_ result: ProcessResult) -> Bool { !result.succeeded || result.stdout.isEmpty }

        @Test(arguments: [true, false])
        func xclipAndXselReadWhatPbCopyServes(withDaemon: Bool) async throws {
            let daemon = withDaemon ? try await session.startDaemon() : nil
            let text = Data("served by pb — ünïcödé ✓ 漢字 🎉 \(UUID().uuidString)\n".utf8)
            try await session.pbSucceeding(["copy"], stdin: text)

            let xclip = try await session.xclipPaste()
            #expect(xclip.succeeded && xclip.stdout == text, "\(xclip)")
            let xsel = try await session.xselPaste()
            #expect(xsel.succeeded && xsel.stdout == text, "\(xsel)")
            #expect(try await session.pbSucceeding(["paste"]).stdout == text)
            let targets = try await session.xclipPaste(target: "TARGETS").output.split(separator: "\n").map(String.init)
            #expect(Set(["TARGETS", "TIMESTAMP", "UTF8_STRING"]).isSubset(of: targets), "\(targets)")
            if let daemon { try await session.stop(daemon: daemon) }
        }

        @Test(arguments: [true, false])
        func copyOnceServesTheFirstPasteOnly(withDaemon: Bool) async throws {
            let daemon = withDaemon ? try await session.startDaemon() : nil
            let text = Data("one-time code 482913".utf8)
            try await session.pbSucceeding(["copy", "--once"], stdin: text)

            let first = try await session.xclipPaste()
            #expect(first.succeeded && first.stdout == text, "\(first)")
            let second = try await session.xclipPaste()
            #expect(isEmpty(second), "a second paste still got something: \(second)")
            if let daemon { try await session.stop(daemon: daemon) }
        }

        @Test(arguments: [true, false])
        func copyWithExpiryLeavesClipboardAndHistoryAfterItsTime(withDaemon: Bool) async throws {
            let daemon = withDaemon ? try await session.startDaemon() : nil
            let text = Data("expiring token \(UUID().uuidString)".utf8)
            try await session.pbSucceeding(["copy", "--expire", "1s"], stdin: text)
            let copied = ContinuousClock.now

            let fresh = try await session.xclipPaste()
            #expect(fresh.succeeded && fresh.stdout == text, "\(fresh)")
            #expect(try await session.storedItemCount() == 1)
            var last: ProcessResult?
            let cleared = try await eventually(within: .seconds(4), every: .milliseconds(100)) {
                last = try await session.xclipPaste()
                if !isEmpty(last!) { return false }
                return try await session.storedItemCount() == 0
            }
            let elapsed = ContinuousClock.now - copied
            let remaining = try await session.storedItemCount()
            #expect(cleared, "after \(elapsed): clipboard \(String(describing: last)), \(remaining) items stored")
            #expect(elapsed > .milliseconds(800), "cleared before its time")
            if let daemon { try await session.stop(daemon: daemon) }
        }

        @Test(arguments: [true, false])
        func takeURLPrintsItAndClearsTheClipboardButLeavesOtherText(withDaemon: Bool) async throws {
            let daemon = withDaemon ? try await session.startDaemon() : nil
            let url = "https://example.com/read?id=\(UUID().uuidString)"
            try await session.xclipCopy(url)
            if withDaemon { #expect(try await session.waitForEntry { $0.preview == url } != nil) }

            let take = try await session.pb(["take", "--url"])
            #expect(take.succeeded && take.output == url + "\n", "\(take)")
            let after = try await session.xclipPaste()
            #expect(isEmpty(after), "the clipboard still holds something after take: \(after)")

            let words = "just some words, not a link"
            try await session.xclipCopy(words)
            if withDaemon { #expect(try await session.waitForEntry { $0.preview == words } != nil) }
            let refused = try await session.pb(["take", "--url"])
            #expect(refused.status == 1 && !refused.wasSignalled && refused.stdout.isEmpty, "\(refused)")
            #expect(refused.stderr.contains("no URL"), "\(refused)")
            let kept = try await session.xclipPaste()
            #expect(kept.succeeded && kept.output == words, "\(kept)")
            if let daemon { try await session.stop(daemon: daemon) }
        }

        @Test func clipboardOutlivesAnXclipThatExits() async throws {
            let daemon = try await session.startDaemon()
            let text = Data("still here after xclip left — 残る".utf8)
            // -loops 1: xclip exits after serving one request, which is the daemon's own read.
            try await session.xclipCopy(text, extra: ["-loops", "1"])
            #expect(try await session.waitForEntry { $0.size == text.count } != nil, "daemon log: \(daemon.stderr)")

            let paste = try await session.waitForClipboard(text)
            #expect(
                paste?.succeeded == true && paste?.stdout == text,
                "\(String(describing: paste)); daemon log: \(daemon.stderr)")
            // xclip offers TARGETS and UTF8_STRING only; MULTIPLE says the daemon answers now.
            let targets = try await session.xclipPaste(target: "TARGETS").output
            #expect(targets.contains("MULTIPLE"), "the daemon, not xclip, should own the clipboard now: \(targets)")
            try await session.stop(daemon: daemon)
        }

        /// Without a daemon, `pb copy` leaves a `pb __serve` process owning the clipboard; deleting the item stops
        /// it, so the deleted text cannot be pasted any more (before, it stayed until something else was copied).
        @Test func deletingAnItemServedWithoutADaemonTakesItOffTheClipboard() async throws {
            let secret = Data("deleted without a daemon \(UUID().uuidString)".utf8)
            try await session.pbSucceeding(["copy"], stdin: secret)
            try await session.pbSucceeding(["copy"], stdin: Data("kept in history".utf8))
            try await session.pbSucceeding(["copy"], stdin: secret)  // the same text again: back on top, served
            #expect(try await session.xclipPaste().stdout == secret)
            let id = try #require(try await session.history().first(where: { $0.preview.hasPrefix("deleted") })?.id)
            let delete = try await session.pbSucceeding(["delete", String(id)])
            #expect(delete.output == "Deleted \(id).\n", "\(delete)")
            var last: ProcessResult?
            let gone = try await eventually(within: .seconds(3), every: .milliseconds(50)) {
                last = try await session.xclipPaste(timeout: .seconds(5))
                return isEmpty(last!)
            }
            #expect(gone, "the clipboard still serves the deleted item: \(String(describing: last))")
        }

        /// A restored item of 20 MiB is served from its payload file a chunk at a time: every reader gets it byte
        /// for byte, and the daemon's peak stays below the payload's size above where it was before the restore
        /// (it once held 150–235 MB: one copy of the payload per text target).
        @Test func aRestoredLargeItemIsServedFromItsFile() async throws {
            var payload = Data()
            let line = Data("twenty mebibytes of text, served from the payload file \(UUID().uuidString)\n".utf8)
            while payload.count < 20 << 20 { payload.append(line) }
            // Into the store without a display, so the daemon starts with nothing to capture.
            let copy = try await session.pb(["copy"], stdin: payload, environment: ["DISPLAY": nil])
            #expect(copy.succeeded, "\(copy)")
            let daemon = try await session.startDaemon(onEmptyHistory: false)
            let before = try #require(Memory(pid: daemon.pid), "no /proc status for the daemon")
            try await session.pbSucceeding(["restore", "1"])
            for target in ["UTF8_STRING", "text/plain;charset=utf-8", "UTF8_STRING"] {
                let read = try await session.xclipPaste(target: target)
                #expect(read.succeeded && read.stdout == payload, "\(target): \(read.stdout.count) bytes, \(read.stderr)")
            }
            let after = try #require(Memory(pid: daemon.pid), "no /proc status for the daemon")
            #expect(
                after.peak - before.resident < payload.count,
                "the daemon's peak grew by \((after.peak - before.resident) >> 20) MiB serving a \(payload.count >> 20) MiB item")
            try await session.stop(daemon: daemon)
        }

        @Test func anOwnerThatExitsBeforeItWasReadDoesNotBringBackTheCopyBefore() async throws {
            let daemon = try await session.startDaemon()
            try await session.xclipCopy("the copy before")
            #expect(try await session.waitForEntry { $0.preview == "the copy before" } != nil)
            // Never answers the daemon, then exits: what it held is lost, and the clipboard is empty.
            let owner = try await session.startOwner(
                [("UTF8_STRING", Data("never read".utf8))], [.stall, .exitAfterMilliseconds(300)])
            #expect(try await owner.waitForExit(timeout: .seconds(5)) == .init(status: 0, wasSignalled: false))
            try await Task.sleep(for: .milliseconds(200))

            let paste = try await session.xclipPaste()
            #expect(isEmpty(paste), "the clipboard went back to an older copy the user had replaced: \(paste)")
            #expect(try await session.history().map(\.preview) == ["the copy before"])
            try await session.stop(daemon: daemon)
        }

        @Test func everyRepresentationOutlivesAnOwnerThatExits() async throws {
            let daemon = try await session.startDaemon()
            let html = Data("<i>kept</i> after exit ✓".utf8)
            let text = Data("kept after exit ✓".utf8)
            // The daemon reads both targets, then the owner exits.
            let owner = try await session.startOwner(
                [("UTF8_STRING", text), ("text/html", html)], [.exitAfterServing(2)])
            #expect(
                try await session.waitForEntry { $0.types.contains("public.html") } != nil,
                "daemon log: \(daemon.stderr)")
            #expect(try await owner.waitForExit(timeout: .seconds(5)) == .init(status: 0, wasSignalled: false))

            let targets = try await eventually(within: .seconds(5)) {
                try await session.xclipPaste(target: "TARGETS").output.contains("MULTIPLE")  // the daemon's answer
            }
            #expect(targets, "nobody took over the clipboard; daemon log: \(daemon.stderr)")
            let pastedHTML = try await session.xclipPaste(target: "text/html")
            #expect(pastedHTML.succeeded && pastedHTML.stdout == html, "\(pastedHTML)")
            let pastedText = try await session.xselPaste()
            #expect(pastedText.succeeded && pastedText.stdout == text, "\(pastedText)")
            try await session.stop(daemon: daemon)
        }
    }
}
