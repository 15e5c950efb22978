public import FoundationEssentials
public import PasteboardModel
public import ClipboardBackend
import CX11
#if canImport(Glibc)
import Glibc
#endif

extension X11Clipboard {
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
