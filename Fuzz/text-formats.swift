// libFuzzer target: the text formats read from other applications' representations.
//
// The first byte picks the representation's type; the rest is its bytes. Exercised: `text/uri-list` and URL
// reading (`URL.parsingTransferred`), UTF-16 text (`String.decodingUTF16`), what the history derives from an
// item (`ItemText`: kind, preview, HTML tag stripping, URL detection, the case-insensitive byte search), and
// the Latin-1 conversion the X11 backend serves for `STRING` (`X11Text`).
//
// Built and run by scripts/fuzz.sh; seeds in Fuzz/corpus/text-formats/.
import Foundation

@testable import PasteboardHistory
@testable import PasteboardModel
@testable import ClipboardBackend
@testable import X11Backend

private let types: [ContentType] = [
    .utf8PlainText, .plainText, .utf16PlainText, .url, .fileURL, .uriList, .html, .png, .rtf, .json,
    .gnomeCopiedFiles, .data,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextFormats(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let bytes, size > 0 else { return 0 }
    let type = types[Int(bytes[0]) % types.count]
    let payload = Data(bytes: bytes + 1, count: size - 1)

    for urlType in [ContentType.url, .fileURL, .uriList] {
        if let url = try? URL.parsingTransferred(payload, as: urlType) {
            precondition(url.scheme != nil)
            if urlType == .fileURL { precondition(url.isFileURL) }
        }
    }
    let utf16 = String.decodingUTF16(payload)
    precondition(utf16.utf16.count >= payload.count / 2 - 1, "UTF-16 text lost code units")

    var item = PasteboardItem()
    item.setData(payload, forType: type)
    if bytes[0] & 0x80 != 0 { item.setData(payload.prefix(64), forType: .utf8PlainText) }
    _ = ItemText.kind(of: item)
    if let textType = ItemText.textType(of: item), let text = item.data(forType: textType) {
        let preview = ItemText.preview(text)
        precondition(preview.unicodeScalars.count <= 201, "preview longer than its limit")
        precondition(!preview.contains("\n"), "preview has a line break")
        _ = ItemText.looksLikeURL(text)
        // The search over the item's bytes agrees with the search over its decoded text, for needles taken from the
        // text itself (each mode; accents and case ignored).
        let indexed = ItemText.indexString(text)
        if let word = indexed.split(separator: " ").first(where: { !$0.isEmpty }) {
            let needle = String(word.prefix(8))
            for mode in [HistoryFilter.Mode.substring, .fuzzy] {
                guard let matcher = try? SearchMatcher(needle, mode: mode) else { continue }
                precondition(
                    matcher.matches(text) == matcher.matches(ItemText.decoded(text)),
                    "the byte search and the text search disagree on \(needle.debugDescription) (\(mode))")
            }
        }
    } else {
        _ = ItemText.derivedText(of: item)
    }
    _ = ItemText.strippingTags(String(decoding: payload, as: UTF8.self))

    let latin1 = X11Text.latin1(fromUTF8: payload)
    precondition(latin1.count == String(decoding: payload, as: UTF8.self).unicodeScalars.count)
    return 0
}
