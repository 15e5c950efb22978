import CX11
import ClipboardBackend
import Foundation
import PasteboardModel

/// One capture in progress: TARGETS, then each wanted target in turn, each possibly through INCR.
struct CaptureJob {
    enum Step {
        case targets
        case target(index: Int)
    }

    let selection: Selection
    let owner: Window
    let time: Time
    let property: Atom
    let observedAt: Date
    var step: Step = .targets
    var offered: [String] = []
    var wanted: [String] = []
    var item = PasteboardItem()
    var incoming: Data?
    var incomingType: Atom = 0
    /// 8 unless a chunk came in another format (then the reply is not bytes: see `received`).
    var incomingFormat: Int32 = 8
    var deadline: Date
    /// When the owner last answered; a quiet spell makes the engine check for an answer Xlib may be holding.
    var lastProgress = Date()
    var totalBytes = 0
    /// Set when a client (`pb paste`) reads instead of the watcher; it may choose the targets itself.
    var isRequest = false
    var chooser: (([String]) -> FetchDecision)?
    /// The owning application, looked up when the offer arrives.
    var source = SourceApplication()

    var currentTarget: String? {
        if case .target(let index) = step, index < wanted.count { return wanted[index] }
        return nil
    }
}
