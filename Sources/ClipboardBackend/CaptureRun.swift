public import FoundationEssentials
import PasteboardModel

/// How a capture ended.
public enum CaptureOutcome: Sendable {
    case captured(CapturedOffer)
    case skipped(CaptureSkip)
}

/// One read of a selection owner's offer: the capture pipeline's decisions, carried out by a backend.
///
/// The backend is the transport: it lists the owner's types and fetches the ones the run asks for, each bounded in
/// bytes and time, and says what came of each. The run decides everything else, the same for every backend:
/// whether the offer is read at all (secret markers, the sink's rules), which types and in which order
/// (`TargetPlan`; never a `VolatileMarkers` type; a browser's custom-data container first and alone), that a marker
/// inside a container ends the read, what a stalled type costs, and the item made of what arrived.
///
/// The backend's side, in order:
/// 1. `listed(_:source:limits:)` once the owner's types are known: the first types to fetch;
/// 2. for each of them, `received(_:_:)` with its bytes, nothing when the owner refused it, or `stalled(_:)` when the
///    owner made no progress on it for `CaptureLimits.stallTimeout`; a backend that fetches one type at a time asks
///    `wants(_:)` before each;
/// 3. `batchDone()` once every type asked for is in: the next types to fetch, or none;
/// 4. `fail(_:)` when the transport cannot go on (the owner went away, a reply too large, a newer copy).
///
/// After each call of 1 to 3, `hasEnded` says whether the run is over: the backend then stops its transfers and
/// calls `deliver()`, which hands the outcome on. (`fail` delivers at once.)
public final class CaptureRun {
    /// Why a selection is read.
    public enum Mode: Sendable, Equatable {
        /// Its owner changed, or the pipeline started: what is read may be recorded.
        case watch
        /// The owner did not change but may have changed its content (see `OwnerChange.changesSilently`).
        case reread
        /// A client reads it (`pb paste`): no rules apply, and it may choose the types itself.
        case request
    }

    public let selection: Selection
    public let mode: Mode
    /// When the change was seen (or the read asked for).
    public let observedAt: Date
    /// When the owner took the selection, in the backend's clock: the backend sets it.
    public var ownerTime: UInt = 0
    /// Every type the owner offered, in its order.
    public private(set) var offered: [String] = []
    public private(set) var source = SourceApplication()
    /// How it ended; nil while it runs.
    public private(set) var outcome: CaptureOutcome?
    /// Installed by the backend when it starts reading: stops its transfers, for `cancel()`.
    public var abandon: (() -> Void)?

    /// Numbers the pipeline's runs in the order they started; a newer run of the same selection began before this
    /// one ended (then it counts only with an item, and only while no newer run has ended).
    var sequence = 0
    var isReplaced = false

    private let clock: () -> Date
    private let chooser: (([String]) -> FetchDecision)?
    private let admit: ((OfferAnnouncement) -> CaptureSkip?)?
    private let drops: ((String, OfferAnnouncement) -> Bool)?
    private let ended: (CaptureRun) -> Void
    private var limits = CaptureLimits()
    /// The types to fetch, best first: what the item is made of, in this order.
    private var preference: [String] = []
    /// Types asked for only once the browser's custom-data containers have arrived without a secret marker.
    private var deferred: [String] = []
    private var received: [String: Data] = [:]
    private var totalBytes = 0
    private var isDelivered = false

    /// A run for the pipeline (`admit` and `drops` are the sink's rules) or for a client (`chooser` picks the types;
    /// nil: everything worth keeping, and a secret reads nothing). `ended` is called once, from `deliver()`.
    public init(
        _ selection: Selection, mode: Mode, clock: @escaping () -> Date = Date.init,
        chooser: (([String]) -> FetchDecision)? = nil, admit: ((OfferAnnouncement) -> CaptureSkip?)? = nil,
        drops: ((String, OfferAnnouncement) -> Bool)? = nil, ended: @escaping (CaptureRun) -> Void
    ) {
        self.selection = selection
        self.mode = mode
        self.clock = clock
        self.chooser = chooser
        self.admit = mode == .request ? nil : admit
        self.drops = mode == .request ? nil : drops
        self.ended = ended
        observedAt = clock()
    }

    public var isRequest: Bool { mode == .request }
    public var hasEnded: Bool { outcome != nil }

    // MARK: - The backend's side

    /// The owner offers `types`: whether to read it, and what to fetch first (empty when the run has ended).
    public func listed(_ types: [String], source: SourceApplication, limits: CaptureLimits) -> [String] {
        guard !hasEnded else { return [] }
        offered = types
        self.source = source
        self.limits = limits
        if types.count > limits.maxOfferedTypes {
            end(.skipped(.tooLarge("the list of offered types")))
            return []
        }
        let announcement = OfferAnnouncement(selection: selection, offeredTypes: types, source: source)
        // Not to be read at all (a secret, an ignored application or type): nothing of it is fetched.
        if let reason = admit?(announcement) {
            end(.skipped(reason))
            return []
        }
        let dropped: (String) -> Bool = { [drops] in drops?($0, announcement) ?? false }
        let decision = chooser?(types) ?? TargetPlan.decide(types, drops: dropped)
        switch decision {
        case .secret:
            end(.skipped(.secret))
            return []
        case .nothing:
            let wasDropped = chooser == nil && TargetPlan.decide(types) != .nothing
            end(.skipped(wasDropped ? .ignored("every type it offered is dropped by a drop-type rule") : .empty))
            return []
        case .fetch(let wanted):
            // Never read, whoever asks: reading some of them changes the owner's document.
            preference = Array(wanted.filter { !VolatileMarkers.isVolatile($0) }.prefix(limits.maxFetchedTypes))
        }
        guard !preference.isEmpty else {
            end(.skipped(.empty))
            return []
        }
        // A browser's custom-data container first, alone: a web page marks its copy secret only inside it, and then
        // nothing else of the offer is read. (A client that chose its types reads what it chose.)
        let containers = chooser == nil ? preference.filter(ConcealedMarkers.isCustomDataContainer) : []
        if containers.isEmpty { return preference }
        deferred = preference.filter { !ConcealedMarkers.isCustomDataContainer($0) }
        return containers
    }

    /// Whether to still fetch `type`, for a backend that fetches one type at a time: not an alias of a text larger
    /// than `TargetPlan.aliasLimit`, which the item would not keep apart anyway.
    public func wants(_ type: String) -> Bool {
        !hasEnded && TargetPlan.reads(type, after: inPreferenceOrder())
    }

    /// `type` arrived whole.
    public func received(_ type: String, _ data: Data) {
        guard !hasEnded else { return }
        totalBytes += data.count
        if totalBytes > limits.maxItemBytes {
            end(.skipped(.tooLarge(type)))
            return
        }
        received[type] = data
        if chooser == nil && ConcealedMarkers.isCustomDataContainer(type)
            && ConcealedMarkers.isConcealed(customData: data, container: type)
        {
            // A web page's own types carry a secret marker: nothing more is read, nothing is kept.
            end(.skipped(.secret))
        }
    }

    /// The owner made no progress on `type` for the stall timeout (it refuses it by never answering: KWin's
    /// clients do that): returns whether to go on without it. The run keeps what arrived when that is worth
    /// keeping; it ends when nothing is, or when `type` is a container (without it, the copy may be a secret).
    @discardableResult
    public func stalled(_ type: String) -> Bool {
        guard !hasEnded else { return false }
        let isKeepable = !TargetPlan.item(from: inPreferenceOrder()).isEmpty
        if ConcealedMarkers.isCustomDataContainer(type) || !isKeepable {
            end(.skipped(.timedOut(type)))
            return false
        }
        return true
    }

    /// Every type asked for is in: what to fetch next, or nothing when the run has ended.
    public func batchDone() -> [String] {
        guard !hasEnded else { return [] }
        if !deferred.isEmpty {
            defer { deferred = [] }
            return deferred
        }
        let item = TargetPlan.item(from: inPreferenceOrder())
        if item.isEmpty {
            end(.skipped(.empty))
        } else {
            // A re-read saw the content now; a capture, when its owner changed.
            let observed = mode == .reread ? clock() : observedAt
            end(.captured(CapturedOffer(
                selection: selection, item: item, offeredTypes: offered, source: source, ownerChangeTime: ownerTime,
                observedAt: observed)))
        }
        return []
    }

    /// The transport cannot go on: the run ends with `reason`, at once (the backend has stopped its transfers).
    public func fail(_ reason: CaptureSkip) {
        if !hasEnded { end(.skipped(reason)) }
        deliver()
    }

    /// Hands the outcome on, once the backend has stopped its transfers for this run.
    public func deliver() {
        guard outcome != nil, !isDelivered else { return }
        isDelivered = true
        ended(self)
    }

    // MARK: - From above

    /// Stops the run from above (a client's read that took too long): the backend abandons it.
    public func cancel(_ reason: CaptureSkip) {
        guard !hasEnded else { return }
        end(.skipped(reason))
        abandon?()
        deliver()
    }

    // MARK: -

    private func end(_ outcome: CaptureOutcome) {
        if self.outcome == nil { self.outcome = outcome }
    }

    /// What arrived, in the plan's order of preference (not the order it arrived in).
    private func inPreferenceOrder() -> [(target: String, data: Data)] {
        preference.compactMap { type in received[type].map { (type, $0) } }
    }
}
