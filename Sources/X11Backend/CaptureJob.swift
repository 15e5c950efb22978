import CX11
import ClipboardBackend
import FoundationEssentials
import PasteboardModel

/// One read in progress, for its `CaptureRun`: TARGETS, then each target the run asks for in turn, each possibly
/// through INCR. The job is the transport only; the run decides what to read and what to keep.
struct CaptureJob {
    enum Step {
        case targets
        case target(index: Int)
    }

    let run: CaptureRun
    let owner: Window
    let time: Time
    var property: Atom
    let observedAt: Date
    var step: Step = .targets
    /// The targets the run asked for last, fetched in turn.
    var wanted: [String] = []
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
    /// The process behind the owner, as the X server knows it (nil for a client on another host).
    var ownerPID: Int?
    /// The owner's processor time when last looked at, and when.
    var cpuSample: (seconds: Double, at: Date)?

    var selection: Selection { run.selection }

    var currentTarget: String? {
        if case .target(let index) = step, index < wanted.count { return wanted[index] }
        return nil
    }
}
