import FoundationEssentials
import PasteboardModel

/// Decides the content type of bytes given to `pb copy`, and whether bytes can honestly be called text.
enum InputClassifier {
    /// The type for `data`: the sniffed format; for bytes sniffing calls plain data, mostly-text bytes
    /// become plain text (kept byte-exact), else the file name's extension decides.
    static func type(of data: Data, fileName: String?) -> ContentType {
        let sniffed = ContentType.sniff(data)
        if sniffed != .data { return sniffed }
        if isMostlyText(data) { return .plainText }
        if let fileName, let ext = fileName.split(separator: ".").last, fileName.contains("."),
            let type = ContentType(filenameExtension: String(ext))
        {
            return type
        }
        return .data
    }

    /// Text with a few stray bytes (a Latin-1 accent, a NUL) is still text; a binary format is not.
    static func isMostlyText(_ data: Data) -> Bool {
        if data.isEmpty { return false }
        let sniffed = ContentType.sniff(data)
        if sniffed.isText { return true }
        if sniffed != .data { return false }  // a recognised binary format
        return data.prefix(64 * 1024).withUnsafeBytes { isTextLike($0) }
    }

    /// Whether at most 5% of the first 64 KiB of `bytes` are control characters (other than tab, line and page
    /// breaks and escape) or bytes of no well-formed UTF-8 sequence: what may honestly be stored as text.
    static func isTextLike(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if bytes.isEmpty { return false }
        let sample = UnsafeRawBufferPointer(rebasing: bytes.prefix(64 * 1024))
        return suspiciousBytes(sample) * 20 <= sample.count
    }

    private static func suspiciousBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0x0C && byte != 0x1B {
                count += 1
                index += 1
                continue
            }
            if byte < 0x80 { index += 1; continue }
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0
            if length == 0 || index + length > bytes.count
                || !bytes[(index + 1)..<(index + length)].allSatisfy({ $0 & 0xC0 == 0x80 })
            {
                count += 1
                index += 1
                continue
            }
            index += length
        }
        return count
    }
}
