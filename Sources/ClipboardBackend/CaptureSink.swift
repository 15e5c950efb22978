/// Where the capture pipeline (`CapturePipeline`) delivers what happens on the selections it watches, and where it
/// asks for the rules only the sink knows. The daemon's capture service is one.
///
/// Every call comes from the thread that drives the backend.
public protocol CaptureSink: AnyObject {
    /// Decides, before anything is read, whether an offer may be read at all: nil reads it, a reason skips it
    /// (then `skipped` follows with that reason).
    func admit(_ offer: OfferAnnouncement) -> CaptureSkip?
    /// Whether to leave out one type of an admitted offer (it is not read): a user's `drop-type` rule.
    func drops(_ typeName: String, of offer: OfferAnnouncement) -> Bool
    /// A capture finished with an item.
    func captured(_ offer: CapturedOffer)
    /// A capture produced nothing.
    func skipped(_ selection: Selection, _ reason: CaptureSkip)
    /// The owner of a watched selection changed (ours included); `time` is the backend's clock, 0 without one.
    func ownerChanged(_ selection: Selection, time: UInt)
    /// A selection lost its owner: time to take it over, unless a new owner comes. `clientExited` says the display
    /// server saw the owning client itself go (X11's client close); otherwise the selection only went empty (its
    /// window or source was destroyed), and the application may be about to set its next copy.
    func ownerGone(_ selection: Selection, clientExited: Bool)
    /// We owned a selection and another application took it.
    func lostOwnership(_ selection: Selection)
    /// A paste-once item we served was pasted, and the selection given up.
    func pastedOnce(_ selection: Selection)
}

extension CaptureSink {
    public func admit(_ offer: OfferAnnouncement) -> CaptureSkip? { nil }
    public func drops(_ typeName: String, of offer: OfferAnnouncement) -> Bool { false }
    public func captured(_ offer: CapturedOffer) {}
    public func skipped(_ selection: Selection, _ reason: CaptureSkip) {}
    public func ownerChanged(_ selection: Selection, time: UInt) {}
    public func ownerGone(_ selection: Selection, clientExited: Bool) {}
    public func lostOwnership(_ selection: Selection) {}
    public func pastedOnce(_ selection: Selection) { lostOwnership(selection) }
}
