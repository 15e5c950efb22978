import FoundationEssentials
import PasteboardModel

/// A selection whose owner may go on changing its content without taking it again.
struct Reread {
    let ownerChangedAt: Date
    /// What was read last, delivered or not.
    var last: PasteboardItem
    var due: Date
    var interval: TimeInterval
    var unchanged = 0
    var count = 0
}

extension CapturePipeline {
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

    /// After a PRIMARY capture of an owner that may change it unannounced, schedules re-reads of it.
    ///
    /// A GTK 4 entry on X11 keeps PRIMARY while the user extends the selection with Shift+Right, and the first
    /// character is all a single read gets. The re-reads are bounded (see the constants above) and stop as soon as
    /// the owner changes: nothing is read while the selection stays as it is.
    func scheduleRereads(after offer: CapturedOffer) {
        guard offer.selection == .primary, changesSilently[.primary] == true,
            offer.item.byteCount <= Self.maxRereadBytes, offer.item.string != nil
        else { return }
        rereads[offer.selection] = Reread(
            ownerChangedAt: offer.observedAt, last: offer.item, due: clock().addingTimeInterval(Self.rereadInterval),
            interval: Self.rereadInterval)
    }

    /// A re-read ended: a changed content goes to the sink as a capture of the same owner change; an unchanged
    /// one, or a failure, says nothing (the item already recorded stands). A secret or a rule's refusal is
    /// passed on, so that nothing is kept of it.
    func rereadEnded(_ run: CaptureRun, _ outcome: CaptureOutcome) {
        guard var reread = rereads[run.selection] else { return }
        reread.count += 1
        switch outcome {
        case .captured(let offer) where offer.item != reread.last:
            reread.last = offer.item
            reread.unchanged = 0
            reread.interval = Self.rereadInterval
            sink?.captured(offer)
        case .captured:
            reread.unchanged += 1
            reread.interval *= 2
        case .skipped(let reason):
            if case .superseded = reason { return }  // the newer capture decides
            switch reason {
            case .secret, .ignored: sink?.skipped(run.selection, reason)
            default: break
            }
            rereads[run.selection] = nil
            return
        }
        let now = clock()
        reread.due = now.addingTimeInterval(reread.interval)
        let isOver =
            reread.unchanged >= Self.maxUnchangedRereads || reread.count >= Self.maxRereads
            || now.timeIntervalSince(reread.ownerChangedAt) >= Self.rereadWindow
        rereads[run.selection] = isOver ? nil : reread
    }
}
