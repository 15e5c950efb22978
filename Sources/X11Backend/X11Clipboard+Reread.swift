import CX11
import ClipboardBackend
import FoundationEssentials
import PasteboardModel

/// A selection whose owner may go on changing its content without taking it again.
struct Reread {
    let owner: Window
    /// The X server time the owner took the selection: every re-read asks with it.
    let time: Time
    let ownerChangedAt: Date
    /// What was read last, delivered or not.
    var last: PasteboardItem
    var due: Date
    var interval: TimeInterval
    var unchanged = 0
    var count = 0
}

extension X11Clipboard {
    /// The first re-read comes this long after a PRIMARY capture; each unchanged one doubles the wait.
    static let rereadInterval: TimeInterval = 0.15
    /// Re-reading stops after this many unchanged reads in a row (0.15 + 0.3 + … + 2.4 s: about 4.7 s of quiet),
    static let maxUnchangedRereads = 5
    /// … after this many re-reads of one owner,
    static let maxRereads = 40
    /// … or this long after the owner took the selection.
    static let rereadWindow: TimeInterval = 30
    /// Only selections this small are re-read: a selection of text, not a picture.
    static let maxRereadBytes = 1 << 20

    /// After a PRIMARY capture, schedules re-reads of the same owner.
    ///
    /// An owner may change a selection's content and keep it without a new `XSetSelectionOwner`, so XFixes reports
    /// nothing: a GTK 4 entry keeps PRIMARY while the user extends the selection with Shift+Right, and the first
    /// character is all a single read gets. The re-reads are bounded (see the constants above) and stop as soon as
    /// another owner takes the selection: nothing is read while the selection stays as it is.
    func scheduleRereads(after offer: CapturedOffer, owner: Window) {
        guard offer.selection == .primary, watched.contains(.primary), capturesOnChange,
            offer.item.byteCount <= Self.maxRereadBytes, offer.item.string != nil
        else { return }
        rereads[offer.selection] = Reread(
            owner: owner, time: offer.ownerChangeTime, ownerChangedAt: offer.observedAt, last: offer.item,
            due: Date().addingTimeInterval(Self.rereadInterval), interval: Self.rereadInterval)
    }

    /// Starts the re-reads that are due.
    func processRereads(now: Date) {
        for (selection, reread) in rereads where reread.due <= now && captures[selection] == nil {
            guard XGetSelectionOwner(x.handle, x.atom(selection.rawValue)) == reread.owner else {
                rereads[selection] = nil
                continue
            }
            startCapture(selection, owner: reread.owner, time: reread.time, isReread: true)
            x.flush()
        }
    }

    /// A re-read ended: a changed content goes to the sink as a capture of the same owner change; an unchanged
    /// one, or a failure, says nothing (the item already recorded stands). A secret or a rule's refusal is
    /// passed on, so that nothing is kept of it.
    func rereadFinished(_ job: CaptureJob, _ outcome: CaptureOutcome) {
        guard var reread = rereads[job.selection], reread.owner == job.owner else { return }
        reread.count += 1
        switch outcome {
        case .captured(let offer) where offer.item != reread.last:
            reread.last = offer.item
            reread.unchanged = 0
            reread.interval = Self.rereadInterval
            onCapture?(offer)
        case .captured:
            reread.unchanged += 1
            reread.interval *= 2
        case .skipped(let reason):
            if case .superseded = reason { return }  // the newer capture decides
            switch reason {
            case .secret, .ignored: onSkip?(job.selection, reason)
            default: break
            }
            rereads[job.selection] = nil
            return
        }
        let now = Date()
        reread.due = now.addingTimeInterval(reread.interval)
        let isOver =
            reread.unchanged >= Self.maxUnchangedRereads || reread.count >= Self.maxRereads
            || now.timeIntervalSince(reread.ownerChangedAt) >= Self.rereadWindow
        rereads[job.selection] = isOver ? nil : reread
    }
}
