import Foundation
import PasteboardTestSupport
import Testing

extension X11IntegrationTests {
    /// Payloads far above the X server's request size travel through INCR, in both directions, byte-exact.
    @Suite struct LargePayloads {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        static let size = 20 << 20

        @Test func twentyMebibytesCopiedWithXclipAreCapturedByteExact() async throws {
            let daemon = try await session.startDaemon()
            let payload = Payloads.largeText(count: Self.size)
            try await session.xclipCopy(payload)

            let found = try await session.waitForEntry(within: .seconds(60)) { $0.size == payload.count }
            let entry = try #require(found, "the daemon did not record 20 MiB; its log: \(daemon.stderr.suffix(2000))")
            let stored = try await session.pbSucceeding(["decode", String(entry.id)], timeout: .seconds(60)).stdout
            #expect(stored.count == payload.count)
            #expect(stored == payload, "the stored bytes differ from what xclip offered")
            let pasted = try await session.pbSucceeding(["paste"], timeout: .seconds(60)).stdout
            #expect(pasted.count == payload.count)
            #expect(pasted == payload, "pb paste read different bytes from xclip")
            try await session.stop(daemon: daemon)
        }

        @Test func severalRepresentationsArriveThroughIncrInSmallChunks() async throws {
            let daemon = try await session.startDaemon()
            let text = Payloads.largeText(count: 300_000)
            let html = Data("<pre>".utf8) + Payloads.largeText(count: 200_000) + Data("</pre>".utf8)
            // 4 KiB chunks: about 120 PropertyNotify round trips for the two targets.
            let owner = try await session.startOwner(
                [("UTF8_STRING", text), ("text/html", html)], [.incrThreshold(4096)])

            let found = try await session.waitForEntry(within: .seconds(30)) { $0.types.contains("public.html") }
            let entry = try #require(found, "the daemon did not record the INCR offer; its log: \(daemon.stderr)")
            #expect(try await session.pbSucceeding(["decode", String(entry.id)]).stdout == text)
            #expect(try await session.pbSucceeding(["decode", String(entry.id), "--type", "html"]).stdout == html)
            #expect(owner.isRunning, "the owner should still hold the selection")
            try await session.stop(daemon: daemon)
        }

        @Test func twentyMebibytesCopiedWithPbAreServedByteExact() async throws {
            let daemon = try await session.startDaemon()
            var payload = Payloads.largeText(count: Self.size)
            payload.replaceSubrange(0..<8, with: Data("SERVED: ".utf8))
            try await session.pbSucceeding(["copy"], stdin: payload, timeout: .seconds(60))

            let pasted = try await session.xclipPaste(timeout: .seconds(60))
            #expect(pasted.succeeded, "\(pasted)")
            #expect(pasted.stdout.count == payload.count)
            #expect(pasted.stdout == payload, "xclip read different bytes from the daemon")
            try await session.stop(daemon: daemon)
        }
    }
}
