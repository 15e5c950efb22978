public import ClipboardBackend
import FoundationEssentials
public import PasteboardModel

/// The X11 clipboard as a `ClipboardBackend`: what the daemon and the client clipboard layer drive.
extension X11Clipboard: ClipboardBackend {
    public var name: String { "x11" }

    public func watch(_ selections: Set<Selection>, capturing: Bool, sink: any CaptureSink) {
        capturesOnChange = capturing
        admits = { [weak sink] offer in sink?.admit(offer) }
        drops = { [weak sink] type, offer in sink?.drops(type, of: offer) ?? false }
        onCapture = { [weak sink] offer in sink?.captured(offer) }
        onSkip = { [weak sink] selection, reason in sink?.skipped(selection, reason) }
        onOwnerChange = { [weak sink] selection, time in sink?.ownerChanged(selection, time: time) }
        onOwnerGone = { [weak sink] selection, clientExited in sink?.ownerGone(selection, clientExited: clientExited) }
        onLostOwnership = { [weak sink] selection in sink?.lostOwnership(selection) }
        select(selections)
    }

    public func currentOwnerTime(_ selection: Selection) -> UInt? { currentOwnerTime(selection, timeout: 1) }

    public func contentType(forOfferedType typeName: String) -> ContentType? { TargetPlan.contentType(forTarget: typeName) }

    public func fetchPlan(for offeredTypes: [String]) -> FetchDecision { TargetPlan.decide(offeredTypes) }
}
