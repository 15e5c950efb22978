import FoundationEssentials
public import PasteboardConfiguration
public import PasteboardHistory
import PasteboardModel

/// Syncs one store with one folder: writes what happens here to this device's log (`writeLocalChanges()`), and
/// applies what other devices wrote (`applyArrivals()`). Both are idempotent and safe to call at any time; the
/// daemon calls them when the store or the folder changes.
///
/// ```swift
/// let engine = try SyncEngine(store: store, location: location, setup: setup, settings: configuration.sync)
/// let written = try engine.writeLocalChanges()   // paths written into the folder
/// let arrived = try engine.applyArrivals()
/// ```
public final class SyncEngine {
    let store: HistoryStore
    public internal(set) var setup: SyncSetup
    public var settings: SyncSettings
    let folder: SyncFolder
    let state: SyncState
    let directory: URL
    var clock: ClockSource
    /// Whether the last `writeLocalChanges(limit:)` stopped at its limit with copies left to write: the caller calls
    /// it again (the daemon, at its next turn) before anything else of the round (see `writeLocalChanges`).
    public internal(set) var hasMoreLocalChanges = false
    /// Whether the last `applyArrivals(deadline:)` stopped at its deadline with items to put in the history (or the
    /// process ended during one): the caller calls it again (the daemon, at its next turn).
    public internal(set) var hasPlacementLeft = false
    /// The newest item another device copied that the slices of a placement put in the history so far.
    var placedNewest: (id: Int64, date: Date)?
    /// The history's identities and payload hashes in filters, kept from one page (and one daemon turn) of a large
    /// placement to the next (see `KnownKeys`); dropped, and its memory given back, when the placement is done.
    var knownKeys: KnownKeys?
    /// A whole comparison of the history with the sync state cut at a deadline (see `writeLocalChanges`): the
    /// identity it goes on after, and the end of the change feed when it began.
    var comparison: (after: Data, feedEnd: Int64)?

    public init(store: HistoryStore, location: StoreLocation, setup: SyncSetup, settings: SyncSettings) throws(SyncError) {
        self.store = store
        self.setup = setup
        self.settings = settings
        self.folder = SyncFolder(root: setup.folder)
        self.directory = SyncSetup.directory(for: location)
        self.state = try SyncState(directory: directory)
        let last = try state.meta("clock").flatMap { text throws(SyncError) in try HybridClock(text: text) }
        self.clock = ClockSource(device: setup.device, last: last)
        self.hasPlacementLeft = try state.pendingPlacement() != nil
    }

    var staging: AtomicFile { AtomicFile(staging: directory.appendingPathComponent("staging")) }

    func withLock<T>(_ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        let lock = try FileLock(path: directory.appendingPathComponent("lock").path)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    /// Frees the pages of the sync state's cache that nothing is using (after a join, up to 16 MiB).
    public func releaseMemory() throws(SyncError) {
        try state.releaseMemory()
    }

    func saveClock() throws(SyncError) {
        if let last = clock.last { try state.setMeta("clock", last.text) }
    }

    /// Runs `body` as one transaction of the store and one of the sync state: a batch of changes lands whole.
    /// (With `includingStore` false, only the sync state's: for a step that only reads the history.)
    func batch<T>(includingStore: Bool = true, _ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        do {
            if !includingStore { return try state.db.transaction { try body() } }
            return try store.transaction { try state.db.transaction { try body() } }
        } catch let error as SyncError {
            throw error
        } catch let error as HistoryError {
            throw SyncError(.io, "The history store: \(error.message)", cause: error)
        } catch {
            throw SyncError(.io, "The sync state could not be updated: \(error)", cause: error)
        }
    }

    /// Runs `body` translating store errors into sync errors that say so.
    func inStore<T>(_ body: () throws(HistoryError) -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            throw SyncError(.io, "The history store: \(error.message)", cause: error)
        }
    }
}

/// An engine is confined to one thread, as its store is.
@available(*, unavailable)
extension SyncEngine: Sendable {}
