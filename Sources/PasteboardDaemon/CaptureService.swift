public import ClipboardBackend
public import FoundationEssentials
public import PasteboardConfiguration
public import PasteboardControl
public import PasteboardHistory
import PasteboardModel

/// Decides what becomes history, whatever the display: user rules, PRIMARY coalescing, recording, events, keeping
/// the clipboard alive when its owner exits, and serving items back. What is read of a copy (secret markers,
/// volatile types, browser containers, the item) is the backend-neutral `CapturePipeline`'s, which asks this
/// service's rules (as its `CaptureSink`) and hands it what it captured; the backend only supplies primitives.
///
/// Single-threaded: every call comes from the loop that drives the backend.
public final class CaptureService: CaptureSink {
    public let store: HistoryStore
    /// The rules, replaced when the configuration is read again (`reload-config`); PRIMARY and the take-over delay
    /// are taken from them when the service starts.
    public var rules: CaptureRules
    /// Which captured copies ask before they are pasted (`ask-app`, `ask-type`).
    public var pasteApprovalRules = PasteApprovalRules()
    public let backend: any ClipboardBackend
    /// Reads each copy through the backend, and decides what of it is read.
    private lazy var pipeline = CapturePipeline(backend: backend, sink: self, clock: clock)
    /// The time the service goes by: `Date.init`, or a test's clock.
    private let clock: () -> Date
    private let log: (String) -> Void
    private let broadcast: (ControlEvent) -> Void
    /// The last item seen on each selection: what is served when its owner goes away.
    private var lastItem: [Selection: PasteboardItem] = [:]
    /// The history item each selection holds, as far as the daemon knows (recorded from it, or restored onto it).
    private var currentIDs: [Selection: Int64] = [:]
    /// The last PRIMARY item recorded, to coalesce a growing selection into one item.
    private var lastPrimary: (id: Int64, text: String, at: Date)?
    /// When to give up a selection served with an expiry.
    private var expiries: [(deadline: Date, selection: Selection)] = []
    /// The paste stack's items still to come, in order: each goes on the clipboard once the one before was pasted.
    public private(set) var pasteStack: [Int64] = []
    /// Selections whose owner went away, and when to take them over unless a new owner appears first (see
    /// `ownerGone`).
    private var pendingTakeOvers: [Selection: Date] = [:]
    /// How long an emptied selection stays empty before the daemon serves its last content: the grace the
    /// application that emptied it has to set its next copy (see `ownerGone` and `CaptureRules.takeOverDelay`).
    public var takeOverGrace: TimeInterval
    /// How many take-overs a new owner made unnecessary, and how many were made.
    public private(set) var cancelledTakeOvers = 0
    public private(set) var takeOvers = 0
    /// How many copies were recorded, and how many were not.
    public private(set) var capturedCount = 0
    public private(set) var skippedCount = 0

    /// How long a PRIMARY selection may go on growing and still count as the same item.
    static let primaryCoalescingWindow: TimeInterval = 5


    public init(
        store: HistoryStore, rules: CaptureRules, backend: any ClipboardBackend, clock: @escaping () -> Date = Date.init,
        log: @escaping (String) -> Void, broadcast: @escaping (ControlEvent) -> Void
    ) {
        self.store = store
        self.rules = rules
        self.backend = backend
        self.log = log
        self.broadcast = broadcast
        self.clock = clock
        takeOverGrace = rules.takeOverDelay
    }

    /// Watches the clipboard (and PRIMARY when the rules say so) and records what is on it now.
    public func start() {
        var selections: Set<Selection> = [.clipboard]
        if rules.capturesPrimary { selections.insert(.primary) }
        pipeline.start(selections)
        if !backend.becomeClipboardManager() {
            log("another clipboard manager holds CLIPBOARD_MANAGER; continuing without it")
        }
        // What is on the clipboard right now counts as the first copy.
        pipeline.captureCurrent(.clipboard)
    }

    // MARK: - CaptureSink

    public func admit(_ offer: OfferAnnouncement) -> CaptureSkip? {
        if ConcealedMarkers.isConcealed(offer.offeredTypes) { return .secret }
        if let reason = rules.rejection(ofApplication: offer.source.name) { return .ignored(reason) }
        let offeredTypes = offer.offeredTypes.compactMap(TargetPlan.contentType(forTarget:))
        if let reason = rules.rejection(ofOfferedTypes: offeredTypes) { return .ignored(reason) }
        return nil
    }

    public func drops(_ typeName: String, of offer: OfferAnnouncement) -> Bool {
        if VolatileMarkers.isVolatile(typeName) { return true }
        return TargetPlan.contentType(forTarget: typeName).map(rules.drops) ?? false
    }

    public func captured(_ offer: CapturedOffer) {
        // Secret markers, volatile and dropped types were decided before anything was read (`CaptureRun`).
        let item = offer.item
        // Another application's copy: the clipboard is the user's again, the paste stack ends.
        if offer.selection == .clipboard { endStack() }
        if let reason = rules.rejection(of: item, application: offer.sourceApplication) {
            skipped(offer.selection, .ignored(reason))
            return
        }
        lastItem[offer.selection] = item
        do {
            try record(offer, item: item)
        } catch {
            log("\(offer.selection.name): could not record: \(error)")
        }
    }

    private func record(_ offer: CapturedOffer, item: PasteboardItem) throws(HistoryError) {
        var metadata = CaptureMetadata(source: offer.sourceApplication, selection: offer.selection.name, date: offer.observedAt)
        metadata.asksBeforePaste = pasteApprovalRules.asks(item, application: offer.sourceApplication)
        let primaryText = offer.selection == .primary ? item.string : nil
        if let text = primaryText, let previous = lastPrimary,
            offer.observedAt.timeIntervalSince(previous.at) < Self.primaryCoalescingWindow,
            text.hasPrefix(previous.text) || text.hasSuffix(previous.text) || previous.text.hasPrefix(text)
        {
            // A selection still being dragged: replace the shorter step with the longer one.
            // (Its text lives on in the longer step: the store wipes the shorter one's traces at its next purge.)
            _ = try store.delete(ids: [previous.id], deferringPurge: true)
            metadata.date = offer.observedAt
        }
        let result = try store.record(item, metadata: metadata)
        currentIDs[offer.selection] = result.id
        // Only an item this PRIMARY selection created may be replaced by its next step: one it merged into (a
        // CLIPBOARD copy of the same text), or one a CLIPBOARD copy merged into since, belongs to that copy too.
        if let text = primaryText, result.isNew {
            lastPrimary = (result.id, text, offer.observedAt)
        } else if offer.selection == .primary || result.id == lastPrimary?.id {
            lastPrimary = nil
        }
        capturedCount += 1
        let types = item.types.count
        log(
            "\(offer.selection.name): recorded item \(result.id) (\(types) type\(types == 1 ? "" : "s"), "
                + "\(ByteCountFormatting.string(item.byteCount))"
                + "\(offer.sourceApplication.map { ", from \($0)" } ?? ""))")
        var event = ControlEvent(.captured, id: result.id, time: offer.observedAt.timeIntervalSince1970)
        event.new = result.isNew
        event.selection = offer.selection.name
        event.types = item.types.map(\.identifier)
        event.size = item.byteCount
        event.source = offer.sourceApplication
        event.committed = Date().timeIntervalSince1970
        event.ownerTime = offer.ownerChangeTime
        broadcast(event)
    }

    public func skipped(_ selection: Selection, _ reason: CaptureSkip) {
        skippedCount += 1
        // The clipboard holds something else now than the item last read: never bring that one back when this
        // owner exits. (A superseded capture is followed by a newer one, which decides.)
        if reason != .superseded {
            lastItem[selection] = nil
            currentIDs[selection] = nil
            if selection == .clipboard { endStack() }
        }
        switch reason {
        case .empty: break
        case .secret: log("\(selection.name): skipped a concealed (secret) offer")
        case .superseded: log("\(selection.name): a newer copy replaced one still being read")
        case .ownerRefused(let type): log("\(selection.name): the owner refused \(type)")
        case .timedOut(let type): log("\(selection.name): the owner stalled on \(type); gave up")
        case .tookTooLong(let type): log("\(selection.name): the owner took too long to produce \(type); gave up")
        case .tooLarge(let type): log("\(selection.name): \(type) exceeds the size limit; skipped")
        // Not recorded, and not kept alive either: an ignored application's copy dies with it.
        case .ignored(let why): log("\(selection.name): not recorded (\(why))")
        }
    }

    /// A selection lost its owner. The daemon takes it over only once the owner has really gone: at once when the
    /// display server saw the owning client exit (X11); when the selection only went empty (Wayland, or an X11
    /// window destroyed), the owner may be replacing its own copy (see `CaptureRules.takeOverDelay`), so the
    /// take-over waits `takeOverGrace`, and a new owner in the meantime cancels it. The daemon never races an
    /// application for its own clipboard, whatever the backend.
    public func ownerGone(_ selection: Selection, clientExited: Bool) {
        guard lastItem[selection] != nil else { return }
        if clientExited || takeOverGrace == 0 {
            takeOver(selection)
        } else {
            pendingTakeOvers[selection] = clock().addingTimeInterval(takeOverGrace)
        }
    }

    public func ownerChanged(_ selection: Selection, time: UInt) {
        // Whoever owns it now (an application's next copy, or this daemon), nothing is to be taken over.
        if pendingTakeOvers.removeValue(forKey: selection) != nil { cancelledTakeOvers += 1 }
    }

    /// Takes `selection` over with the last content seen on it, if its owner did not come back.
    private func takeOver(_ selection: Selection) {
        guard let item = lastItem[selection], !backend.owns(selection) else { return }
        if backend.own(selection, item: item, once: false) {
            takeOvers += 1
            log("\(selection.name): the owner exited; now serving its content")
        }
    }

    public func lostOwnership(_ selection: Selection) {
        log("\(selection.name): another application took the selection")
    }

    public func pastedOnce(_ selection: Selection) {
        guard selection == .clipboard, !pasteStack.isEmpty else {
            log("\(selection.name): the paste-once item was pasted; selection given up")
            return
        }
        let next = pasteStack.removeFirst()
        do {
            try own(id: next, once: !pasteStack.isEmpty, expireAfter: nil, plain: false)
            log("clipboard: paste stack: item \(next) is next (\(pasteStack.count) more after it)")
        } catch {
            log("clipboard: paste stack stopped: \(error.message)")
            pasteStack = []
        }
        broadcastStack()
    }

    /// Tells watchers how many items of the paste stack are left (0: it ended).
    private func broadcastStack() {
        var event = ControlEvent(.pasteStack, id: currentIDs[.clipboard], time: Date().timeIntervalSince1970)
        event.remaining = pasteStack.count
        broadcast(event)
    }

    // MARK: - Serving

    /// Puts history item `id` on the clipboard with all its representations; with `once`, only for the first
    /// paste; with `expireAfter`, for that long. Its payload files are not read now: the backend reads each when a
    /// reader asks for it, after checking it once against its hash (a damaged one is refused, and logged).
    /// With `plain`, only the item's plain text is served ("paste as plain text").
    public func restore(id: Int64, once: Bool, expireAfter: TimeInterval?, plain: Bool = false) throws(DaemonError) {
        try own(id: id, once: once, expireAfter: expireAfter, plain: plain)
        endStack()
    }

    /// Puts items `ids` on the clipboard one after another, each for one paste (a paste stack): the first now, the
    /// next once it was pasted, the last to stay. Every item is checked first: a missing one stops nothing half-way.
    /// A copy in another application, a restore or a clear ends the stack.
    public func stack(ids: [Int64]) throws(DaemonError) {
        guard let first = ids.first else { throw DaemonError("A paste stack needs at least one item.") }
        for id in ids {
            do {
                _ = try store.item(id: id)
            } catch {
                throw DaemonError(error.message, cause: error)
            }
        }
        try own(id: first, once: ids.count > 1, expireAfter: nil, plain: false)
        pasteStack = Array(ids.dropFirst())
        log("clipboard: paste stack of \(ids.count) items: item \(first) first")
        broadcastStack()
    }

    /// Ends a paste stack that still had items to come.
    private func endStack() {
        guard !pasteStack.isEmpty else { return }
        pasteStack = []
        log("clipboard: paste stack ended")
        broadcastStack()
    }

    private func own(id: Int64, once: Bool, expireAfter: TimeInterval?, plain: Bool) throws(DaemonError) {
        var item: PasteboardItem
        let loopLog = LoopLog(write: log)
        do {
            item = try store.restorableItem(id: id) { problem in loopLog.write("clipboard: not served: \(problem.message)") }
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        if plain {
            guard let text = item.plainTextOnly else { throw DaemonError("Item \(id) has no text to paste as plain text.") }
            item = text
        }
        guard backend.own(.clipboard, item: item, once: once) else {
            throw DaemonError("Could not take the clipboard selection\(backend.problem.map { ": \($0)" } ?? ".")")
        }
        lastItem[.clipboard] = once ? nil : item
        currentIDs[.clipboard] = id
        expiries.removeAll { $0.selection == .clipboard }
        if let expireAfter { expiries.append((clock().addingTimeInterval(expireAfter), .clipboard)) }
        // No event here: the store's change feed says it (`restored`), once, whoever restored the item.
    }

    /// The history item on `selection` while this process owns it (what a reader would paste), else nil.
    public func itemID(on selection: Selection) -> Int64? {
        backend.owns(selection) ? currentIDs[selection] : nil
    }

    /// Leaves the clipboard empty.
    public func clear() {
        endStack()
        backend.clear(.clipboard)
        lastItem[.clipboard] = nil
        currentIDs[.clipboard] = nil
        expiries.removeAll { $0.selection == .clipboard }
        broadcast(ControlEvent(.clearedClipboard, time: Date().timeIntervalSince1970))
    }

    /// History items `ids` were deleted: a selection holding one of them is emptied (whoever owns it, so an
    /// application still serving the copy loses it too), and none of them is taken over when its owner exits.
    /// Returns whether a selection was emptied.
    @discardableResult
    public func forget(ids: [Int64]) -> Bool {
        var emptied = false
        if pasteStack.contains(where: ids.contains) {
            pasteStack.removeAll(where: ids.contains)
            broadcastStack()
        }
        for (selection, id) in currentIDs where ids.contains(id) {
            backend.clear(selection)
            lastItem[selection] = nil
            currentIDs[selection] = nil
            expiries.removeAll { $0.selection == selection }
            log("\(selection.name): item \(id) was deleted; selection emptied")
            if selection == .clipboard {
                broadcast(ControlEvent(.clearedClipboard, time: Date().timeIntervalSince1970))
            }
            emptied = true
        }
        return emptied
    }

    // MARK: - Time

    /// The next moment `processTimeouts(now:)` has work.
    public var nextDeadline: Date? {
        (expiries.map(\.deadline) + pendingTakeOvers.values + [pipeline.nextDeadline].compactMap { $0 }).min()
    }

    /// Takes over selections whose grace has passed, gives up selections whose expiry has come, and starts the
    /// pipeline's re-reads that are due.
    public func processTimeouts(now: Date) {
        pipeline.processTimeouts(now: now)
        for (selection, deadline) in pendingTakeOvers where deadline <= now {
            pendingTakeOvers[selection] = nil
            takeOver(selection)
        }
        let due = expiries.filter { $0.deadline <= now }
        expiries.removeAll { $0.deadline <= now }
        for expiry in due where backend.owns(expiry.selection) {
            backend.disown(expiry.selection)
            lastItem[expiry.selection] = nil
            currentIDs[expiry.selection] = nil
            log("\(expiry.selection.name): expired item cleared")
        }
    }
}

/// The service's log, for the payload checks of a restored item. They run when a reader asks for the item's bytes,
/// inside the backend's serving code, which runs on the loop that drives the service (see `CaptureService`): the
/// closure is only ever called on the thread that made it.
private struct LoopLog: @unchecked Sendable {
    let write: (String) -> Void
}
