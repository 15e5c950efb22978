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
}
