public import FoundationEssentials

extension ContentType {
    /// How many leading bytes the text and SVG checks examine.
    static let sniffingWindow = 64 * 1024

    /// Guesses the type of `data` from its leading bytes.
    ///
    /// Recognizes PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, HEIF/HEIC/AVIF, SVG, PDF, PostScript, RTF, WAV,
    /// MP3 (with an ID3 tag), MPEG-4 and QuickTime movies, gzip, bzip2, zip and tar. Anything else whose
    /// first 64 KiB are UTF-8 text is `.utf8PlainText`; the rest, and empty data, is `.data`.
    ///
    /// Text here means: valid UTF-8 (a sequence cut by the 64 KiB limit counts as valid), no NUL byte, and
    /// at most one byte in 32 being a control character other than tab, line feed, vertical tab, form feed,
    /// carriage return and escape. HTML, JSON and other text formats are not told apart from plain text:
    /// text copied as text stays text.
    ///
    /// The bytes are read in place; the cost does not grow with the size of `data`.
    ///
    /// ```swift
    /// ContentType.sniff(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))  // .png
    /// ContentType.sniff(Data("hello".utf8))                                     // .utf8PlainText
    /// ```
    public static func sniff(_ data: Data) -> ContentType {
        data.withUnsafeBytes { Sniffer(bytes: $0).contentType }
    }
}

extension ContentType {
    /// Magic-number checks over a borrowed buffer.
    struct Sniffer {
        let bytes: UnsafeRawBufferPointer

        var contentType: ContentType {
            if bytes.isEmpty { return .data }
            if let type = binaryType { return type }
            if isSVG { return .svg }
            if isUTF8Text { return .utf8PlainText }
            return .data
        }

        // MARK: Binary formats

        private var binaryType: ContentType? {
            if has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
            if has([0xFF, 0xD8, 0xFF]) { return .jpeg }
            if has("GIF87a") || has("GIF89a") { return .gif }
            if has("RIFF") && has("WEBP", at: 8) { return .webP }
            if has("RIFF") && has("WAVE", at: 8) { return .wav }
            if has("%PDF-") { return .pdf }
            if has("%!PS") { return .postScript }
            if has("{\\rtf") { return .rtf }
            if has("II*\0") || has("MM\0*") || has("II+\0") || has("MM\0+") { return .tiff }
            if isBMP { return .bmp }
            if isICO { return .ico }
            if has([0x1F, 0x8B, 0x08]) { return .gzip }
            if has("PK\u{03}\u{04}") || has("PK\u{05}\u{06}") || has("PK\u{07}\u{08}") { return .zip }
            if isBzip2 { return .bzip2 }
            if has("ID3"), bytes.count > 4, (2...4).contains(bytes[3]), bytes[4] != 0xFF { return .mp3 }
            if let type = isoMediaType { return type }
            if has("ustar", at: 257), bytes.count > 262, bytes[262] == 0 || bytes[262] == 0x20 { return .tarArchive }
            return nil
        }

        /// `BM`, then a header whose DIB header size is one of the known ones and whose pixel data starts
        /// after it.
        private var isBMP: Bool {
            guard has("BM"), bytes.count >= 18 else { return false }
            let pixelOffset = littleEndian32(at: 10)
            let headerSize = littleEndian32(at: 14)
            return [12, 16, 40, 52, 56, 64, 108, 124].contains(headerSize) && pixelOffset >= 14 + headerSize
        }

        /// Reserved 0, type 1 (icon), at least one image, and a sane first directory entry when present.
        private var isICO: Bool {
            guard has([0x00, 0x00, 0x01, 0x00]), bytes.count >= 6 else { return false }
            let imageCount = UInt32(bytes[4]) | UInt32(bytes[5]) << 8
            guard imageCount > 0 else { return false }
            if bytes.count >= 10, bytes[9] != 0 { return false }
            if bytes.count >= 12, bytes[10] > 1 || bytes[11] != 0 { return false }
            if bytes.count >= 22, littleEndian32(at: 18) < 6 + 16 * imageCount { return false }
            return true
        }

        /// `BZh`, a block size digit, then the magic of a block or of the end of the stream.
        private var isBzip2: Bool {
            guard has("BZh"), bytes.count >= 10, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[3]) else {
                return false
            }
            return has([0x31, 0x41, 0x59, 0x26, 0x53, 0x59], at: 4) || has([0x17, 0x72, 0x45, 0x38, 0x50, 0x90], at: 4)
        }

        /// The ISO base media file format (`ftyp` box): HEIF, HEIC, AVIF, MPEG-4 and QuickTime.
        private var isoMediaType: ContentType? {
            guard has("ftyp", at: 4), bytes.count >= 12 else { return nil }
            let boxSize = min(Int(bigEndian32(at: 0)), bytes.count)
            var brands = [brand(at: 8)]
            var offset = 16
            while offset + 4 <= boxSize {
                brands.append(brand(at: offset))
                offset += 4
            }
            let major = brands[0]
            if ["avif", "avis"].contains(major) { return .avif }
            if ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains(major) { return .heic }
            if ["mif1", "msf1"].contains(major) {
                if brands.contains("avif") { return .avif }
                if brands.contains("heic") || brands.contains("heix") { return .heic }
                return .heif
            }
            if major == "qt  " { return .quickTimeMovie }
            if ["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "dash", "M4V ", "mmp4"].contains(major)
            {
                return .mpeg4Movie
            }
            return nil
        }

        // MARK: SVG

        /// Optional BOM, whitespace, XML declaration, processing instructions, comments and a doctype, then
        /// an `<svg` start tag.
        private var isSVG: Bool {
            let end = min(bytes.count, sniffingWindow)
            var index = has([0xEF, 0xBB, 0xBF]) ? 3 : 0
            while true {
                while index < end, Self.isXMLSpace(bytes[index]) { index += 1 }
                if has("<?", at: index) {
                    guard let close = firstIndex(of: "?>", from: index + 2, before: end) else { return false }
                    index = close + 2
                } else if has("<!--", at: index) {
                    guard let close = firstIndex(of: "-->", from: index + 4, before: end) else { return false }
                    index = close + 3
                } else if has("<!DOCTYPE", at: index) {
                    guard let close = endOfDoctype(from: index + 9, before: end) else { return false }
                    index = close + 1
                } else {
                    guard has("<svg", at: index), index + 4 < end else { return false }
                    let next = bytes[index + 4]
                    return Self.isXMLSpace(next) || next == UInt8(ascii: ">") || next == UInt8(ascii: "/")
                }
            }
        }

        /// The index of the `>` closing a doctype, skipping an internal subset in brackets.
        private func endOfDoctype(from start: Int, before end: Int) -> Int? {
            var depth = 0
            for index in start..<max(start, end) {
                switch bytes[index] {
                case UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ">") where depth <= 0: return index
                default: continue
                }
            }
            return nil
        }

        private static func isXMLSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        // MARK: Text

        /// Whether the first 64 KiB are UTF-8 text (see `sniff(_:)`).
        ///
        /// A multi-byte sequence that starts inside the window is checked in full, so up to three bytes past
        /// the window may be read.
        private var isUTF8Text: Bool {
            let end = min(bytes.count, sniffingWindow)
            var controls = 0
            var index = 0
            while index < end {
                let lead = bytes[index]
                if lead < 0x80 {
                    if lead == 0 { return false }
                    if lead == 0x7F || (lead < 0x20 && !(0x09...0x0D).contains(lead) && lead != 0x1B) {
                        controls += 1
                    }
                    index += 1
                    continue
                }
                // Unicode 15, table 3-7: the well-formed UTF-8 byte sequences.
                let (length, second): (Int, ClosedRange<UInt8>)
                switch lead {
                case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
                case 0xE0: (length, second) = (3, 0xA0...0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
                case 0xED: (length, second) = (3, 0x80...0x9F)
                case 0xF0: (length, second) = (4, 0x90...0xBF)
                case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
                case 0xF4: (length, second) = (4, 0x80...0x8F)
                default: return false
                }
                if index + length > bytes.count {
                    // Cut off by the end of the data rather than by the window: not UTF-8.
                    return false
                }
                guard second.contains(bytes[index + 1]) else { return false }
                for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return false }
                index += length
            }
            return controls * 32 <= end
        }

        // MARK: Helpers

        private func has(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            guard offset >= 0, offset + magic.count <= bytes.count else { return false }
            for (position, byte) in magic.enumerated() where bytes[offset + position] != byte { return false }
            return true
        }

        private func has(_ magic: StaticString, at offset: Int = 0) -> Bool {
            let count = magic.utf8CodeUnitCount
            guard offset >= 0, offset + count <= bytes.count else { return false }
            for position in 0..<count where bytes[offset + position] != magic.utf8Start[position] { return false }
            return true
        }

        private func firstIndex(of needle: StaticString, from start: Int, before end: Int) -> Int? {
            var index = start
            while index + needle.utf8CodeUnitCount <= end {
                if has(needle, at: index) { return index }
                index += 1
            }
            return nil
        }

        private func brand(at offset: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4]), as: UTF8.self)
        }

        private func littleEndian32(at offset: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }

        private func bigEndian32(at offset: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
        }
    }
}
