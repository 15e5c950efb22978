public import FoundationEssentials

/// The encodings readers of X11's own text targets expect, made from UTF-8 text: an owner offers `STRING`,
/// `TEXT` and `COMPOUND_TEXT` beside `UTF8_STRING`, and converts on request.
///
/// ```swift
/// X11Text.latin1(fromUTF8: Data("Grüße 世界".utf8))        // "Gr\u{FC}\u{DF}e ??" as Latin-1 bytes
/// X11Text.compoundText(fromUTF8: Data("Grüße 世界".utf8))  // Latin-1, then ESC % G, UTF-8 "世界", ESC % @
/// ```
public enum X11Text {
    /// ICCCM's `STRING`: ISO Latin-1. Characters outside Latin-1 become `?`; every other character is its one
    /// byte, control characters included.
    public static func latin1(fromUTF8 data: Data) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(data.count)
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            bytes.append(scalar.value < 0x100 ? UInt8(scalar.value) : 0x3F)
        }
        return Data(bytes)
    }

    /// The X Consortium's Compound Text (`COMPOUND_TEXT`; owners answer `TEXT` with it too).
    ///
    /// Compound Text starts with ASCII in GL and the right half of Latin-1 in GR, so Latin-1 text is its own
    /// Latin-1 bytes. Every run of other characters (and the C1 controls U+0080 to U+009F, which have no place
    /// in GR) goes into an extended segment of UTF-8, `ESC % G` … `ESC % @`, which Xlib reads back in any locale.
    /// C0 controls stay as they are: Xlib's own encoder drops a carriage return, but its decoder keeps one.
    public static func compoundText(fromUTF8 data: Data) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(data.count)
        var inSegment = false
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            let value = scalar.value
            let isLatin1 = value < 0x80 || (0xA0..<0x100).contains(value)
            if isLatin1 {
                if inSegment {
                    bytes += endOfUTF8Segment
                    inSegment = false
                }
                bytes.append(UInt8(value))
            } else {
                if !inSegment {
                    bytes += startOfUTF8Segment
                    inSegment = true
                }
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        if inSegment { bytes += endOfUTF8Segment }
        return Data(bytes)
    }

    /// `ESC % G`: what follows is UTF-8, until `ESC % @` (ISO 2022's return from another coding system).
    static let startOfUTF8Segment: [UInt8] = [0x1B, 0x25, 0x47]
    static let endOfUTF8Segment: [UInt8] = [0x1B, 0x25, 0x40]
}
