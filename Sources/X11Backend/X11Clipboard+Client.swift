public import Foundation
public import PasteboardModel
import CX11
#if canImport(Glibc)
import Glibc
#endif

extension X11Clipboard {
    /// Runs the event loop until `done()` holds or `deadline` passes; returns whether `done()` held.
    @discardableResult
    public func run(until done: () -> Bool, deadline: Date? = nil) -> Bool {
        processEvents()
        while !done() {
            let now = Date()
            if let deadline, now >= deadline { return false }
            var wait = deadline.map { $0.timeIntervalSince(now) } ?? 3600
            if let next = nextDeadline { wait = min(wait, max(0, next.timeIntervalSince(now))) }
            var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(wait * 1000 + 1, Double(Int32.max))))
            // processEvents last: processTimeouts flushes, which can queue events that poll() would not see.
            processTimeouts()
            processEvents()
        }
        return true
    }

    /// The outcome of reading a selection as a client.
    public enum ReadResult: Sendable {
        case item(PasteboardItem, offered: [String])
        /// Nobody owns the selection.
        case empty
        case failed(CaptureSkip)
    }

    /// Reads the selection now. `choose` picks which of the offered targets to fetch (default: all worth keeping;
    /// secrets are read too when the caller asks for them explicitly).
    public func read(_ selection: Selection, timeout: TimeInterval = 3, choose: (([String]) -> TargetPlan.Decision)? = nil) -> ReadResult {
        let owner = XGetSelectionOwner(x.handle, x.atom(selection.rawValue))
        if owner == 0 { return .empty }
        if owner == x.window, let owned = owned[selection] {
            return .item(owned.item, offered: ["TARGETS", "TIMESTAMP", "MULTIPLE"] + owned.targetOrder)
        }
        var result: ReadResult?
        let previousCapture = onCapture
        let previousSkip = onSkip
        onCapture = { offer in if offer.selection == selection { result = .item(offer.item, offered: offer.offeredTargets) } }
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
    public func clearSelection(_ selection: Selection) {
        var deferred: [XEvent] = []
        let time = x.serverTime(otherEvents: &deferred)
        XSetSelectionOwner(x.handle, x.atom(selection.rawValue), 0, time)
        owned[selection] = nil
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
