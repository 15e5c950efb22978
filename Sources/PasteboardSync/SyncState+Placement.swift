import FoundationEssentials

/// A round's placement of items in the history that is not finished: kept in the sync state from the take-in on, so
/// that a round cut short (at the daemon's deadline for a turn, or by the end of the process) goes on where it
/// stopped, and no item taken in is left out of the history.
struct PendingPlacement: Equatable {
    /// The earliest copy the round took in: every live item copied at or after it goes to the top, oldest first
    /// (nil: only the items waiting for a payload).
    var from: HybridClock?
    /// The copy up to which items are placed already (nil: none yet).
    var after: HybridClock?
    /// Whether the history was compared with the state already (removals and pins, before the placement).
    var isCompared: Bool
    /// The devices the round's operations came from, as the history's changes name them.
    var devices: String
}

extension SyncState {
    private static let placementPrefix = "placement-"

    /// The placement under way, if any.
    func pendingPlacement() throws(SyncError) -> PendingPlacement? {
        let values = try metas(prefix: Self.placementPrefix)
        guard let devices = values["devices"] else { return nil }
        func clock(_ key: String) throws(SyncError) -> HybridClock? {
            guard let text = values[key], !text.isEmpty else { return nil }
            return try HybridClock(text: text)
        }
        return PendingPlacement(from: try clock("from"), after: try clock("after"), isCompared: values["compared"] == "1", devices: devices)
    }

    /// Records `placement` as under way (inside the caller's transaction when it is the take-in's).
    func savePendingPlacement(_ placement: PendingPlacement) throws(SyncError) {
        try setMeta(Self.placementPrefix + "from", placement.from?.text ?? "")
        try setMeta(Self.placementPrefix + "after", placement.after?.text ?? "")
        try setMeta(Self.placementPrefix + "compared", placement.isCompared ? "1" : "0")
        try setMeta(Self.placementPrefix + "devices", placement.devices)
    }

    /// Records how far the placement under way has come.
    func savePlacementProgress(after clock: HybridClock) throws(SyncError) {
        try setMeta(Self.placementPrefix + "after", clock.text)
    }

    /// Records that the placement under way is done.
    func clearPendingPlacement() throws(SyncError) {
        try run { try db.run("DELETE FROM meta WHERE substr(key, 1, ?) = ?", Self.placementPrefix.utf8.count, Self.placementPrefix) }
    }

    /// Moves the export's watermark over the items a placement just put in the history, when `placed` (the entries
    /// written with positions, in order) holds every position from `first` to `last` that the placement's import
    /// gave out, and the watermark stood right below `first`: the next export then does not read them again, one by
    /// one, only to find that sync put them there (a join of a million items would have them read again after every
    /// slice). When anything else came in between (a copy made meanwhile by another process), the watermark stays,
    /// and the export reads them as before.
    func advanceWatermark(placed: [Entry], first: Int64, last: Int64) throws(SyncError) {
        guard let top = placed.last, let position = top.position, position == last,
            Int64(placed.count) == last - first + 1,
            let watermark = Int64(try meta("watermark") ?? "0"), watermark == first - 1
        else { return }
        try saveWatermark(position, identity: top.identity)
    }

    /// Where the export's copies came up to: the item at `position`, `identity` (checked by
    /// `SyncEngine.startingPosition()`).
    func saveWatermark(_ position: Int64, identity: Data) throws(SyncError) {
        try setMeta("watermark", String(position))
        try setMeta("watermark-identity", Hex.encode(identity))
    }
}
