import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension X11IntegrationTests {
    /// Chromium as the other party: a real browser window under Xvfb (one for the whole suite, see `ChromiumDesk`),
    /// pages from a loopback server that copy on a click, and its context menu's "Copy image".
    @Suite struct Chromium {
        let desk: ChromiumDesk
        let session: X11Session

        init() async throws {
            desk = try await ChromiumDesk.shared()
            session = try await X11Session(sharing: desk.display)
        }

        /// Copy, reload, copy again: only Chromium's per-load token differs, so it is one item. The source is
        /// Chromium, named by its process (its clipboard window has no WM_CLASS).
        @Test func textCopiedAgainAfterAReloadIsTheSameItem() async throws {
            let daemon = try await session.startDaemon()
            let window = try await desk.open("/text.html", in: session)
            try await desk.click(window, in: session)
            let found = try await session.waitForEntry { $0.types.contains("public.html") }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr)")
            #expect(entry.preview == "Copied from Chromium, twice")
            #expect(entry.source == "chromium")
            #expect(!entry.types.contains { $0.contains("rfh-token") }, "\(entry.types)")
            let offered = try await session.offeredTargets()
            #expect(offered.contains("chromium/x-internal-source-rfh-token"), "\(offered)")

            let mark = session.logLength(daemon)
            try await desk.reload(window, in: session)
            try await desk.click(window, in: session)
            #expect(try await session.daemonSays(daemon, "clipboard: recorded item", since: mark), "\(daemon.stderr)")
            let entries = try await session.history()
            #expect(entries.count == 1, "\(entries.map { ($0.id, $0.types) })")
            #expect(entries.first?.copyCount == 2)
            try FidelityReport.record(
                application: "Chromium", copy: "text (selection, execCommand copy)", offered: offered,
                kept: entry.types, servedBack: "not tried (the image exit test covers Chromium)",
                note: "kind `\(entry.kind)`; reload + copy: same item")
            try await session.stop(daemon: daemon)
        }

        /// "Copy image" gives a PNG, HTML and a UTF-16 `text/x-moz-url`: an image item whose preview names the
        /// picture, with no NUL bytes anywhere pb prints; twice across a reload, still one item.
        @Test func copyImageIsOneImageItemAcrossAReload() async throws {
            let daemon = try await session.startDaemon()
            let window = try await desk.open("/picture.html", in: session)
            try await desk.contextMenu(window, pick: 3, in: session)
            let found = try await session.waitForEntry { $0.types.contains("public.png") }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr)")
            #expect(entry.kind == "image", "\(entry.types)")
            #expect(entry.preview.hasPrefix("PNG image 2×2, \(desk.server.url("/picture.png"))"), "\(entry.preview)")
            #expect(
                !entry.preview.contains("\0") && !entry.preview.contains("dyn."), "\(entry.preview.debugDescription)")
            let offered = try await session.offeredTargets()
            for command in [["show", String(entry.id)], ["history"]] {
                let output = try await session.pbSucceeding(command)
                #expect(!output.stdout.contains(0), "pb \(command.joined(separator: " ")) printed NUL bytes: \(output)")
            }
            let picture = try await session.xclipRead("image/png")
            #expect(PNGCheck.dimensions(of: picture.stdout).map { [$0.width, $0.height] } == [2, 2], "\(picture)")
            #expect(
                try await session.pbSucceeding(["decode", String(entry.id), "--type", "png"]).stdout == picture.stdout)
            #expect(try await session.pbSucceeding(["decode", String(entry.id)]).stdout == picture.stdout)
            // Without text, the picture is what a plain paste gets (not the UTF-16 link).
            #expect(try await session.pbSucceeding(["paste"]).stdout == picture.stdout)

            let mark = session.logLength(daemon)
            try await desk.reload(window, in: session)
            try await desk.contextMenu(window, pick: 3, in: session)
            #expect(try await session.daemonSays(daemon, "clipboard: recorded item", since: mark), "\(daemon.stderr)")
            let entries = try await session.history()
            #expect(entries.count == 1, "\(entries.map(\.types))")
            try FidelityReport.record(
                application: "Chromium", copy: "image (context menu: Copy image)", offered: offered, kept: entry.types,
                servedBack: "yes, byte-exact (exit test)",
                note: "kind `\(entry.kind)`; twice across a reload: same item")

            // "Copy image address": a URL.
            try await desk.contextMenu(window, pick: 4, in: session)
            let link = try await session.waitForEntry { $0.preview == desk.server.url("/picture.png") }
            #expect(link?.kind == "url", "\(String(describing: link))")
            try FidelityReport.record(
                application: "Chromium", copy: "URL (context menu: Copy image address)",
                offered: try await session.offeredTargets(), kept: link?.types ?? [], servedBack: "not tried",
                note: "kind `\(link?.kind ?? "?")`")
            try await session.stop(daemon: daemon)
        }

        /// A page's copy handler sets `x-kde-passwordManagerHint`: Chromium hands it to X11 only inside
        /// `chromium/x-web-custom-data`, where the daemon finds it. Nothing is recorded or kept alive.
        @Test func aSecretMarkedByThePageIsNotRecorded() async throws {
            let daemon = try await session.startDaemon()
            let window = try await desk.open("/secret.html", in: session)
            try await desk.click(window, in: session)
            #expect(
                try await session.daemonSays(daemon, "skipped a concealed (secret) offer"),
                "daemon log: \(daemon.stderr)")
            let offered = try await session.offeredTargets()
            #expect(offered.contains("chromium/x-web-custom-data"), "\(offered)")
            try await session.stop(daemon: daemon)
            #expect(try await session.history().isEmpty)
            for file in session.storeFiles() {
                #expect(try Data(contentsOf: file).range(of: Data("PB-SECRET-FROM-A-PAGE".utf8)) == nil, "\(file.path)")
            }
            try FidelityReport.record(
                application: "Chromium", copy: "secret (page sets x-kde-passwordManagerHint)", offered: offered,
                kept: [],
                servedBack: "nothing (not kept)")
        }

        /// `ignore-app = chromium` works although Chromium's clipboard window names no application.
        @Test func ignoreAppMatchesChromiumByItsProcess() async throws {
            try session.writeConfig("ignore-app = chromium\n")
            let daemon = try await session.startDaemon()
            let window = try await desk.open("/text.html", in: session)
            try await desk.click(window, in: session)
            #expect(
                try await session.daemonSays(daemon, "not recorded (application chromium is ignored)"),
                "daemon log: \(daemon.stderr)")
            #expect(try await session.history().isEmpty)
            try await session.stop(daemon: daemon)
        }

        /// Chromium exits (SIGTERM, its normal shutdown) after "Copy image": every representation kept (the PNG,
        /// the HTML, the UTF-16 link, the source page) is served byte for byte. The next test starts it again.
        @Test func aCopyOutlivesChromium() async throws {
            let daemon = try await session.startDaemon()
            let window = try await desk.open("/picture.html", in: session)
            try await desk.contextMenu(window, pick: 3, in: session)
            let found = try await session.waitForEntry { $0.types.contains("public.png") }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr)")
            var served: [String: Data] = [:]
            for type in entry.types {
                let target = RealApplications.target(for: type)
                served[target] = try await session.xclipRead(target).stdout
            }
            try await desk.close()
            #expect(try await session.daemonSays(daemon, "now serving its content"), "\(daemon.stderr)")
            var exact = true
            for (target, bytes) in served.sorted(by: { $0.key < $1.key }) {
                let again = try await session.xclipRead(target)
                if !again.succeeded || again.stdout != bytes {
                    exact = false
                    Issue.record("\(target) differs after Chromium exited: \(again)")
                }
            }
            #expect(served.count == 4, "\(served.keys.sorted())")
            try FidelityReport.record(
                application: "Chromium", copy: "image, then the browser exits", offered: [], kept: entry.types,
                servedBack: exact ? "yes, byte-exact" : "**no**")
            try await session.stop(daemon: daemon)
        }
    }
}
