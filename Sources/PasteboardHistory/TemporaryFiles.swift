public import PasteboardModel

/// Files an item's bytes point to that live only as long as the application that copied it.
///
/// LibreOffice's HTML shows its pictures from its temporary directory
/// (`<img src="file:///tmp/lu5826a.tmp/lu5826f_tmp_9fae….png">`, a new file for every copy), which it deletes when
/// it exits. The item keeps the HTML as offered; what the history shows for it (its text, see `HistoryItem.preview`)
/// never depends on those files, and `pb show` names them, so that a paste of the HTML with its pictures missing is
/// explained. The same copy's RTF and LibreOffice's own copy (`application/x-openoffice-embed-source-xml`) hold the
/// pictures themselves.
///
/// ```swift
/// TemporaryFiles.pictures(in: item)  // ["file:///tmp/lu5826a.tmp/lu5826f_tmp_9fae….png"]
/// ```
public enum TemporaryFiles {
    /// The `file://` URLs in `item`'s HTML that name LibreOffice's temporary files, in order, each once; empty for
    /// an item without HTML or without such URLs. Reads at most the first `VolatileContent.normalisedSizeLimit`
    /// bytes of the HTML.
    public static func pictures(in item: PasteboardItem) -> [String] {
        guard let html = item.representation(forType: .html) else { return [] }
        let bytes = Array(html.prefix(VolatileContent.normalisedSizeLimit))
        let scheme = Array("file://".utf8)
        var found: [String] = []
        var index = 0
        while index + scheme.count <= bytes.count {
            guard bytes[index] == scheme[0], bytes[index..<index + scheme.count].elementsEqual(scheme),
                let file = VolatileField.libreOfficeTemporaryFile(in: bytes, at: index)
            else {
                index += 1
                continue
            }
            let url = String(decoding: bytes[index..<index + file.urlLength], as: UTF8.self)
            if !found.contains(url) { found.append(url) }
            index += file.urlLength
        }
        return found
    }
}
