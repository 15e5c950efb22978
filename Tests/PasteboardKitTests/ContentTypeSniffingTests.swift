import Foundation
import PasteboardKit
import Testing

@Suite struct ContentTypeSniffingTests {
    /// A tiny BMP header: file header, then a 40-byte DIB header, pixel data at offset 54.
    static let bmpHeader: [UInt8] =
        Array("BM".utf8) + [0x3A, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 24, 0]

    /// An icon directory with one 16×16 entry whose image starts right after the directory.
    static let icoHeader: [UInt8] = [0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0x68, 0x04, 0, 0, 22, 0, 0, 0]

    static func isoMedia(major: String, compatible: [String]) -> [UInt8] {
        let size = UInt8(16 + 4 * compatible.count)
        return [0, 0, 0, size] + Array("ftyp\(major)".utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
    }

    static func tarHeader() -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        block.replaceSubrange(0..<5, with: Array("a.txt".utf8))
        block.replaceSubrange(257..<265, with: Array("ustar".utf8) + [0, 0x30, 0x30])
        return block
    }

    @Test(
        arguments: [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], ContentType.png),
            ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8), .jpeg),
            ([0xFF, 0xD8, 0xFF, 0xDB], .jpeg),
            (Array("GIF87a".utf8) + [1, 0, 1, 0], .gif),
            (Array("GIF89a".utf8) + [1, 0, 1, 0], .gif),
            (Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webP),
            (Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8), .wav),
            (Array("%PDF-1.7\n".utf8), .pdf),
            (Array("%!PS-Adobe-3.0\n".utf8), .postScript),
            (Array("{\\rtf1\\ansi hello}".utf8), .rtf),
            (bmpHeader, .bmp),
            ([0x49, 0x49, 0x2A, 0x00, 0x08, 0, 0, 0], .tiff),
            ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 0x08], .tiff),
            (icoHeader, .ico),
            ([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3], .gzip),
            (Array("PK".utf8) + [3, 4, 20, 0], .zip),
            (Array("PK".utf8) + [5, 6] + [UInt8](repeating: 0, count: 18), .zip),
            (Array("BZh9".utf8) + [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], .bzip2),
            (Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0], .mp3),
            (isoMedia(major: "heic", compatible: ["mif1", "heic"]), .heic),
            (isoMedia(major: "mif1", compatible: ["mif1", "heic"]), .heic),
            (isoMedia(major: "mif1", compatible: ["mif1"]), .heif),
            (isoMedia(major: "avif", compatible: ["mif1", "avif"]), .avif),
            (isoMedia(major: "mif1", compatible: ["avif", "mif1"]), .avif),
            (isoMedia(major: "isom", compatible: ["isom", "mp41"]), .mpeg4Movie),
            (isoMedia(major: "qt  ", compatible: ["qt  "]), .quickTimeMovie),
            (tarHeader(), .tarArchive),
        ] as [([UInt8], ContentType)])
    func recognizesMagicBytes(bytes: [UInt8], expected: ContentType) {
        #expect(ContentType.sniff(Data(bytes)) == expected)
    }

    @Test(
        arguments: [
            // "BM" text without a bitmap header.
            Array("BMW makes cars, and this line is long enough.".utf8),
            // Icon header with no images.
            [0, 0, 1, 0, 0, 0],
            // Truncated magic numbers.
            [0x89, 0x50, 0x4E, 0x47], Array("GIF8".utf8) + [0x80], [0x1F, 0x8B],
            // RIFF of another kind.
            Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("AVI LIST".utf8) + [0xFF],
            // An ftyp box with an unknown brand.
            isoMedia(major: "zzzz", compatible: []) + [0xFF],
        ] as [[UInt8]])
    func rejectsLookAlikes(bytes: [UInt8]) {
        let type = ContentType.sniff(Data(bytes))
        #expect(type == .data || type == .utf8PlainText)
        #expect(!type.isImage)
    }

    // MARK: - SVG

    @Test(arguments: [
        #"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#,
        "<svg>",
        "\u{FEFF}  \n\t<svg viewBox=\"0 0 1 1\"></svg>",
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "<?xml version=\"1.0\"?>\n<!-- Made by hand -->\n<!-- second -->\n<svg\n  width=\"2\"/>",
        #"<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg/>"#,
        "<!DOCTYPE svg [ <!ENTITY a \"b>\"> ]>\n<svg>",
        "<?xml-stylesheet href=\"s.css\"?><svg>",
    ])
    func recognizesSVG(text: String) {
        #expect(ContentType.sniff(Data(text.utf8)) == .svg)
    }

    @Test(arguments: [
        "<svgs>", "<html><svg></svg></html>", "<?xml version=\"1.0\"?><root/>", "<!-- <svg> never closed",
        "<?xml never closed <svg>", "text before <svg>", "<svg",
    ])
    func textThatIsNotSVGIsPlainText(text: String) {
        #expect(ContentType.sniff(Data(text.utf8)) == .utf8PlainText)
    }

    @Test func svgAfterALongCommentIsFound() {
        let text = "<!--" + String(repeating: "license ", count: 4_000) + "-->\n<svg/>"
        #expect(ContentType.sniff(Data(text.utf8)) == .svg)
    }

    // MARK: - Text

    @Test(arguments: [
        "hello", "héllo wörld ✓ 😀 漢字", "line one\r\nline two\n\ttabbed", "\u{1B}[1mbold\u{1B}[0m",
        "\u{FEFF}", "form\u{0C}feed and vertical\u{0B}tab", "one bell \u{07} in a line long enough to be text",
        "{\"json\": true}", "<html><body>hi</body></html>",
    ])
    func recognizesUTF8Text(text: String) {
        #expect(ContentType.sniff(Data(text.utf8)) == .utf8PlainText)
    }

    @Test(
        arguments: [
            [0x68, 0x69, 0x00, 0x68, 0x69],  // NUL inside text
            [0x00],
            [0xC3, 0x28],  // bad continuation byte
            [0xC0, 0xAF],  // overlong "/"
            [0xE0, 0x80, 0xAF],  // overlong, three bytes
            [0xED, 0xA0, 0x80],  // UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
            [0xF8, 0x88, 0x80, 0x80, 0x80],  // five-byte form
            [0x80, 0x61],  // lone continuation byte
            [0x61, 0xE2, 0x82],  // cut off at the end
            [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00],  // UTF-16 with a BOM
            [0x01, 0x02, 0x03, 0x61],  // mostly control characters
        ] as [[UInt8]])
    func rejectsNonText(bytes: [UInt8]) {
        #expect(ContentType.sniff(Data(bytes)) == .data)
    }

    @Test func emptyDataIsData() {
        #expect(ContentType.sniff(Data()) == .data)
    }

    @Test func allByteValuesAreData() {
        #expect(ContentType.sniff(Data((0...255).map { UInt8($0) })) == .data)
    }

    @Test func toleratesFewControlCharactersButNotMany() {
        let few = String(repeating: "abcdefghijklmnopqrstuvwxyz01234\u{01}", count: 10)
        let many = String(repeating: "abcdefghijklmnop\u{01}", count: 10)
        #expect(ContentType.sniff(Data(few.utf8)) == .utf8PlainText)
        #expect(ContentType.sniff(Data(many.utf8)) == .data)
    }

    @Test func onlyTheFirst64KiBDecideText() {
        var data = Data(repeating: UInt8(ascii: "a"), count: 64 * 1024)
        data.append(contentsOf: [0x00, 0xFF, 0xFE])
        #expect(ContentType.sniff(data) == .utf8PlainText)

        var early = Data(repeating: UInt8(ascii: "a"), count: 64 * 1024 - 1)
        early.append(contentsOf: [0x00, 0x61])
        #expect(ContentType.sniff(early) == .data)
    }

    @Test func multiByteCharacterAcrossThe64KiBBoundaryIsText() {
        var data = Data(repeating: UInt8(ascii: "a"), count: 64 * 1024 - 1)
        data.append(contentsOf: Array("€ and more".utf8))
        #expect(ContentType.sniff(data) == .utf8PlainText)
    }

    @Test func sniffsASliceWithANonZeroStartIndex() {
        let whole = Data([0x00, 0x00, 0x00, 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00])
        let slice = whole[3...]
        #expect(slice.startIndex == 3)
        #expect(ContentType.sniff(slice) == .png)
        #expect(ContentType.sniff(whole[0..<2]) == .data)
    }

    @Test func tenMegabytesOfTextAreSniffedQuickly() {
        let line = Data("The quick brown fox jumps over the lazy dog — ünïcödé.\n".utf8)
        var data = Data(capacity: 10 * 1024 * 1024 + line.count)
        while data.count < 10 * 1024 * 1024 { data.append(line) }

        let clock = ContinuousClock()
        var result = ContentType.data
        let elapsed = clock.measure {
            for _ in 0..<10 { result = ContentType.sniff(data) }
        }
        #expect(result == .utf8PlainText)
        #expect(elapsed < .milliseconds(500), "10 sniffs of 10 MB took \(elapsed)")
    }
}
