public import FoundationEssentials

/// One change of the history, as the store's change feed keeps it (see HistoryStore+Changes.swift).
///
/// Every mutation of the history records its changes in the same transaction, whichever process made it, so a
/// reader that remembers the last `sequence` it saw learns exactly what happened since.
public struct HistoryChange: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A copy became a new item.
        case added
        /// A copy repeated an existing item, which moved to the top with its count bumped.
        case repeated
        /// An item was put back on the clipboard: moved to the top, its count bumped.
        case restored
        /// An item moved to the top without a copy (sync ordering).
        case moved
        case pinned
        case unpinned
        /// An item's own settings changed (asking before it is pasted).
        case changed
        /// An item was deleted by someone.
        case deleted
        /// The history was cleared: `count` items went, `itemID` is nil.
        case cleared
        /// Many items were recorded at once (`pb import`, a sync snapshot): `count` items, the new ones with ids
        /// `itemID...lastItemID` (nil when none was new).
        case imported
        /// An item's expiry time passed.
        case expired
        /// Retention removed an item (`itemID`), or `count` items at once (`itemID` nil).
        case pruned
    }

    /// Increasing with every change, never reused (even once old rows are trimmed).
    public let sequence: Int64
    public let kind: Kind
    public let itemID: Int64?
    /// `imported`: the last new item's id.
    public let lastItemID: Int64?
    /// `cleared`, `imported`, `pruned` of many: how many items.
    public let count: Int?
    public let time: Date
    /// The device whose change this is, for a change that arrived through sync; nil for this machine's own.
    public let device: String?
    /// `cleared`: pinned items were kept.
    public let keptPinned: Bool
    /// `deleted`, `expired`, `pruned` of one item: the identity it had (what sync names it by).
    package let identity: Data?

    public init(
        sequence: Int64, kind: Kind, itemID: Int64?, lastItemID: Int64? = nil, count: Int? = nil, time: Date,
        device: String? = nil, keptPinned: Bool = false
    ) {
        self.init(
            sequence: sequence, kind: kind, itemID: itemID, lastItemID: lastItemID, count: count, time: time,
            device: device, keptPinned: keptPinned, identity: nil)
    }

    package init(
        sequence: Int64, kind: Kind, itemID: Int64?, lastItemID: Int64?, count: Int?, time: Date, device: String?,
        keptPinned: Bool, identity: Data?
    ) {
        self.identity = identity
        self.keptPinned = keptPinned
        self.sequence = sequence
        self.kind = kind
        self.itemID = itemID
        self.lastItemID = lastItemID
        self.count = count
        self.time = time
        self.device = device
    }
}
