// libFuzzer target: content sniffing and image headers, on any bytes.
//
// `ContentType.sniff` decides the type of everything `pb copy` reads from a file or a pipe; `PasteboardImage`
// reads pixel sizes from PNG, GIF, JPEG, BMP and WebP headers; `InputClassifier` (pb copy) falls back to a
// text heuristic. All of them read attacker-controlled bytes in place, with hand-written bounds checks.
//
// Built and run by scripts/fuzz.sh; seeds in Fuzz/corpus/content-sniffing/.
import Foundation

@testable import PasteboardCLI
@testable import PasteboardModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentSniffing(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    let type = ContentType.sniff(data)

    // The same bytes inside a larger buffer (a slice whose indices do not start at 0) sniff the same.
    let padded = Data([0xAA]) + data
    let slice = padded[padded.index(after: padded.startIndex)...]
    precondition(ContentType.sniff(slice) == type, "sniffing a slice differs: \(type)")

    if type == .utf8PlainText {
        // Text means valid UTF-8 in the window (a sequence cut at 64 KiB counts as valid) without NUL.
        let window = data.prefix(ContentType.sniffingWindow)
        precondition(!window.contains(0), "text with a NUL byte")
        if data.count <= ContentType.sniffingWindow {
            precondition(String(validating: window, as: UTF8.self) != nil, "invalid UTF-8 sniffed as text")
        }
    }

    for imageType in [ContentType.png, .gif, .jpeg, .bmp, .webP, .tiff, .svg] {
        if let size = PasteboardImage.pixelSize(of: data, as: imageType) {
            precondition(size.width > 0 && size.height > 0, "non-positive size \(size) for \(imageType)")
        }
    }
    if let image = PasteboardImage(data: data) {
        precondition(image.contentType == type && image.contentType.isImage)
        precondition((image.width == nil) == (image.height == nil))
    }

    let classified = InputClassifier.type(of: data, fileName: "input.bin")
    if type != .data { precondition(classified == type, "pb copy would not keep the sniffed type") }
    _ = InputClassifier.isMostlyText(data)
    return 0
}
