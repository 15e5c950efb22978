/// An image's format and size in pixels, read from its first bytes (PNG, GIF, JPEG, WebP, BMP) without
/// decoding it: for the one-line description, and to refuse to decode a picture too big to preview.
struct ImageHeader: Equatable, Sendable {
    var format: String
    var width: Int
    var height: Int

    /// The most pixels the preview decodes (a 8000×6000 photo); a larger picture is only described.
    static let maxPixels = 48_000_000

    init(format: String, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// nil when `bytes` start like no format known here.
    init?(_ bytes: [UInt8]) {
        func big(_ offset: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
        }
        func little(_ offset: Int, _ count: Int) -> Int {
            (0..<count).reversed().reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
        }
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self.init(format: "PNG", width: big(16, 4), height: big(20, 4))
        } else if bytes.count >= 10, bytes.starts(with: Array("GIF8".utf8)) {
            self.init(format: "GIF", width: little(6, 2), height: little(8, 2))
        } else if bytes.count >= 26, bytes.starts(with: Array("BM".utf8)) {
            self.init(format: "BMP", width: little(18, 4), height: abs(Int(Int32(truncatingIfNeeded: little(22, 4)))))
        } else if bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
            switch String(decoding: bytes[12..<16], as: UTF8.self) {
            case "VP8X": self.init(format: "WebP", width: little(24, 3) + 1, height: little(27, 3) + 1)
            case "VP8 ": self.init(format: "WebP", width: little(26, 2) & 0x3FFF, height: little(28, 2) & 0x3FFF)
            case "VP8L":
                let bits = little(21, 4)
                self.init(format: "WebP", width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
            default: return nil
            }
        } else if bytes.count >= 4, bytes.starts(with: [0xFF, 0xD8]) {
            // JPEG: walk the segments to the first start-of-frame marker.
            var index = 2
            while index + 9 < bytes.count, bytes[index] == 0xFF {
                let marker = bytes[index + 1]
                let length = big(index + 2, 2)
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    self.init(format: "JPEG", width: big(index + 7, 2), height: big(index + 5, 2))
                    return
                }
                index += 2 + length
            }
            self.init(format: "JPEG", width: 0, height: 0)
        } else {
            return nil
        }
    }

    var isTooLargeToDecode: Bool { width * height > Self.maxPixels }

    /// "PNG image, 120×90".
    var description: String {
        width > 0 && height > 0 ? "\(format) image, \(width)×\(height)" : "\(format) image"
    }
}
