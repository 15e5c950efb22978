import CX11
import ClipboardBackend
import FoundationEssentials
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
    /// The targets to fetch, best first (what `TargetPlan` decided), …
    var preference: [String] = []
    /// … and in the order they are read.
    var wanted: [String] = []
    /// What was read, in the order read: each target and its bytes (`TargetPlan.item(from:)` makes the item).
    var replies: [(target: String, data: Data)] = []
    var incoming: Data?
    var incomingType: Atom = 0
    /// 8 unless a chunk came in another format (then the reply is not bytes: see `received`).
    var incomingFormat: Int32 = 8
    /// When the owner is given up unless it shows that it is still working (see `X11Clipboard.isWorking`).
    var deadline: Date
    /// When the engine last checked for an answer Xlib may be holding, or the owner last answered.
    var lastProgress = Date()
    /// How long a quiet spell lasts before that check; doubles while the owner stays quiet, so a slow owner is
    /// waited for without waking the loop every few milliseconds.
    var nudgeDelay = X11Clipboard.nudgeInterval
    var totalBytes = 0
    /// Set when a client (`pb paste`) reads instead of the watcher; it may choose the targets itself.
    var isRequest = false
    /// Set for a re-read of a PRIMARY selection whose owner did not change (see `X11Clipboard+Reread.swift`).
    var isReread = false
    var chooser: (([String]) -> FetchDecision)?
    /// The owning application, looked up when the offer arrives.
    var source = SourceApplication()
    /// The process behind the owner, as the X server knows it (nil for a client on another host).
    var ownerPID: Int?
    /// The owner's processor time when last looked at, and when.
    var cpuSample: (seconds: Double, at: Date)?

    var currentTarget: String? {
        if case .target(let index) = step, index < wanted.count { return wanted[index] }
        return nil
    }
}
