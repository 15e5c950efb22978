import CX11
import FoundationEssentials
import PasteboardModel

/// An item we own a selection for.
struct OwnedItem {
    let item: PasteboardItem
    let time: Time
    /// Target name → the representation served for it (a stored payload stays in its file until asked for).
    let targets: [String: PasteboardItem.Representation]
    let targetOrder: [String]
    let once: Bool
    var served = 0
}
