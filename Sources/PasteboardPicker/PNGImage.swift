internal import CZlib

/// A PNG decoded to 8-bit RGBA, for the half-block preview when chafa is not installed. Non-interlaced images of
/// every colour type and bit depth; an interlaced, damaged or too large one gives nil (the preview then describes
/// it). Bounded: at most `maxPixels`, and the inflated data must be exactly the size the header promises.
struct PNGImage {
    let width: Int
    let height: Int
    /// Row after row, four bytes a pixel.
    let rgba: [UInt8]

    /// 4096×4096: 64 MiB of RGBA at most.
    static let maxPixels = 4096 * 4096

    init?(_ bytes: [UInt8]) {
        guard let header = ImageHeader(bytes), header.format == "PNG", header.width > 0, header.height > 0,
            header.width * header.height <= Self.maxPixels
        else { return nil }
        var offset = 8
        var depth = 0
        var colorType = 0
        var palette: [UInt8] = []
        var transparency: [UInt8] = []
        var compressed: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let kind = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length <= bytes.count else { return nil }
            let data = bytes[start..<(start + length)]
            switch kind {
            case "IHDR":
                guard length >= 13 else { return nil }
                depth = Int(data[start + 8])
                colorType = Int(data[start + 9])
                guard data[start + 12] == 0 else { return nil }  // Adam7 interlacing: not decoded here
            case "PLTE": palette = Array(data)
            case "tRNS": transparency = Array(data)
            case "IDAT": compressed += data
            case "IEND": break
            default: break
            }
            if kind == "IEND" { break }
            offset = start + length + 4  // and the CRC
        }
        let channels: Int
        switch colorType {
        case 0, 3: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard [1, 2, 4, 8, 16].contains(depth), colorType == 0 || colorType == 3 || depth >= 8 else { return nil }
        if colorType == 3 && palette.isEmpty { return nil }
        let (width, height) = (header.width, header.height)
        let bitsPerPixel = channels * depth
        let rowBytes = (width * bitsPerPixel + 7) / 8
        let filterStep = max(1, bitsPerPixel / 8)
        guard let raw = Self.inflate(compressed, size: height * (rowBytes + 1)) else { return nil }

        // Undo the filters, row by row, in place.
        var rows = [UInt8](repeating: 0, count: height * rowBytes)
        for y in 0..<height {
            let filter = raw[y * (rowBytes + 1)]
            let source = y * (rowBytes + 1) + 1
            let target = y * rowBytes
            for x in 0..<rowBytes {
                let value = Int(raw[source + x])
                let left = x >= filterStep ? Int(rows[target + x - filterStep]) : 0
                let up = y > 0 ? Int(rows[target - rowBytes + x]) : 0
                let upLeft = y > 0 && x >= filterStep ? Int(rows[target - rowBytes + x - filterStep]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = left
                case 2: predicted = up
                case 3: predicted = (left + up) / 2
                case 4:
                    let estimate = left + up - upLeft
                    let (a, b, c) = (abs(estimate - left), abs(estimate - up), abs(estimate - upLeft))
                    predicted = a <= b && a <= c ? left : b <= c ? up : upLeft
                default: return nil
                }
                rows[target + x] = UInt8(truncatingIfNeeded: value + predicted)
            }
        }

        // One sample of channel `channel` of pixel `x` in row `y`, scaled to 8 bits (or the palette index).
        func sample(_ x: Int, _ y: Int, _ channel: Int) -> Int {
            let bit = (x * channels + channel) * depth
            let byte = rows[y * rowBytes + bit / 8]
            switch depth {
            case 16: return Int(byte)
            case 8: return Int(byte)
            default:
                let value = Int(byte) >> (8 - depth - bit % 8) & ((1 << depth) - 1)
                return colorType == 3 ? value : value * 255 / ((1 << depth) - 1)
            }
        }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let out = (y * width + x) * 4
                switch colorType {
                case 0, 4:
                    let gray = UInt8(sample(x, y, 0))
                    (rgba[out], rgba[out + 1], rgba[out + 2]) = (gray, gray, gray)
                    if colorType == 4 { rgba[out + 3] = UInt8(sample(x, y, 1)) }
                case 3:
                    let index = sample(x, y, 0)
                    guard index * 3 + 2 < palette.count else { return nil }
                    (rgba[out], rgba[out + 1], rgba[out + 2]) = (
                        palette[index * 3], palette[index * 3 + 1], palette[index * 3 + 2]
                    )
                    if index < transparency.count { rgba[out + 3] = transparency[index] }
                default:
                    for channel in 0..<channels { rgba[out + channel] = UInt8(sample(x, y, channel)) }
                }
            }
        }
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The zlib stream `compressed` inflated, when it gives exactly `size` bytes.
    private static func inflate(_ compressed: [UInt8], size: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: size)
        var length = uLongf(size)
        let status = output.withUnsafeMutableBufferPointer { target in
            compressed.withUnsafeBufferPointer { source in
                uncompress(target.baseAddress, &length, source.baseAddress, uLong(source.count))
            }
        }
        return status == Z_OK && Int(length) == size ? output : nil
    }
}
