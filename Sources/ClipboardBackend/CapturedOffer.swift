public import FoundationEssentials
public import PasteboardModel

/// The application that made a copy, as far as the display server tells.
public struct SourceApplication: Sendable, Equatable {
    /// Its name: the WM_CLASS class on X11, the app id where a Wayland compositor says.
    public var name: String?
    public var pid: Int?

    public init(name: String? = nil, pid: Int? = nil) {
        self.name = name
        self.pid = pid
    }
}

/// What a selection owner offers, before anything is read: enough to decide whether to read it at all.
public struct OfferAnnouncement: Sendable {
    public let selection: Selection
    /// Every type name the owner offered (X11 targets or MIME types), in its order.
    public let offeredTypes: [String]
    public let source: SourceApplication

    public init(selection: Selection, offeredTypes: [String], source: SourceApplication) {
        self.selection = selection
        self.offeredTypes = offeredTypes
        self.source = source
    }
}

/// What a capture read from a selection owner: the item with every representation kept, and where it came from.
public struct CapturedOffer: Sendable {
    public let selection: Selection
    public let item: PasteboardItem
    /// Every type the owner offered, fetched or not.
    public let offeredTypes: [String]
    public let source: SourceApplication
    /// When the owner changed, in the backend's own clock (X server time on X11); 0 when it has none.
    public let ownerChangeTime: UInt
    /// When this process saw the change.
    public let observedAt: Date

    public init(
        selection: Selection, item: PasteboardItem, offeredTypes: [String], source: SourceApplication,
        ownerChangeTime: UInt, observedAt: Date
    ) {
        self.selection = selection
        self.item = item
        self.offeredTypes = offeredTypes
        self.source = source
        self.ownerChangeTime = ownerChangeTime
        self.observedAt = observedAt
    }

    /// The source application's name, when known.
    public var sourceApplication: String? { source.name }
}
