public import FoundationEssentials
public import PasteboardModel

/// A clipboard that lives in this process, driven by hand: for unit tests of what sits above a backend (the
/// capture service, the client layer), in the spirit of swift-nio's `EmbeddedChannel`. Integration tests use the
/// real X11 or Wayland backend instead.
///
/// ```swift
/// let backend = InMemoryBackend()
/// backend.watch([.clipboard], capturing: true, sink: service)
/// backend.copy(PasteboardItem(string: "hello"), source: SourceApplication(name: "Editor"))  // captured
/// backend.ownerExits(.clipboard)                                                            // take-over
/// ```
public final class InMemoryBackend: ClipboardBackend {
    /// What another application put on a selection, or what this process owns.
    public struct Holder: Sendable {
        public var item: PasteboardItem
        public var offeredTypes: [String]
        public var source: SourceApplication
        public var isOurs: Bool
        public var once: Bool
        public var time: UInt
    }

    public let name = "memory"
    public private(set) var selections: [Selection: Holder] = [:]
    private var watched: Set<Selection> = []
    private var capturing = false
    private weak var sink: (any CaptureSink)?
    private var clock: UInt = 0
    /// Whether `own` succeeds (a display server can refuse).
    public var refusesOwnership = false
    /// Whether another program is the clipboard manager already.
    public var hasOtherClipboardManager = false

    public init() {}

    public var fileDescriptor: Int32 { -1 }
    public var nextDeadline: Date? { nil }
    public func processEvents() {}
    public func processTimeouts(now: Date) {}

    public func watch(_ selections: Set<Selection>, capturing: Bool, sink: any CaptureSink) {
        watched = selections
        self.capturing = capturing
        self.sink = sink
    }

    public func becomeClipboardManager() -> Bool { !hasOtherClipboardManager }

    public func captureCurrent(_ selection: Selection) {
        guard let holder = selections[selection], !holder.isOurs else { return }
        deliver(selection, holder)
    }

    public func own(_ selection: Selection, item: PasteboardItem, once: Bool) -> Bool {
        if refusesOwnership { return false }
        clock += 1
        selections[selection] = Holder(
            item: item, offeredTypes: item.types.map(\.identifier), source: SourceApplication(), isOurs: true, once: once,
            time: clock)
        if watched.contains(selection) { sink?.ownerChanged(selection, time: clock) }
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

    public func read(_ selection: Selection, timeout: TimeInterval, choose: (([String]) -> FetchDecision)?) -> ReadResult {
        guard let holder = selections[selection] else { return .empty }
        let decision = choose?(holder.offeredTypes) ?? fetchPlan(for: holder.offeredTypes)
        switch decision {
        case .secret: return .failed(.secret)
        case .nothing: return .failed(.empty)
        case .fetch(let names):
            var item = PasteboardItem()
            for representation in holder.item.representations where names.contains(representation.type.identifier) {
                item.setData(representation.data, forType: representation.type)
            }
            if holder.isOurs && holder.once { pastedOnce(selection) }
            return item.isEmpty ? .failed(.empty) : .item(item, offered: holder.offeredTypes)
        }
    }

    public func currentOwnerTime(_ selection: Selection) -> UInt? { selections[selection]?.time }

    public func contentType(forOfferedType typeName: String) -> ContentType? { ContentType(typeName) }

    public func fetchPlan(for offeredTypes: [String]) -> FetchDecision {
        if ConcealedMarkers.isConcealed(offeredTypes) { return .secret }
        let kept = ConcealedMarkers.withoutMarkers(offeredTypes)
        return kept.isEmpty ? .nothing : .fetch(kept)
    }

    // MARK: - Driving it

    /// Another application copies `item` (offering `extraTypes` besides its representations, e.g. secret
    /// markers): the sink sees the change, admits it and receives it, as from a real display.
    public func copy(
        _ item: PasteboardItem, to selection: Selection = .clipboard, extraTypes: [String] = [],
        source: SourceApplication = SourceApplication()
    ) {
        clock += 1
        let wasOurs = owns(selection)
        let holder = Holder(
            item: item, offeredTypes: item.types.map(\.identifier) + extraTypes, source: source, isOurs: false,
            once: false, time: clock)
        selections[selection] = holder
        guard watched.contains(selection) else { return }
        if wasOurs { sink?.lostOwnership(selection) }
        sink?.ownerChanged(selection, time: clock)
        if capturing { deliver(selection, holder) }
    }

    /// The application owning `selection` exits (`clientExited`), or only empties it: the selection is left
    /// without an owner.
    public func ownerExits(_ selection: Selection, clientExited: Bool = false) {
        guard let holder = selections[selection], !holder.isOurs else { return }
        selections[selection] = nil
        if watched.contains(selection) { sink?.ownerGone(selection, clientExited: clientExited) }
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
        sink?.lostOwnership(selection)
    }

    private func deliver(_ selection: Selection, _ holder: Holder) {
        let announcement = OfferAnnouncement(selection: selection, offeredTypes: holder.offeredTypes, source: holder.source)
        if let reason = sink?.admit(announcement) {
            sink?.skipped(selection, reason)
            return
        }
        var item = PasteboardItem()
        for representation in holder.item.representations
        where sink?.drops(representation.type.identifier, of: announcement) != true {
            item.setRepresentation(representation)
        }
        if item.isEmpty {
            sink?.skipped(selection, .empty)
            return
        }
        sink?.captured(CapturedOffer(
            selection: selection, item: item, offeredTypes: holder.offeredTypes, source: holder.source,
            ownerChangeTime: holder.time, observedAt: Date()))
    }
}
