import Foundation
import PasteboardTestSupport
import Testing

/// The words the daemon's recognizer read in a picture (issue 29): a search in the window finds the picture by them,
/// and its preview shows them, the match in bold.
@Suite struct RecognizedWordsTests {
    @Test func aPictureIsFoundByItsWordsAndItsPreviewShowsThem() async throws {
        let session = try await AppSession()
        let convert = try AppSession.tool("convert", package: "imagemagick")
        let picture = session.sandbox.root.appendingPathComponent("files/words.png")
        let drawn = try await session.sandbox.run(
            convert,
            ["-size", "900x200", "xc:white", "-fill", "black", "-pointsize", "48", "-annotate", "+20+110",
             "quarterly zebra revenue 4711", picture.path])
        guard drawn.succeeded else { throw CommandFailed(result: drawn) }
        let id = try await session.seed(file: picture)
        try await session.seed("a text without the word")
        try await session.startDaemon()
        let read = try await eventually(within: .seconds(60), every: .milliseconds(250)) {
            let shown = try await session.pb(["show", String(id)])
            return shown.output.contains("Recognized text:")
        }
        #expect(read, "the daemon read the picture within a minute")

        try await session.launchApp()
        let mark = session.logLines().count
        try await session.key("ctrl+f")
        try await session.type("zebra")
        try await session.waitForLog(after: mark) { $0 == "rows 1" }
        try await session.key("Down")
        try await session.waitForLog(after: mark) { $0.hasPrefix("preview words \(id): quarterly zebra revenue 4711") }
        try await session.waitForLog(after: mark) { $0.hasPrefix("preview image \(id) ") }
        #expect(session.gtkComplaints.isEmpty, "\(session.gtkComplaints)")
    }
}
