public import FoundationEssentials
public import PasteboardModel
public import ClipboardBackend
import CX11
#if canImport(Glibc)
import Glibc
#endif

extension X11Clipboard {
    /// Reads the selection now. `choose` picks which of the offered targets to fetch (default: all worth keeping;
    /// secrets are read too when the caller asks for them explicitly).
    public func read(_ selection: Selection, timeout: TimeInterval = 3, choose: (([String]) -> FetchDecision)? = nil) -> ReadResult {
        let owner = XGetSelectionOwner(x.handle, x.atom(selection.rawValue))
        if owner == 0 { return .empty }
        if owner == x.window, let owned = owned[selection] {
            return .item(owned.item, offered: ["TARGETS", "TIMESTAMP", "MULTIPLE"] + owned.targetOrder)
        }
        var result: ReadResult?
        let previousCapture = onCapture
        let previousSkip = onSkip
        onCapture = { offer in if offer.selection == selection { result = .item(offer.item, offered: offer.offeredTypes) } }
        onSkip = { skipped, reason in if skipped == selection { result = .failed(reason) } }
        defer {
            onCapture = previousCapture
            onSkip = previousSkip
        }
        var deferred: [XEvent] = []
        let time = x.serverTime(otherEvents: &deferred)
        for var event in deferred { handle(&event) }
        startCapture(selection, owner: owner, time: time, isRequest: true, chooser: choose)
        x.flush()
        let finished = run(until: { result != nil }, deadline: Date().addingTimeInterval(timeout))
        if !finished {
            if let job = captures[selection] { abandon(job) }
            captures[selection] = nil
            return .failed(.timedOut("the selection owner did not answer"))
        }
        return result ?? .failed(.empty)
    }

    /// Owns `selection` with `item` and serves readers until another client takes the selection
    /// (or, with `once`, until the first paste). Returns when ownership is lost.
    public func serve(_ selection: Selection, item: PasteboardItem, once: Bool = false, ready: () -> Void = {}) throws(X11Error) {
        guard own(selection, item: item, once: once) else {
            throw X11Error("Could not take the \(selection.name) selection.")
        }
        ready()
        run(until: { !owns(selection) && outgoing.isEmpty })
    }
}

extension X11Clipboard {
    /// Starts capturing what `selection` holds now, as if its owner had just changed.
    public func captureCurrent(_ selection: Selection) {
        let owner = XGetSelectionOwner(x.handle, x.atom(selection.rawValue))
        guard owner != 0, owner != x.window else { return }
        var deferred: [XEvent] = []
        let time = x.serverTime(otherEvents: &deferred)
        for var event in deferred { handle(&event) }
        startCapture(selection, owner: owner, time: time)
        x.flush()
    }
}

extension X11Clipboard {
    /// Leaves `selection` without an owner (any client may do this), so pastes get nothing.
    public func clear(_ selection: Selection) {
        var deferred: [XEvent] = []
        let time = x.serverTime(otherEvents: &deferred)
        XSetSelectionOwner(x.handle, x.atom(selection.rawValue), 0, time)
        owned[selection] = nil
        // Events that came while waiting for the time (a reader's request among them) still get their answer:
        // dropped, that reader would wait forever.
        for var event in deferred { handle(&event) }
        x.flush()
    }
}

extension X11Clipboard {
    /// When the current owner of `selection` took it (its TIMESTAMP target), or nil when there is no owner
    /// or it does not say.
    public func currentOwnerTime(_ selection: Selection, timeout: TimeInterval = 1) -> UInt? {
        if let owned = owned[selection] { return owned.time }
        lastTimestampReply = nil
        _ = read(selection, timeout: timeout) { targets in
            targets.contains("TIMESTAMP") ? .fetch(["TIMESTAMP"]) : .nothing
        }
        return lastTimestampReply
    }
}
