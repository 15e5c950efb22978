import CWayland
public import ClipboardBackend
public import FoundationEssentials
public import PasteboardModel

/// The Wayland clipboard as a `ClipboardBackend`: what the daemon and the client clipboard layer drive.
extension WaylandClipboard: ClipboardBackend {
    public var name: String { "wayland" }

    public func watch(_ selections: Set<Selection>, capturing: Bool, sink: any CaptureSink) {
        watched = hasPrimary ? selections : selections.subtracting([.primary])
        capturesOnChange = capturing
        self.sink = sink
    }

    /// Wayland has no clipboard-manager role: keeping the clipboard alive is done by taking the selection over
    /// when it goes empty (see `CaptureSink.ownerGone`).
    public func becomeClipboardManager() -> Bool { true }

    public func captureCurrent(_ selection: Selection) {
        guard owned[selection] == nil, let offer = current[selection] else { return }
        startCapture(selection, offer: offer, isRequest: false)
    }

    /// Reads the selection now, waiting up to `timeout`. `choose` picks which offered types to read (default:
    /// everything worth keeping).
    public func read(_ selection: Selection, timeout: TimeInterval, choose: (([String]) -> FetchDecision)?) -> ReadResult {
        guard isConnected else { return .failed(.ownerRefused("the Wayland connection")) }
        // The latest state: events the compositor sent before now.
        roundtrip()
        if let owned = owned[selection] { return .item(owned.item, offered: owned.order) }
        guard let offer = current[selection] else { return .empty }
        var result: ReadResult?
        let previous = requestResult
        requestResult = { finished, outcome in if finished == selection { result = outcome } }
        defer { requestResult = previous }
        startCapture(selection, offer: offer, isRequest: true, chooser: choose)
        let finished = run(until: { result != nil }, deadline: Date().addingTimeInterval(timeout))
        if !finished {
            if let job = captures[selection] { endCapture(job) }
            return .failed(.timedOut("the selection's source did not answer"))
        }
        return result ?? .failed(.empty)
    }

    /// A count of the selection changes this process saw (Wayland has no server time), or nil when empty.
    public func currentOwnerTime(_ selection: Selection) -> UInt? {
        owned[selection]?.time ?? (current[selection] != nil ? clock : nil)
    }

    public func contentType(forOfferedType typeName: String) -> ContentType? { TargetPlan.contentType(forTarget: typeName) }

    public func fetchPlan(for offeredTypes: [String]) -> FetchDecision { TargetPlan.decide(offeredTypes) }
}
