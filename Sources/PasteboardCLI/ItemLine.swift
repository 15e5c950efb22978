import FoundationEssentials
import PasteboardHistory
import PasteboardModel

/// The JSON Lines format of `pb export` / `pb import`: one item per line, oldest first.
///
/// ```
/// {"created":"2026-11-29T14:55:34.123Z","lastCopied":"…","copyCount":2,"pinned":false,"source":"firefox",
///  "representations":[{"type":"public.html","text":"<b>hi</b>"},{"type":"public.png","base64":"iVBORw0…"}]}
/// ```
/// Each representation carries `text` when its bytes are valid UTF-8, else `base64`. For migrating from
/// other managers, a line may also be just `{"text":"…"}`, and `type` may be a MIME type. Dates are ISO 8601 text
/// (`2024-01-01`, `2024-01-01T12:00:00Z`, with or without fractional seconds and an offset; see `DateText`) or
/// seconds since 1970; fields the format does not know are ignored.
enum ItemLine {
    // MARK: - Writing

    /// One representation to write: its type identifier and bytes.
    struct Payload {
        let type: String
        let bytes: Data
    }

    /// Appends one line (without its line feed) to `out`.
    static func append(
        created: Double, lastCopied: Double, copyCount: Int64, isPinned: Bool, source: String?, expiresAt: Double?,
        representations: [Payload], to out: inout [UInt8]
    ) {
        JSONBytes.append(literal: #"{"created":""#, to: &out)
        DateText.append(created, to: &out)
        JSONBytes.append(literal: #"","lastCopied":""#, to: &out)
        DateText.append(lastCopied, to: &out)
        JSONBytes.append(literal: #"","copyCount":"#, to: &out)
        JSONBytes.append(integer: copyCount, to: &out)
        JSONBytes.append(literal: isPinned ? #","pinned":true"# : #","pinned":false"#, to: &out)
        if let source {
            JSONBytes.append(literal: #","source":"#, to: &out)
            JSONBytes.append(string: source, to: &out)
        }
        if let expiresAt {
            JSONBytes.append(literal: #","expiresAt":""#, to: &out)
            DateText.append(expiresAt, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        JSONBytes.append(literal: #","representations":["#, to: &out)
        for (index, representation) in representations.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.append(literal: #"{"type":"#, to: &out)
            JSONBytes.append(string: representation.type, to: &out)
            representation.bytes.withUnsafeBytes { bytes in
                if UTF8Check.isValid(bytes) {
                    JSONBytes.append(literal: #","text":"#, to: &out)
                    JSONBytes.append(utf8: bytes, to: &out)
                } else {
                    JSONBytes.append(literal: #","base64":""#, to: &out)
                    Base64.append(bytes, to: &out)
                    out.append(UInt8(ascii: "\""))
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        JSONBytes.append(literal: "]}", to: &out)
    }

    /// The line for one item, as `pb export` writes it.
    static func encode(_ item: HistoryItem, payload: PasteboardItem) -> String {
        var out: [UInt8] = []
        append(
            created: item.created.timeIntervalSince1970, lastCopied: item.lastCopied.timeIntervalSince1970,
            copyCount: Int64(item.copyCount), isPinned: item.isPinned, source: item.source,
            expiresAt: item.expiresAt?.timeIntervalSince1970,
            representations: payload.representations.map { Payload(type: $0.type.identifier, bytes: $0.data) }, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
