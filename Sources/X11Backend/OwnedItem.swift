import CX11
import Foundation
import PasteboardModel

/// An item we own a selection for.
struct OwnedItem {
    let item: PasteboardItem
    let time: Time
    /// Target name → the representation served for it.
    let targets: [String: (type: ContentType, data: Data)]
    let targetOrder: [String]
    let once: Bool
    var served = 0
}
