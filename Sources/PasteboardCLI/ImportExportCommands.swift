import ArgumentParsing
import Foundation
import PasteboardHistory
import PasteboardModel

/// The JSON Lines format of `pb export` / `pb import`: one item per line, oldest first.
///
/// ```
/// {"created":"2026-11-29T14:55:34.123Z","lastCopied":"…","copyCount":2,"pinned":false,"source":"firefox",
///  "representations":[{"type":"public.html","text":"<b>hi</b>"},{"type":"public.png","base64":"iVBORw0…"}]}
/// ```
/// Each representation carries `text` when its bytes are valid UTF-8, else `base64`. For migrating from
/// other managers, a line may also be just `{"text":"…"}`, and `type` may be a MIME type.
enum ItemLine {
    static func encode(_ item: HistoryItem, payload: PasteboardItem) -> String {
        var fields: [(String, JSONText.Value)] = [
            ("created", .string(JSONText.date(item.created))),
            ("lastCopied", .string(JSONText.date(item.lastCopied))),
            ("copyCount", .number(Double(item.copyCount))),
            ("pinned", .bool(item.isPinned)),
        ]
        if let source = item.source { fields.append(("source", .string(source))) }
        if let expires = item.expiresAt { fields.append(("expiresAt", .string(JSONText.date(expires)))) }
        fields.append((
            "representations",
            .array(payload.representations.map { rep in
                if let text = String(validatingUTF8Data: rep.data) {
                    return .object([("type", .string(rep.type.identifier)), ("text", .string(text))])
                }
                return .object([("type", .string(rep.type.identifier)), ("base64", .string(rep.data.base64EncodedString()))])
            })
        ))
        return JSONText.object(fields)
    }

    struct Decoded {
        var item: PasteboardItem
        var metadata: CaptureMetadata
    }

    static func decode(_ line: Data) throws -> Decoded {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: line, options: [])
        } catch {
            throw LineError("not valid JSON")
        }
        guard let fields = object as? [String: Any] else { throw LineError("expected a JSON object") }
        var item = PasteboardItem()
        if let representations = fields["representations"] {
            guard let list = representations as? [[String: Any]], !list.isEmpty else {
                throw LineError("'representations' must be a non-empty array of objects")
            }
            for (index, rep) in list.enumerated() {
                guard let typeText = rep["type"] as? String, let type = ContentType.resolve(typeText) else {
                    throw LineError("representation \(index + 1) has no usable 'type'")
                }
                if let text = rep["text"] as? String {
                    item.setData(Data(text.utf8), forType: type)
                } else if let base64 = rep["base64"] as? String {
                    guard let data = Data(base64Encoded: base64) else { throw LineError("representation \(index + 1) has invalid base64") }
                    item.setData(data, forType: type)
                } else {
                    throw LineError("representation \(index + 1) needs 'text' or 'base64'")
                }
            }
        } else if let text = fields["text"] as? String {
            if text.isEmpty { throw LineError("'text' is empty") }
            item.setData(Data(text.utf8), forType: .utf8PlainText)
        } else {
            throw LineError("needs 'representations' or 'text'")
        }
        func date(_ key: String) throws -> Date? {
            guard let value = fields[key], !(value is NSNull) else { return nil }
            // Years 1 to 9999, what ISO 8601 dates (and `pb export`) can write.
            if let number = value as? Double, (-62_135_596_800...253_402_300_799).contains(number) {
                return Date(timeIntervalSince1970: number)
            }
            if let text = value as? String, let parsed = JSONText.parseDate(text) { return parsed }
            throw LineError("'\(key)' is not a date (ISO 8601 or seconds since 1970)")
        }
        let created = try date("created")
        let lastCopied = try date("lastCopied") ?? created ?? Date()
        var metadata = CaptureMetadata(
            source: fields["source"] as? String, date: lastCopied, expiresAt: try date("expiresAt"),
            created: created ?? lastCopied)
        if let count = fields["copyCount"] as? Int { metadata.copyCount = max(1, count) }
        if let pinned = fields["pinned"] as? Bool { metadata.isPinned = pinned }
        return Decoded(item: item, metadata: metadata)
    }

    struct LineError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}

extension String {
    /// The text of `data` when it is valid UTF-8, else nil.
    init?(validatingUTF8Data data: Data) {
        var valid = true
        let text = String(decoding: data, as: UTF8.self)
        if text.utf8.count != data.count || !text.utf8.elementsEqual(data) { valid = false }
        guard valid else { return nil }
        self = text
    }
}

enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import", abstract: "Add items from a JSON Lines file (as written by 'pb export').",
        positionals: [.init("FILE", help: "The file; '-' reads standard input.")],
        discussion: """
            All or nothing: a bad line stops the import with its line number and leaves the history unchanged.
            Besides 'pb export' lines, {"text":"…"} lines are accepted, to migrate from other managers.

            EXAMPLE:
              pb export > backup.jsonl && pb import backup.jsonl
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let path = arguments.positionals[0]
        let data = try readInput(path, context: context)
        let name = path == "-" ? "standard input" : path
        let store = try context.store()
        var added = 0
        var merged = 0
        // The store reports anything thrown inside a transaction as its own error; keep the bad line's to rethrow.
        var lineFailure: CommandFailure?
        do {
            try store.transaction {
                var lineNumber = 0
                var start = data.startIndex
                while start < data.endIndex {
                    lineNumber += 1
                    let end = data[start...].firstIndex(of: 0x0A) ?? data.endIndex
                    let line = data[start..<end]
                    start = end < data.endIndex ? data.index(after: end) : end
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                    let decoded: ItemLine.Decoded
                    do {
                        decoded = try ItemLine.decode(Data(line))
                    } catch let error as ItemLine.LineError {
                        let failure = CommandFailure("\(name):\(lineNumber): \(error.message). Nothing was imported.")
                        lineFailure = failure
                        throw failure
                    }
                    let result = try store.record(decoded.item, metadata: decoded.metadata)
                    if result.isNew { added += 1 } else { merged += 1 }
                }
            }
        } catch {
            if let lineFailure { throw lineFailure }
            throw error
        }
        if let retention = store.retention, !retention.isUnlimited { try store.applyRetention(retention) }
        context.stdout.line("Imported \(added) item\(added == 1 ? "" : "s")\(merged > 0 ? " (\(merged) merged into existing ones)" : "") from \(name).")
    }
}

enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", abstract: "Write the whole history as JSON Lines, oldest first.",
        options: [.init("type", short: "t", value: "TYPE", help: "Only items with a representation of TYPE.")],
        discussion: "EXAMPLE:\n  pb export > backup.jsonl")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let store = try context.store()
        let type = try resolveType(arguments.value("type"))
        var cursor: Int64? = nil
        repeat {
            let page = try store.itemsInCopyOrder(after: cursor, limit: 500, type: type)
            for item in page.items {
                context.stdout.line(ItemLine.encode(item, payload: try store.pasteboardItem(id: item.id)))
            }
            cursor = page.next
        } while cursor != nil
    }
}
