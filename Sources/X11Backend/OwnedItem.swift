import CX11
import FoundationEssentials
import ClipboardBackend
import PasteboardModel

/// An item we own a selection for.
struct OwnedItem {
    let item: PasteboardItem
    let time: Time
    /// Target name → the representation served for it (a stored payload stays in its file until asked for), and
    /// the conversion its bytes go through (`STRING` of UTF-8 text is Latin-1), if any.
    let targets: [String: Served]
    typealias Served = (representation: PasteboardItem.Representation, conversion: TargetPlan.ServedTarget.Conversion?)
    let targetOrder: [String]
    let once: Bool
    var served = 0
    /// The earliest time a request may be stamped with and still be answered: when this process took the selection,
    /// which an item owned over another of ours (a restore while we own it) keeps.
    var answersSince: Time

    init(
        item: PasteboardItem, time: Time, targets: [String: Served], targetOrder: [String], once: Bool,
        answersSince: Time? = nil
    ) {
        self.item = item
        self.time = time
        self.targets = targets
        self.targetOrder = targetOrder
        self.once = once
        self.answersSince = answersSince ?? time
    }
}
