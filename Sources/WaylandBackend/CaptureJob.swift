import ClipboardBackend
import FoundationEssentials
import PasteboardModel

/// One read in progress, for its `CaptureRun`: the types the run asks for are asked for at once, each through a
/// pipe of its own, and read as the source writes. The job is the transport only; the run decides what to read and
/// what to keep. A class, so the growing buffers are appended to in place, never copied.
final class CaptureJob {
    /// One type being read.
    struct Incoming {
        let type: String
        var data = Data()
    }

    let run: CaptureRun
    /// The offer being read, to ask it for the run's next types.
    let offer: OpaquePointer
    let observedAt: Date
    /// A newer copy replaced the offer being read (the read goes on: see `WaylandClipboard.replaced`).
    var wasReplaced = false
    /// Read end of each pipe → what arrived through it.
    var pending: [Int32: Incoming] = [:]
    var totalBytes = 0
    var lastProgress: Date
    /// The selection lost its source while this was being read: its offer can be asked for nothing more.
    var sourceWentAway = false

    init(run: CaptureRun, offer: OpaquePointer, now: Date) {
        self.run = run
        self.offer = offer
        observedAt = now
        lastProgress = now
    }

    var selection: Selection { run.selection }

    /// A type the source has not finished writing, for a message.
    var currentType: String { pending.values.map(\.type).sorted().first ?? "?" }
}
