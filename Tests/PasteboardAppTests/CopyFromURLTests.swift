import Foundation
import PasteboardTestSupport
import Testing

/// "Copy from URL" against a local HTTP server: what becomes an item, and every failure leaving things as they were.
@Suite(.timeLimit(.minutes(2))) struct CopyFromURLTests {
    /// Types `address` into the URL field, presses Enter and returns the log line that ends the download.
    private func fetch(_ address: String, in session: AppSession) async throws -> String {
        let mark = session.logLines().count
        try await session.key("ctrl+l", "ctrl+a")
        try await session.type(address)
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0 == "fetch started \(address)" }
        return try await session.waitForLog(after: mark, timeout: .seconds(20)) {
            $0.hasPrefix("copied url ") || $0.hasPrefix("error ") || $0 == "fetch cancelled"
        }
    }

    @Test func imagesAndPagesAreCopiedAndFailuresChangeNothing() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let server = try await FetchServer(in: session.sandbox)
        try await session.seed("before the downloads")
        try await session.launchApp(environment: ["PASTEBOARD_GTK_STALL_TIMEOUT": "2"])

        // An image becomes an image item, on the clipboard as PNG.
        var end = try await fetch(server.url("image.png"), in: session)
        #expect(end.hasPrefix("copied url "), "\(end)")
        var newest = try await session.history(limit: 1).first ?? [:]
        #expect(newest["kind"] as? String == "image", "\(newest)")
        let png = try await session.clipboard(target: "image/png")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 100, "\(png.count) bytes")

        // A page becomes a text item: its text, its HTML and its address.
        end = try await fetch(server.url("page.html"), in: session)
        #expect(end.hasPrefix("copied url "), "\(end)")
        newest = try await session.history(limit: 1).first ?? [:]
        let types = newest["types"] as? [String] ?? []
        #expect(
            types.contains("public.html") && types.contains("public.url") && types.contains("public.utf8-plain-text"),
            "\(types)")
        let text = String(decoding: try await session.clipboard(), as: UTF8.self)
        #expect(text.contains("Fetched heading") && text.contains("Body text"), "\(text)")

        let count = try await session.history().count
        let failures: [(path: String, message: String)] = [
            ("missing", "The server answered 404"),
            ("fake.png", "is not an image"),
            ("archive.zip", "neither an image nor a web page"),
            ("huge", "larger than 50 MB"),
            ("huge-chunked", "larger than 50 MB"),
            ("stall", "The server stopped sending"),
        ]
        for failure in failures {
            let started = ContinuousClock.now
            end = try await fetch(server.url(failure.path), in: session)
            #expect(end.hasPrefix("error ") && end.contains(failure.message), "\(failure.path): \(end)")
            #expect(ContinuousClock.now - started < .seconds(20), "\(failure.path) took too long")
        }
        #expect(try await session.history().count == count, "a failed download adds nothing")
        #expect(try await session.clipboardBecomes(text), "a failed download leaves the clipboard alone")

        // Escape cancels a download under way.
        let mark = session.logLines().count
        try await session.key("ctrl+l", "ctrl+a")
        try await session.type(server.url("stall"))
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0.hasPrefix("fetch started") }
        try await session.key("Escape")
        try await session.waitForLog(after: mark) { $0 == "fetch cancelled" }
        server.process.terminate(grace: .milliseconds(200))
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }

    /// A failure's red banner does not outlive the user's next success (issue 26, defect 8): a copy, and Clear
    /// History, hide it.
    @Test func aFailedDownloadsBannerGoesAtTheNextSuccess() async throws {
        let session = try await AppSession()
        try await session.startDaemon()
        let server = try await FetchServer(in: session.sandbox)
        try await session.seed("an item")
        try await session.launchApp()
        var end = try await fetch(server.url("missing"), in: session)
        #expect(end.hasPrefix("error "), "\(end)")
        // A click on a row puts its item back: a success.
        var mark = session.logLines().count
        let row = SelectionTests.rowPoint(0, layout: "strip")
        try await session.click(x: row.x, y: row.y)
        try await session.waitForLog(after: mark) { $0.hasPrefix("restored ") }
        #expect(session.logLines().dropFirst(mark).contains("error cleared"), "the banner went with the success")

        end = try await fetch(server.url("missing"), in: session)
        #expect(end.hasPrefix("error "), "\(end)")
        mark = session.logLines().count
        // "Clear History…" (its button in the toolbar), then its confirmation's Clear button.
        try await session.click(x: 912, y: 111)
        try await session.waitForLog(after: mark) { $0 == "clear asked" }
        try await session.focusWindow(named: "Clear History")
        try await session.key("Tab", "Return")
        try await session.waitForLog(after: mark) { $0.hasPrefix("cleared ") }
        #expect(session.logLines().dropFirst(mark).contains("error cleared"), "the banner went with Clear History")
        server.process.terminate(grace: .milliseconds(200))
    }
}
