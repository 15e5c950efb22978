public import FoundationEssentials
import PasteboardModel

/// The capture path every backend shares: it watches selections through a backend's primitives (owner changes,
/// reading an offer) and decides, once for X11, Wayland and any backend to come, what is read and what reaches
/// the sink.
///
/// - Each change of owner to another application starts a `CaptureRun`, which decides what to read (secret markers,
///   the sink's rules, volatile types, browser containers first) and makes the item.
/// - A newer copy replaces one still being read: the older run counts only with an item, and only while no newer
///   run has ended; otherwise it is `superseded`.
/// - A selection whose owner went away while it was being read is reported gone only once that read ended, so the
///   sink takes over the newest content.
/// - A PRIMARY selection whose owner may change it unannounced (`OwnerChange.changesSilently`) is read again a few
///   times after a capture (see `Reread`); only a changed content is passed on.
///
/// Single-threaded: driven by the loop that drives the backend, which also calls `processTimeouts(now:)` at
/// `nextDeadline`. `clock` is the time it goes by (a test's own clock, as NIOEmbedded's).
public final class CapturePipeline: SelectionObserver {
    public let backend: any ClipboardBackend
    public weak var sink: (any CaptureSink)?
    let clock: () -> Date
    private var watched: Set<Selection> = []
    /// The newest run of each selection, while it reads.
    private var current: [Selection: CaptureRun] = [:]
    private var sequence = 0
    /// The newest run of each selection that ended and counted.
    private var newestEnded: [Selection: Int] = [:]
    /// Selections that lost their owner while being read, and whether its client exited.
    private var goneWhileReading: [Selection: Bool] = [:]
    /// Whether the owner of each selection may change it unannounced (from its last `OwnerChange`).
    var changesSilently: [Selection: Bool] = [:]
    var rereads: [Selection: Reread] = [:]

    public init(backend: any ClipboardBackend, sink: any CaptureSink, clock: @escaping () -> Date = Date.init) {
        self.backend = backend
        self.sink = sink
        self.clock = clock
    }

    /// Watches `selections` and reads each new owner's offer.
    public func start(_ selections: Set<Selection>) {
        watched = selections
        backend.watch(selections, observer: self)
    }

    /// Reads what `selection` holds now, as if its owner had just changed.
    public func captureCurrent(_ selection: Selection) {
        begin(selection, mode: .watch)
    }

    // MARK: - SelectionObserver

    public func ownerChanged(_ change: OwnerChange) {
        let selection = change.selection
        rereads[selection] = nil
        goneWhileReading[selection] = nil  // whoever holds it now, the one that went is not to be taken over
        changesSilently[selection] = change.changesSilently
        sink?.ownerChanged(selection, time: change.time)
        if change.owner == .application && watched.contains(selection) { begin(selection, mode: .watch) }
    }

    public func ownerGone(_ selection: Selection, clientExited: Bool) {
        rereads[selection] = nil
        if current[selection] != nil {
            // What it already wrote still arrives; the sink hears of the owner's going once that read ended.
            goneWhileReading[selection] = clientExited
            return
        }
        sink?.ownerGone(selection, clientExited: clientExited)
    }

    public func lostOwnership(_ selection: Selection) {
        sink?.lostOwnership(selection)
    }

    public func pastedOnce(_ selection: Selection) {
        sink?.pastedOnce(selection)
    }

    // MARK: - Runs

    private func begin(_ selection: Selection, mode: CaptureRun.Mode) {
        let run = CaptureRun(
            selection, mode: mode, clock: clock,
            admit: { [weak self] offer in self?.sink?.admit(offer) },
            drops: { [weak self] type, offer in self?.sink?.drops(type, of: offer) ?? false },
            ended: { [weak self] run in self?.ended(run) })
        sequence += 1
        run.sequence = sequence
        let previous = current[selection]
        previous?.isReplaced = true
        current[selection] = run
        switch backend.startReading(selection, into: run) {
        case .reading: break
        case .empty, .ours:
            // Nothing to read: the previous read, if any, goes on as the newest.
            if current[selection] === run { current[selection] = previous }
            previous?.isReplaced = false
            if mode == .reread { rereads[selection] = nil }
        }
    }

    private func ended(_ run: CaptureRun) {
        let selection = run.selection
        if current[selection] === run { current[selection] = nil }
        guard var outcome = run.outcome else { return }
        if run.isReplaced {
            if case .captured = outcome, (newestEnded[selection] ?? 0) < run.sequence {
                // Recorded: it is older than the current copy, which is read and reported after it.
            } else {
                outcome = .skipped(.superseded)
            }
        }
        // Any end of a current run counts (a secret too: an older item must not come back after it), and an item
        // of a replaced one.
        var counts = !run.isReplaced
        if case .captured = outcome { counts = true }
        if counts { newestEnded[selection] = max(newestEnded[selection] ?? 0, run.sequence) }
        if run.mode == .reread {
            rereadEnded(run, outcome)
        } else {
            switch outcome {
            case .captured(let offer):
                sink?.captured(offer)
                scheduleRereads(after: offer)
            case .skipped(let reason):
                sink?.skipped(selection, reason)
            }
        }
        if current[selection] == nil, let clientExited = goneWhileReading.removeValue(forKey: selection) {
            sink?.ownerGone(selection, clientExited: clientExited)
        }
    }

    // MARK: - Time

    /// The next moment `processTimeouts(now:)` has work.
    public var nextDeadline: Date? { rereads.values.map(\.due).min() }

    /// Starts the re-reads that are due.
    public func processTimeouts(now: Date) {
        for (selection, reread) in rereads where reread.due <= now && current[selection] == nil {
            begin(selection, mode: .reread)
        }
    }
}
