import FoundationEssentials
import PasteboardModel
import TextSupport

/// Klipper's history (`klipper/history2.lst` in the user's data directory), as Plasma 5 writes it: a
/// `QDataStream` holding a CRC-32 of the rest and the rest as one byte array. That holds Klipper's version
/// (a C string), then the items newest first, each its kind as a string and its value: `string` a text, `url` a
/// list of URLs (each a byte array), a map of metadata and a cut flag, `image` a flag and a PNG (as `QImage` writes
/// it: the PNG's own chunks, no length before them).
///
/// Klipper keeps no times nor pins.
public enum KlipperReader {
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedHistory {
        var outer = QtDataStream(bytes, file: file)
        let checksum = try outer.uint32("the checksum")
        let body = Array(try outer.byteArray("the history"))
        guard CRC32.of(body) == checksum else {
            throw ImportError.damaged(file, offset: 0, item: nil, "the checksum does not match the history")
        }
        var stream = QtDataStream(body, file: file)
        var history = ImportedHistory(files: [file])
        _ = try stream.cString("Klipper's version")
        var index = 0
        while !stream.isAtEnd {
            index += 1
            stream.item = index
            let start = stream.offset
            let kind = try stream.string("the item's kind")
            switch kind {
            case "string":
                let text = try stream.string("the text")
                if text.isEmpty {
                    history.skip("empty items")
                    continue
                }
                history.items.append(ImportedItem(item: PasteboardItem(string: text)))
            case "url":
                let count = try stream.count("the number of URLs", least: 4)
                var urls: [String] = []
                for _ in 0..<count { urls.append(String(decoding: try stream.byteArray("a URL"), as: UTF8.self)) }
                let entries = try stream.count("the number of metadata entries", least: 8)
                for _ in 0..<entries {
                    _ = try stream.string("a metadata key")
                    _ = try stream.string("a metadata value")
                }
                _ = try stream.int32("the cut flag")
                guard !urls.isEmpty else {
                    history.skip("empty items")
                    continue
                }
                let uriList = urls.map { $0 + "\r\n" }.joined()
                history.items.append(
                    ImportedItem(
                        item: PasteboardItem([
                            .init(type: .uriList, data: Data(uriList.utf8)),
                            .init(type: .utf8PlainText, data: Data(urls.joined(separator: "\n").utf8)),
                        ])))
            case "image":
                guard try stream.int32("the image's flag") != 0 else {
                    history.skip("empty items")
                    continue
                }
                let png = try pngBytes(&stream)
                history.items.append(ImportedItem(item: PasteboardItem([.init(type: .png, data: Data(png))])))
            default:
                throw stream.damaged("an item of unknown kind \(quoted(kind))", at: start)
            }
        }
        return history
    }

    /// A PNG file's bytes up to and with its IEND chunk.
    static func pngBytes(_ stream: inout QtDataStream) throws(ImportError) -> ArraySlice<UInt8> {
        let start = stream.offset
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard stream.remaining >= 8, Array(stream.bytes[start..<(start + 8)]) == signature else {
            throw stream.damaged("an image that is not a PNG", at: start)
        }
        var position = start + 8
        while true {
            guard stream.bytes.count - position >= 12 else {
                throw stream.damaged("the image ends before its last chunk", at: position)
            }
            let length = stream.bytes[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = stream.bytes[(position + 4)..<(position + 8)]
            guard length <= stream.bytes.count - position - 12 else {
                throw stream.damaged("an image chunk of \(length) bytes goes past the end", at: position)
            }
            position += 12 + length
            if Array(type) == Array("IEND".utf8) { break }
        }
        return try stream.skipping(to: position)
    }
}

extension QtDataStream {
    /// The bytes from here to `position`, which are then read.
    mutating func skipping(to position: Int) throws(ImportError) -> ArraySlice<UInt8> {
        try raw(position - offset, "the bytes")
    }
}

/// CRC-32 as zlib computes it (polynomial 0xEDB88320), for Klipper's checksum.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
