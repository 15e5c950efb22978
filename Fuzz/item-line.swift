// libFuzzer target: `pb import` lines (`ItemLine.decode`), and what the history does with an imported item.
//
// A line that imports must also be shown (`pb history` ages and dates), exported (`ItemLine.encode`) and
// imported again with the same representations: `pb export | pb import` is the backup path.
//
// Built and run by scripts/fuzz.sh; seeds and a dictionary in Fuzz/corpus/item-line/ and Fuzz/item-line.dict.
import Foundation

@testable import PasteboardCLI
@testable import PasteboardHistory
@testable import PasteboardModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzItemLine(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    guard let decoded = try? ItemLine.decode(line) else { return 0 }
    let item = decoded.item
    let metadata = decoded.metadata
    precondition(!item.isEmpty)

    // What `pb history` and `pb show` print for it.
    let now = Date()
    let created = metadata.created ?? metadata.date
    for date in [created, metadata.date] + (metadata.expiresAt.map { [$0] } ?? []) {
        _ = Age.short(since: date, now: now)
        _ = Age.ago(date, now: now)
        _ = JSONText.date(date)
    }
    let history = HistoryItem(
        id: 1, kind: ItemText.kind(of: item), preview: "", size: item.byteCount, created: created,
        lastCopied: metadata.date, copyCount: metadata.copyCount, isPinned: metadata.isPinned,
        source: metadata.source, selection: nil, expiresAt: metadata.expiresAt, types: item.types)
    _ = JSONText.object(ItemFormat.jsonFields(history))

    // Exported, then imported again: the same representations, byte for byte.
    let exported = ItemLine.encode(history, payload: item)
    let again: ItemLine.Decoded
    do {
        again = try ItemLine.decode(Data(exported.utf8))
    } catch {
        preconditionFailure("an exported line does not import: \(error) — \(exported.prefix(500))")
    }
    precondition(again.item.types == item.types, "types changed: \(item.types) → \(again.item.types)")
    for representation in item.representations {
        precondition(again.item.data(forType: representation.type) == representation.data, "bytes changed")
    }
    precondition(again.metadata.isPinned == metadata.isPinned && again.metadata.source == metadata.source)
    return 0
}
