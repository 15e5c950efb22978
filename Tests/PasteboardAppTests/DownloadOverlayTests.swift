import Foundation
import PasteboardTestSupport
import Testing

/// The download card's text reads well (issue 26, defect 8: its progress text was grey on grey): every text colour
/// in the card contrasts with the card's background by WCAG's 4.5:1 for normal text.
@Suite(.timeLimit(.minutes(2))) struct DownloadOverlayTests {
    /// Relative luminance of an sRGB colour (0–255 channels), as WCAG defines it.
    static func luminance(_ red: Double, _ green: Double, _ blue: Double) -> Double {
        func linear(_ channel: Double) -> Double {
            let value = channel / 255
            return value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    static func contrast(_ first: Double, _ second: Double) -> Double {
        (max(first, second) + 0.05) / (min(first, second) + 0.05)
    }

    @Test func theProgressTextContrastsWithTheCard() async throws {
        let session = try await AppSession()
        let server = try await FetchServer(in: session.sandbox)
        try await session.launchApp()
        try await session.focusWindow()
        let mark = session.logLines().count
        try await session.key("ctrl+l")
        try await session.type(server.url("stall"))
        try await session.key("Return")
        try await session.waitForLog(after: mark) { $0.hasPrefix("fetch started") }
        try await Task.sleep(for: .milliseconds(800))
        let shot = try await session.screenshot("download-card")
        // The progress bar's line of the card, centred in the 980×640 window at the screen's top left.
        let crop = session.sandbox.root.appendingPathComponent("io/progress-line.png")
        let convert = try AppSession.tool("convert", package: "imagemagick")
        let cropped = try await session.sandbox.run(
            convert, [shot.path, "-crop", "320x40+330+300", "+repage", crop.path], timeout: .seconds(20))
        try #require(cropped.succeeded, "\(cropped)")
        let histogram = try await session.sandbox.run(
            convert, [crop.path, "-format", "%c", "histogram:info:"], timeout: .seconds(20))
        // Lines such as "   1234: (250,250,250) #FAFAFA srgb(250,250,250)".
        var colours: [(count: Int, luminance: Double)] = []
        for line in histogram.output.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":"), let count = Int(line[..<colon].trimmingCharacters(in: .whitespaces)),
                let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")")
            else { continue }
            let channels = line[line.index(after: open)..<close].split(separator: ",").compactMap {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard channels.count >= 3 else { continue }
            colours.append((count, Self.luminance(channels[0], channels[1], channels[2])))
        }
        let background = try #require(colours.max { $0.count < $1.count }, "\(histogram)")
        // The text's own colour: the one furthest from the background among those with a few pixels (anti-aliased
        // edges are in between).
        let text = try #require(colours.filter { $0.count >= 8 }.max {
            Self.contrast($0.luminance, background.luminance) < Self.contrast($1.luminance, background.luminance)
        })
        let ratio = Self.contrast(text.luminance, background.luminance)
        #expect(ratio >= 4.5, "the progress text contrasts \(ratio):1 with the card (see \(shot.path))")
        try await session.key("Escape")
        try await session.waitForLog(after: mark) { $0 == "fetch cancelled" }
        server.process.terminate(grace: .milliseconds(200))
    }
}
