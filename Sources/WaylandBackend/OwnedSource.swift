import ClipboardBackend
import FoundationEssentials
import PasteboardModel

/// A data-control source this process set as a selection, with what it serves.
final class OwnedSource {
    let proxy: OpaquePointer
    let item: PasteboardItem
    /// What is served for one MIME type: a representation (its file, if it has one, is read when a reader asks),
    /// converted for X11's text targets.
    struct Payload {
        let representation: PasteboardItem.Representation
        let conversion: TargetPlan.ServedTarget.Conversion?
    }

    /// MIME type → what is served for it.
    let data: [String: Payload]
    /// The MIME types in the order offered.
    let order: [String]
    let once: Bool
    let time: UInt
    var served = 0
    /// For a paste-once item that was pasted: when to give the selection up. Until then every further reader
    /// gets nothing; the selection stays a moment so that the first reader, which may still be checking the
    /// offer (wl-paste does a round trip after its read), is not told the selection went away.
    var withdrawAt: Date?

    init(proxy: OpaquePointer, item: PasteboardItem, data: [String: Payload], order: [String], once: Bool, time: UInt) {
        self.proxy = proxy
        self.item = item
        self.data = data
        self.order = order
        self.once = once
        self.time = time
    }
}

/// One paste being written to a reader's pipe, a chunk whenever the pipe has room.
struct OutgoingTransfer {
    let fd: Int32
    let data: Data
    var offset = 0
    var deadline: Date
    /// The source it serves, to give up a paste-once selection when done.
    let source: OpaquePointer
}
