public import FoundationEssentials
public import PasteboardModel

/// A clipboard that lives in this process, driven by hand, with a clock of its own: for unit tests of what sits
/// above a backend (the capture pipeline and service, the client layer), in the spirit of swift-nio's
/// `EmbeddedChannel`. Integration tests use the real X11 or Wayland backend instead.
///
/// Another application's copy is offered as a display would offer it (every name of `TargetPlan.servedTargets`),
/// and read through the same `CaptureRun` as on X11 and Wayland: `fetched` shows what was asked for. A type in
/// `stalling` is never answered; `advance(by:)` moves the clock, and past `CaptureLimits.stallTimeout` the read
/// reports the stall.
///
/// ```swift
/// let backend = InMemoryBackend()
/// let service = CaptureService(store: store, rules: rules, backend: backend, clock: { backend.now }, …)
/// service.start()
/// backend.copy(PasteboardItem(string: "hello"), source: SourceApplication(name: "Editor"))  // captured
/// backend.ownerExits(.clipboard)                                                            // the owner goes
/// backend.advance(by: 1)                                                                    // the clock moves
/// ```
public final class InMemoryBackend: ClipboardBackend {
    /// What another application put on a selection, or what this process owns.
    public struct Holder: Sendable {
        public var item: PasteboardItem
        /// The names the item is offered under, in order.
        public var offeredTypes: [String]
        public var source: SourceApplication
        public var isOurs: Bool
        public var once: Bool
        public var time: UInt
        /// What each offered name answers with.
        var served: [String: Data] = [:]
    }

    public let name = "memory"
    public var limits = CaptureLimits()
    public private(set) var selections: [Selection: Holder] = [:]
    /// The clock: it moves only with `advance(by:)`.
    public private(set) var now: Date
    /// Types another application never answers (a stalled owner).
    public var stalling: Set<String> = []
    /// Every type fetched from another application's offer, in the order asked for: what the capture pipeline read.
    public private(set) var fetched: [String] = []
    /// Whether an owner may change what it offers without taking the selection again (as on X11): see
    /// `changeSilently(_:in:)`.
    public var ownersChangeSilently = false
    /// Whether `own` succeeds (a display server can refuse).
    public var refusesOwnership = false
    /// Whether another program is the clipboard manager already.
    public var hasOtherClipboardManager = false

    private var watched: Set<Selection> = []
    private weak var observer: (any SelectionObserver)?
    private var changes: UInt = 0
    /// Reads waiting on stalled types: the run, what it reads, the types not answered yet, and since when.
    private var waiting: [(run: CaptureRun, holder: Holder, pending: [String], since: Date)] = []

    public init(now: Date = Date()) {
        self.now = now
    }

    public var fileDescriptor: Int32 { -1 }
    public var nextDeadline: Date? { waiting.map { $0.since.addingTimeInterval(limits.stallTimeout) }.min() }
    public func processEvents() {}

    /// Reports the stalls whose time has come.
    public func processTimeouts(now: Date) {
        for index in waiting.indices.reversed() where now.timeIntervalSince(waiting[index].since) >= limits.stallTimeout {
            let (run, holder, pending, _) = waiting.remove(at: index)
            for type in pending where !run.stalled(type) { break }
            if run.hasEnded {
                run.deliver()
            } else {
                fetch(run.batchDone(), for: run, from: holder)
            }
        }
    }

    /// Moves the clock on by `seconds` and handles what is then due.
    public func advance(by seconds: TimeInterval) {
        now = now.addingTimeInterval(seconds)
        processTimeouts(now: now)
    }

    public func watch(_ selections: Set<Selection>, observer: any SelectionObserver) {
        watched = selections
        self.observer = observer
    }

    public func becomeClipboardManager() -> Bool { !hasOtherClipboardManager }

    public func startReading(_ selection: Selection, into run: CaptureRun) -> ReadStart {
        guard let holder = selections[selection] else { return .empty }
        if holder.isOurs {
            if holder.once && run.isRequest { pastedOnce(selection) }
            return .ours(holder.item, offered: holder.offeredTypes)
        }
        run.ownerTime = holder.time
        run.abandon = { [weak self, weak run] in self?.waiting.removeAll { $0.run === run } }
        fetch(run.listed(holder.offeredTypes, source: holder.source, limits: limits), for: run, from: holder)
        return .reading
    }

    /// Answers `types` at once, but those in `stalling`; reports the batch done when nothing is left waiting.
    private func fetch(_ types: [String], for run: CaptureRun, from holder: Holder) {
        var pending: [String] = []
        for type in types where !run.hasEnded {
            fetched.append(type)
            if stalling.contains(type) {
                pending.append(type)
            } else if let data = holder.served[type], !data.isEmpty {
                run.received(type, data)
            }
        }
        if run.hasEnded { return run.deliver() }
        if !pending.isEmpty {
            waiting.append((run, holder, pending, now))
            return
        }
        let next = run.batchDone()
        if run.hasEnded { return run.deliver() }
        fetch(next, for: run, from: holder)
    }

    public func own(_ selection: Selection, item: PasteboardItem, once: Bool) -> Bool {
        if refusesOwnership { return false }
        changes += 1
        var holder = Holder(
            item: item, offeredTypes: [], source: SourceApplication(), isOurs: true, once: once, time: changes)
        Self.offer(item, in: &holder)
        selections[selection] = holder
        if watched.contains(selection) { observer?.ownerChanged(OwnerChange(selection, owner: .thisProcess, time: changes)) }
        return true
    }

    public func owns(_ selection: Selection) -> Bool { selections[selection]?.isOurs == true }

    public func disown(_ selection: Selection) {
        guard owns(selection) else { return }
        selections[selection] = nil
    }

    public func clear(_ selection: Selection) {
        selections[selection] = nil
    }

    public func currentOwnerTime(_ selection: Selection) -> UInt? { selections[selection]?.time }

    // MARK: - Driving it

    /// Another application copies `item` (offering `extraTypes` besides, e.g. secret markers, which answer
    /// nothing): the observer sees the change and reads it, as from a real display.
    public func copy(
        _ item: PasteboardItem, to selection: Selection = .clipboard, extraTypes: [String] = [],
        source: SourceApplication = SourceApplication()
    ) {
        changes += 1
        let wasOurs = owns(selection)
        var holder = Holder(item: item, offeredTypes: [], source: source, isOurs: false, once: false, time: changes)
        Self.offer(item, in: &holder)
        holder.offeredTypes += extraTypes
        selections[selection] = holder
        guard watched.contains(selection) else { return }
        if wasOurs { observer?.lostOwnership(selection) }
        observer?.ownerChanged(
            OwnerChange(selection, owner: .application, time: changes, changesSilently: ownersChangeSilently))
    }

    /// The application owning `selection` changes what it offers to `item` without taking the selection again
    /// (a GTK entry whose selection grows, on X11): nobody is told.
    public func changeSilently(_ item: PasteboardItem, in selection: Selection = .clipboard) {
        guard var holder = selections[selection], !holder.isOurs else { return }
        holder.offeredTypes = []
        holder.served = [:]
        Self.offer(item, in: &holder)
        holder.item = item
        selections[selection] = holder
    }

    /// The application owning `selection` exits (`clientExited`), or only empties it: the selection is left
    /// without an owner.
    public func ownerExits(_ selection: Selection, clientExited: Bool = false) {
        guard let holder = selections[selection], !holder.isOurs else { return }
        selections[selection] = nil
        if watched.contains(selection) { observer?.ownerGone(selection, clientExited: clientExited) }
    }

    /// A reader pastes from a selection this process owns; returns what it got.
    @discardableResult
    public func paste(_ selection: Selection = .clipboard) -> PasteboardItem? {
        guard let holder = selections[selection], holder.isOurs else { return nil }
        if holder.once { pastedOnce(selection) }
        return holder.item
    }

    private func pastedOnce(_ selection: Selection) {
        selections[selection] = nil
        observer?.pastedOnce(selection)
    }

    /// Offers `item` under every name a display offers it under, each answering what a display would serve.
    private static func offer(_ item: PasteboardItem, in holder: inout Holder) {
        for target in TargetPlan.servedTargets(for: item) where holder.served[target.name] == nil {
            let data = item.representations[target.representation].data
            holder.offeredTypes.append(target.name)
            holder.served[target.name] = target.conversion?.apply(to: data) ?? data
        }
    }
}
