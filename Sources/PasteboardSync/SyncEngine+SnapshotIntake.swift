public import FoundationEssentials
public import PasteboardConfiguration
public import PasteboardHistory

/// What `SyncEngine.takeInSnapshots(location:setup:settings:)` took in, for `SyncEngine.tookIn(_:)`.
public struct SnapshotIntake: Sendable {
    /// Operations taken in.
    public var operations = 0
    /// Snapshots rejected, with why.
    public var rejected: [String] = []
    /// Whether the newest snapshot went straight into the history (a device joining with an empty history).
    public var isPlacedStraight = false
    /// The newest clock reading taken in, which the engine's clock must not fall behind.
    var newestClock: HybridClock?
}

extension SyncEngine {
    /// The bytes of the other devices' snapshots this device has not looked at as they are now (cheap: each file's
    /// size and time against what the sync state noted); 0 when there are none.
    public func snapshotBytesToTakeIn() throws(SyncError) -> Int {
        var bytes = 0
        for path in folder.snapshotPaths() {
            guard let place = SyncFolder.parseSnapshotPath(path), place.device != setup.device,
                let attributes = folder.attributes(path)
            else { continue }
            if let known = try state.file(path), known.size == attributes.size, known.modified == attributes.modified { continue }
            bytes += max(attributes.size, 1)
        }
        return bytes
    }

    /// Takes the folder's snapshots into the sync state of the store at `location` (see `takeInSnapshots(into:)`),
    /// through an engine and connections of its own, so that it runs on a thread of its own: a snapshot of
    /// millions of items takes minutes. The items are put in the history afterwards, by the engine's next
    /// `applyArrivals` (the placement is recorded with the take-in). Meanwhile the caller makes no other call into
    /// its own engine (this one holds the engine's lock), then calls its `tookIn(_:)`.
    public static func takeInSnapshots(location: StoreLocation, setup: SyncSetup, settings: SyncSettings, now: Date = Date())
        throws(SyncError) -> SnapshotIntake
    {
        let store: HistoryStore
        do {
            store = try HistoryStore(location: location)
        } catch {
            throw SyncError(.io, "The history store: \(error.message)", cause: error)
        }
        let engine = try SyncEngine(store: store, location: location, setup: setup, settings: settings)
        return try engine.withLock { () throws(SyncError) -> SnapshotIntake in
            var result = SnapshotIntake()
            // A device joining with an empty history takes the newest snapshot straight into it (see
            // SyncEngine+StraightJoin.swift); any other snapshot is taken in as below.
            if try engine.canJoinStraight() {
                result.operations = try engine.joinStraight(rejected: &result.rejected, now: now)
                result.isPlacedStraight = result.operations > 0
            }
            var intake = Intake(clears: try engine.state.clears())
            intake.startedEmpty = try engine.state.hasNoEntries()
            try engine.state.transaction {
                try engine.takeInSnapshots(into: &intake, rejected: &result.rejected, now: now)
                try engine.state.save(intake.clears)
                guard intake.operations > 0 else { return }
                // Placed by the engine's next round, which compares the whole history first (what this take-in
                // touched is not kept). One left unfinished is started again from the earlier of the two copies.
                let left = try engine.state.pendingPlacement()
                var devices = intake.devices
                for device in left?.devices.split(separator: ",") ?? [] where device != "sync" { devices.insert(String(device)) }
                try engine.state.savePendingPlacement(
                    PendingPlacement(
                        from: [left?.from, intake.earliestCopy].compactMap { $0 }.min(), after: nil, isCompared: false,
                        devices: devices.isEmpty ? "sync" : devices.sorted().joined(separator: ",")))
            }
            try engine.saveClock()
            result.operations += intake.operations
            result.newestClock = engine.clock.last
            return result
        }
    }

    /// Takes up what `takeInSnapshots(location:setup:settings:)` did on another thread: the clock, and the placement
    /// it left for the next `applyArrivals`.
    public func tookIn(_ intake: SnapshotIntake) throws(SyncError) {
        if let newest = intake.newestClock { clock.observe(newest) }
        hasPlacementLeft = try state.pendingPlacement() != nil
    }
}
