import FoundationEssentials

extension PasteboardImage {
    /// The pixel size stored in the header of a PNG, GIF, JPEG, BMP or WebP image; nil for other formats, a
    /// damaged header, or a zero dimension.
    static func pixelSize(of data: Data, as contentType: ContentType) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { buffer in
            let header = ImageHeader(bytes: buffer)
            let size: (width: Int, height: Int)?
            switch contentType {
            case .png: size = header.pngSize
            case .gif: size = header.gifSize
            case .jpeg: size = header.jpegSize
            case .bmp: size = header.bmpSize
            case .webP: size = header.webPSize
            default: size = nil
            }
            guard let size, size.width > 0, size.height > 0 else { return nil }
            return size
        }
    }
}

/// Bounds-checked reads of the fields of image headers.
private struct ImageHeader {
    let bytes: UnsafeRawBufferPointer

    /// The `IHDR` chunk, which the PNG specification requires to come first: big-endian width and height.
    var pngSize: (width: Int, height: Int)? {
        guard has("IHDR", at: 12), let width = bigEndian(at: 16, count: 4), let height = bigEndian(at: 20, count: 4)
        else { return nil }
        return (width, height)
    }

    /// The logical screen descriptor after the 6-byte signature: little-endian 16-bit width and height.
    var gifSize: (width: Int, height: Int)? {
        guard let width = littleEndian(at: 6, count: 2), let height = littleEndian(at: 8, count: 2) else { return nil }
        return (width, height)
    }

    /// The first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC), found by walking the marker
    /// segments before the image data.
    var jpegSize: (width: Int, height: Int)? {
        var index = 2
        while index < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }  // Fill bytes.
            guard index < bytes.count else { return nil }
            let marker = bytes[index]
            index += 1
            switch marker {
            case 0x01, 0xD0...0xD8:
                continue  // Markers without a segment: TEM, RSTn, SOI.
            case 0xD9, 0xDA:
                return nil  // End of image, or start of scan: no frame header came first.
            default:
                break
            }
            guard let length = bigEndian(at: index, count: 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                // Segment: length (2), sample precision (1), number of lines (2), samples per line (2).
                guard let height = bigEndian(at: index + 3, count: 2), let width = bigEndian(at: index + 5, count: 2)
                else { return nil }
                return (width, height)
            }
            index += length
        }
        return nil
    }

    /// The DIB header after the 14-byte file header: 16-bit sizes in the OS/2 core header, signed 32-bit
    /// ones in the others (a negative height marks a top-down bitmap).
    var bmpSize: (width: Int, height: Int)? {
        guard let headerSize = littleEndian(at: 14, count: 4) else { return nil }
        if headerSize == 12 {
            guard let width = littleEndian(at: 18, count: 2), let height = littleEndian(at: 20, count: 2) else {
                return nil
            }
            return (width, height)
        }
        guard let width = littleEndian(at: 18, count: 4), let height = littleEndian(at: 22, count: 4) else {
            return nil
        }
        let signedWidth = Int(Int32(bitPattern: UInt32(width)))
        let signedHeight = Int(Int32(bitPattern: UInt32(height)))
        guard signedWidth > 0, signedHeight != Int(Int32.min) else { return nil }
        return (signedWidth, abs(signedHeight))
    }

    /// The first chunk of a WebP file: a VP8 key frame header, a VP8L header, or the VP8X canvas size.
    var webPSize: (width: Int, height: Int)? {
        if has("VP8 ", at: 12) {
            // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height with 2 scaling bits each.
            guard has([0x9D, 0x01, 0x2A], at: 23), let width = littleEndian(at: 26, count: 2),
                let height = littleEndian(at: 28, count: 2)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        if has("VP8L", at: 12) {
            // Signature 0x2F, then 14 bits of width - 1 and 14 bits of height - 1, least significant first.
            guard has([0x2F], at: 20), let bits = littleEndian(at: 21, count: 4) else { return nil }
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        }
        if has("VP8X", at: 12) {
            // Flags (1 byte), reserved (3), then 24-bit canvas width - 1 and height - 1.
            guard let width = littleEndian(at: 24, count: 3), let height = littleEndian(at: 27, count: 3) else {
                return nil
            }
            return (width + 1, height + 1)
        }
        return nil
    }

    // MARK: - Reading

    private func has(_ magic: StaticString, at offset: Int) -> Bool {
        let magic = UnsafeRawBufferPointer(start: magic.utf8Start, count: magic.utf8CodeUnitCount)
        return has(Array(magic), at: offset)
    }

    private func has(_ magic: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + magic.count <= bytes.count else { return false }
        return magic.indices.allSatisfy { bytes[offset + $0] == magic[$0] }
    }

    private func bigEndian(at offset: Int, count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }

    private func littleEndian(at offset: Int, count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return (0..<count).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
}
