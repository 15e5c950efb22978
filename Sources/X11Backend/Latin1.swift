import FoundationEssentials

/// ICCCM's STRING target is ISO Latin-1: UTF-8 text is converted, characters outside Latin-1 become '?'.
enum Latin1 {
    static func fromUTF8(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        var bytes = [UInt8]()
        bytes.reserveCapacity(data.count)
        for scalar in text.unicodeScalars {
            bytes.append(scalar.value < 256 ? UInt8(scalar.value) : 0x3F)
        }
        return Data(bytes)
    }
}
