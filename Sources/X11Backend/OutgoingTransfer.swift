import CX11
import ClipboardBackend
import Foundation

/// A large reply going out in INCR chunks, one per PropertyNotify(Delete) from the reader.
struct OutgoingTransfer {
    let requestor: Window
    let property: Atom
    let type: Atom
    let data: Data
    var offset: Int
    var deadline: Date
    let selection: Selection
    var finished = false
}
