public import FoundationEssentials
import PasteboardModel
public import ClipboardBackend
import CX11

/// The X11 clipboard engine: watches selections through XFixes, reads the targets a `CaptureRun` asks for (with
/// INCR), and owns selections to serve items back (TARGETS, TIMESTAMP, MULTIPLE, INCR).
///
/// Single-threaded and event-driven: the caller polls `fileDescriptor`, then calls `processEvents()`, and calls
/// `processTimeouts()` at `nextDeadline`. Nothing blocks on another client.
public final class X11Clipboard {
    let x: XDisplay
    public var limits = CaptureLimits()
    /// Hears of owner changes of the watched selections (see `watch(_:observer:)`).
    weak var observer: (any SelectionObserver)?
    /// A reader fetched `target` from an item we serve.
    public var onServed: ((Selection, String) -> Void)?
    /// A target name added to every TARGETS list this process serves, which no reader can fetch: it tells this
    /// process's owners from others where a sensor sees only the list (the GNOME Shell extension).
    public var ownerMarker: String?

    /// The read of each selection in progress (one property, one conversion at a time).
    var captures: [Selection: CaptureJob] = [:]
    /// The owner change XFixes just reported, for the read it starts.
    var announcedChanges: [Selection: (owner: Window, time: Time)] = [:]
    /// The last owner of each selection that XFixes reported, for a re-read of it.
    var lastOwners: [Selection: (owner: Window, time: Time)] = [:]
    /// The value of the last TIMESTAMP conversion read.
    var lastTimestampReply: UInt?
    var owned: [Selection: OwnedItem] = [:]
    var outgoing: [OutgoingTransfer] = []
    private var propertyPool: [Atom] = []
    /// Properties of abandoned captures, kept out of the pool until a late reply can no longer arrive.
    var quarantine: [(property: Atom, until: Date)] = []
    private var nextProperty = 0
    var watched: Set<Selection> = []
    /// SAVE_TARGETS requests of applications that exit while their clipboard is still being read: answered when
    /// the capture ends, so that they keep serving until then (Qt waits 5 s, GTK 3 10 s).
    var pendingSaves: [XSelectionRequestEvent] = []
    /// Asked before data of an owned selection goes to a reader ("Allow Paste"); see X11Clipboard+PasteGate.swift.
    weak var pasteGate: (any PasteGate)?
    /// Readers' requests the gate holds, and its recent answers (one question per paste, not per target).
    var heldPastes: [HeldPaste] = []
    var recentPasteAnswers: [PasteAnswer] = []
    var lastPasteTicket = 0

    /// Opens the display (nil: `$DISPLAY`) and watches the given selections.
    public init(displayName: String? = nil, watch: Set<Selection> = [.clipboard]) throws(X11Error) {
        x = try XDisplay(name: displayName)
        select(watch)
    }

    /// Watches exactly `selections` through XFixes (owner changes, owner windows destroyed, clients closed).
    func select(_ selections: Set<Selection>) {
        let mask = UInt(XFixesSetSelectionOwnerNotifyMask | XFixesSelectionWindowDestroyNotifyMask | XFixesSelectionClientCloseNotifyMask)
        for selection in Selection.allCases where selections.contains(selection) != watched.contains(selection) {
            XFixesSelectSelectionInput(x.handle, x.root, x.atom(selection.rawValue), selections.contains(selection) ? mask : 0)
        }
        watched = selections
        x.flush()
    }

    /// The X connection's file descriptor, to poll for input.
    public var fileDescriptor: Int32 { x.fileDescriptor }

    /// The earliest moment `processTimeouts()` has work.
    public var nextDeadline: Date? {
        var deadlines = captures.values.map(\.deadline) + outgoing.map(\.deadline)
        deadlines += captures.values.map { $0.lastProgress.addingTimeInterval($0.nudgeDelay) }
        deadlines += captures.values.map { $0.observedAt.addingTimeInterval(limits.slowOwnerCap) }
        deadlines += quarantine.map(\.until)
        return deadlines.min()
    }

    /// How long a capture waits for an answer before making sure Xlib is not sitting on one (at first: the wait
    /// doubles while the owner stays quiet, up to `maxNudgeInterval`).
    static let nudgeInterval: TimeInterval = 0.02
    static let maxNudgeInterval: TimeInterval = 0.64

    /// Handles every queued event.
    public func processEvents() {
        // XPending flushes our requests, then queues what the server sent. No XFlush after the loop: Xlib on XCB
        // reads events into its queue during XFlush too (`_XFlush` calls `_XEventsQueued`), and an event queued
        // there never wakes the caller's poll(). The last XPending returned 0 after flushing, so nothing waits.
        while x.pendingEvents > 0 {
            var event = x.nextEvent()
            handle(&event)
        }
    }

    /// Abandons stalled captures and readers.
    public func processTimeouts(now: Date = Date()) {
        // By key, never holding a second copy of a job: a copy would share the buffer of `incoming`, and the next
        // chunk appended to it would then copy everything received so far.
        for selection in Array(captures.keys) {
            guard var job = captures[selection],
                job.deadline <= now || now.timeIntervalSince(job.observedAt) >= limits.slowOwnerCap
            else { continue }
            if now.timeIntervalSince(job.observedAt) >= limits.slowOwnerCap {
                captures[selection] = nil
                abandon(job)
                ended(job, .tookTooLong(job.currentTarget ?? "TARGETS"))
                continue
            }
            if isWorking(&job, now: now) {
                // Slow, not stalled: it is busy producing the answer.
                job.deadline = now.addingTimeInterval(limits.stallTimeout)
                captures[selection] = job
                continue
            }
            stalled(selection, now: now)
        }
        // An owner's answer can already have been read off the socket and still not be reported by XPending
        // (seen with libX11 1.8.4 about once in 250 captures). A round trip makes Xlib queue everything it has.
        let quiet = captures.compactMap { selection, job in
            now.timeIntervalSince(job.lastProgress) >= job.nudgeDelay ? selection : nil
        }
        if !quiet.isEmpty {
            XSync(x.handle, 0)
            for selection in quiet {
                captures[selection]?.lastProgress = now
                if let delay = captures[selection]?.nudgeDelay {
                    captures[selection]?.nudgeDelay = min(delay * 2, Self.maxNudgeInterval)
                }
            }
            processEvents()
        }
        answerPendingSaves()
        let reusable = quarantine.filter { $0.until <= now }
        quarantine.removeAll { $0.until <= now }
        propertyPool += reusable.map(\.property)
        let stalled = outgoing.filter { $0.deadline <= now }
        outgoing.removeAll { $0.deadline <= now }
        for transfer in stalled { XSelectInput(x.handle, transfer.requestor, NoEventMask) }
        x.flush()
    }

    // MARK: - Event dispatch

    func handle(_ event: inout XEvent) {
        let type = event.type
        if type == x.fixesEventBase + XFixesSelectionNotify {
            let fixes = pb_x_fixes_event(&event)!.pointee
            handleOwnerChange(fixes)
            return
        }
        switch type {
        case SelectionNotify: handleSelectionNotify(event.xselection)
        case PropertyNotify: handlePropertyNotify(event.xproperty)
        case SelectionRequest: handleSelectionRequest(event.xselectionrequest)
        case SelectionClear: handleSelectionClear(event.xselectionclear)
        default: break
        }
    }

    func selection(for atom: Atom) -> Selection? {
        Selection.allCases.first { x.atom($0.rawValue) == atom }
    }

    private func handleOwnerChange(_ event: XFixesSelectionNotifyEvent) {
        guard let selection = selection(for: event.selection) else { return }
        let time = UInt(event.selection_timestamp)
        switch Int32(event.subtype) {
        case XFixesSetSelectionOwnerNotify:
            let owner: OwnerChange.Owner = event.owner == x.window ? .thisProcess : event.owner == 0 ? .nobody : .application
            if owner == .application {
                announcedChanges[selection] = (event.owner, event.selection_timestamp)
                lastOwners[selection] = (event.owner, event.selection_timestamp)
            } else {
                lastOwners[selection] = nil
            }
            // XFixes reports only XSetSelectionOwner: an owner may change what it offers without it.
            observer?.ownerChanged(OwnerChange(selection, owner: owner, time: time, changesSilently: true))
            announcedChanges[selection] = nil
        default:
            lastOwners[selection] = nil
            observer?.ownerChanged(OwnerChange(selection, owner: .nobody, time: time))
            // The owner's window was destroyed or its client closed: the selection has no owner now. A capture still
            // reading from that owner (XFixes reports this only for the current owner) will get no more answers.
            if let job = captures[selection] {
                captures[selection] = nil
                abandon(job)
                ended(job, .ownerRefused(job.currentTarget ?? "TARGETS"))
            }
            if event.owner != x.window && owned[selection] == nil {
                observer?.ownerGone(selection, clientExited: Int32(event.subtype) == XFixesSelectionClientCloseNotify)
            }
        }
    }

    // MARK: - Property atoms for transfers

    func acquireProperty() -> Atom {
        if let atom = propertyPool.popLast() { return atom }
        nextProperty += 1
        return x.atom("PB_TRANSFER_\(nextProperty)")
    }

    func release(_ property: Atom) {
        XDeleteProperty(x.handle, x.window, property)
        propertyPool.append(property)
    }
}
