import Foundation
import Testing

@testable import PasteboardHistory

/// The byte-level fast paths of `ItemText` (previews for `pb history --format dmenu`, URL detection for imports)
/// give exactly what the string-based versions they replaced gave.
@Suite struct ItemTextTests {
    /// The preview as it was computed before the fast path, character by character.
    static func referencePreview(_ bytes: Data, limit: Int = 200) -> String {
        let text = String(decoding: bytes.prefix(limit * 4), as: UTF8.self)
        var out = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            if out.unicodeScalars.count >= limit {
                out.append("…")
                break
            }
            if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                if !lastWasSpace && !out.isEmpty { out.append(" ") }
                lastWasSpace = true
            } else {
                out.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    static func referenceLooksLikeURL(_ data: Data) -> Bool {
        guard data.count < 8192 else { return false }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "\t" }) else { return false }
        for scheme in ["http://", "https://", "ftp://", "mailto:", "file://", "ssh://", "git://"]
        where text.lowercased().hasPrefix(scheme) {
            return text.count > scheme.count
        }
        return false
    }

    /// Texts built from pieces that matter: whitespace of every kind, control characters, CR LF, schemes in any
    /// case, non-ASCII letters and spaces, invalid UTF-8.
    static func samples() -> [Data] {
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("word".utf8), [0x20], [0x20, 0x20], [0x09], [0x0A], [0x0D, 0x0A], [0x0D], [0x00],
            [0x7F], [0x1F], [0x0B], [0x0C], Array("https://".utf8), Array("HTTP://".utf8), Array("mailto:".utf8),
            Array("é".utf8), Array("\u{00A0}".utf8), Array("\u{2028}".utf8), Array("\u{3000}".utf8), [0xFF], [0xC3],
            Array("漢字".utf8),
        ]
        var state: UInt64 = 42
        var samples: [Data] = []
        for length in [0, 1, 2, 3, 5, 8, 20, 199, 200, 201, 260, 900] {
            for _ in 0..<40 {
                var bytes: [UInt8] = []
                while bytes.count < length {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    bytes += pieces[Int(state >> 33) % pieces.count]
                }
                samples.append(Data(bytes))
            }
        }
        return samples
    }

    @Test func previewIsTheSameAsTheCharacterByCharacterOne() {
        for sample in Self.samples() {
            #expect(ItemText.preview(sample) == Self.referencePreview(sample), "\(Array(sample))")
            #expect(ItemText.preview(sample, limit: 7) == Self.referencePreview(sample, limit: 7), "\(Array(sample))")
        }
    }

    @Test func urlDetectionIsTheSameAsTheStringBasedOne() {
        let urls = ["https://swift.org", " http://x \r\n", "HTTPS://A", "https://", "mailto:a@b", "https://a b", "x https://a",
            "https://a\r\nb", "https://a\nb", "ssh://host\r\n\r\n"].map { Data($0.utf8) }
        for sample in urls + Self.samples() {
            #expect(ItemText.looksLikeURL(sample) == Self.referenceLooksLikeURL(sample), "\(Array(sample))")
        }
    }
}
