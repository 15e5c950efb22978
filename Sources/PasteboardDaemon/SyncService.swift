import FoundationEssentials
import PasteboardConfiguration
import PasteboardHistory
import PasteboardSync
import Synchronization
import SystemSupport

/// The daemon's side of sync (see docs/sync.md): when this device has joined a folder, it writes what happens in
/// the history to this device's log, applies what other devices wrote as it arrives (inotify on the folder and on
/// the store; no polling), asks Syncthing to rescan what it wrote when configured, and with `sync-clipboard = on`
/// puts an item copied on another device on this clipboard.
final class SyncService {
    private let engine: SyncEngine
    private let watcher: FolderWatcher
    private let rescan: SyncthingRescan?
    private let log: (String) -> Void
    private let store: HistoryStore
    private let location: StoreLocation
    /// Set once this device left the folder (`pb sync leave`): nothing more is written or applied.
    private var hasLeft = false
    /// Puts an item on this device's clipboard (the universal clipboard); nil when `sync-clipboard` is off.
    private let toClipboard: ((Int64) -> Void)?
    /// What was logged already: each rejection once, grouped by reason; the same warning at most every 10 minutes.
    private var warnings = SyncWarnings()
    /// Whether the folder changed while this device's copies were still being written out: applied once they are.
    private var folderChanged = false
    /// The turns a placement of arrived items has taken so far (logged when it took more than one).
    private var placementTurns = 0
    /// The snapshot being written on a thread of its own (a big one takes minutes), its outcome there once done.
    private var snapshot: SnapshotWriting?
    /// Other devices' snapshots being taken in on a thread of its own (a big one takes minutes): sync waits for it
    /// (the thread holds the engine's lock), capturing and serving go on.
    private var intake: IntakeWriting?
    /// Set when a take-in on its own thread failed: the next round takes in here, and reports what is wrong.
    private var intakesHere = false
    /// After a round failed with work left (a store that cannot be written, say): when slices go on. Not at once,
    /// which would retry the failure at every turn of the loop.
    private var retryAt: Date?

    /// How long work left after a failure waits before the next slice.
    static let retryDelay: TimeInterval = 10

    /// How long one turn of the daemon writes out copies, or puts arrived items in the history, at most: a first
    /// export of a big history, or joining one, is spread over many turns, and the daemon captures and serves the
    /// clipboard between them.
    static let slice = Duration.milliseconds(200)

    /// How long one turn may put arrived items in the history when the daemon asks, after each page of them,
    /// whether anything else waits for it (`yieldsWhen`). Each turn commits, and at a million items the keys of a
    /// turn's new items are spread over most pages of the two indexes of random keys (identities, payload hashes),
    /// which every commit writes out again: turns of up to a second placed a joined history of a million items in
    /// 28 s instead of 32 s (and in 31 s with a request to the daemon every second, each ending a turn).
    static let idleSlice = Duration.milliseconds(1000)

    /// Whether anything else waits for the daemon (a signal, a clipboard event, a request), asked after each page a
    /// placement puts in the history: set by the daemon for the length of a turn of its loop. While it is set, a
    /// turn may place for up to `idleSlice`, else `slice`.
    var yieldsWhen: (() -> Bool)?

    /// Snapshots to take in of at least this size (about 25,000 short items, a quarter of a second or more) are
    /// taken in on a thread of their own; smaller ones (and files that are not snapshots at all), here, at once.
    static let threadedIntakeBytes = 1 << 20

    /// Whether copies are left to write out, or arrived items to put in the history: the daemon calls
    /// `continueWork()` at its next turn.
    var hasMoreWork: Bool { !hasLeft && retryAt == nil && (engine.hasMoreLocalChanges || engine.hasPlacementLeft) }

    /// Whether a snapshot is being written or taken in on its thread.
    var isWorkingOnAThread: Bool { snapshot != nil || intake != nil }

    /// Frees the sync state's cache pages that nothing is using; a failure is logged (the memory stays, nothing else
    /// is lost).
    func releaseMemory() {
        do {
            try engine.releaseMemory()
        } catch {
            if let line = warnings.warning("sync: could not free the sync state's cache: \(error.message)") { log(line) }
        }
    }

    /// The next slice of a long export or placement, and the rest of the round once it is done.
    func continueWork() { run(Changes(folder: false, store: true)) }

    /// While a snapshot is being written or taken in: when to look whether it is done (`processTimeouts()`).
    /// After a failure with work left: when to go on.
    var nextDeadline: Date? { isWorkingOnAThread ? Date().addingTimeInterval(0.1) : retryAt }

    /// Completes the snapshot written or taken in meanwhile, once it is.
    func processTimeouts() {
        if let retryAt, Date() >= retryAt { self.retryAt = nil }
        collectSnapshot()
        if intake != nil { run(Changes(folder: false, store: false)) }
    }

    /// The service for `store`, or nil when this device does not sync.
    static func start(
        store: HistoryStore, location: StoreLocation, settings: SyncSettings, log: @escaping (String) -> Void,
        toClipboard: @escaping (Int64) -> Void
    ) throws(SyncError) -> SyncService? {
        guard let setup = try SyncSetup.load(for: location) else { return nil }
        let engine = try SyncEngine(store: store, location: location, setup: setup, settings: settings)
        let watcher = try FolderWatcher(folder: setup.folder, storeDirectory: location.directory)
        let service = SyncService(
            engine: engine, watcher: watcher, store: store, location: location, rescan: settings.syncthing.map(SyncthingRescan.init),
            log: log, toClipboard: settings.syncsClipboard ? toClipboard : nil)
        log("syncing with \(setup.folder.path) as device \(setup.device)")
        service.run(Changes(folder: true, store: true))
        return service
    }

    private typealias Changes = FolderWatcher.Changes

    private init(
        engine: SyncEngine, watcher: FolderWatcher, store: HistoryStore, location: StoreLocation, rescan: SyncthingRescan?,
        log: @escaping (String) -> Void, toClipboard: ((Int64) -> Void)?
    ) {
        self.engine = engine
        self.watcher = watcher
        self.store = store
        self.location = location
        self.rescan = rescan
        self.log = log
        self.toClipboard = toClipboard
    }

    var fileDescriptor: Int32 { watcher.fileDescriptor }

    /// Handles what the watcher saw.
    func processEvents() {
        let changes = watcher.take()
        if changes.folder || changes.store { run(changes) }
    }

    /// Asks Syncthing (when configured) to rescan what was written.
    private func rescanWritten(_ written: [String]) {
        guard let rescan else { return }
        for path in written {
            do {
                let status = try rescan.rescan(path)
                if status != 200 { log("Syncthing answered \(status) to the rescan of \(path)") }
            } catch {
                log("could not ask Syncthing to rescan \(path): \(error.message)")
            }
        }
    }

    private func run(_ changes: Changes) {
        guard !hasLeft else { return }
        retryAt = nil
        folderChanged = folderChanged || changes.folder
        // Nothing else of sync while other devices' snapshots are taken in on their thread.
        guard collectIntake() else { return }
        guard SyncSetup.isJoined(location) else {
            hasLeft = true
            log("sync: this device left the folder; syncing stopped")
            return
        }
        // Local changes first: what the user did here must be in the log before anything arriving can order
        // itself above it.
        do {
            var written = try engine.writeLocalChanges(deadline: .now + Self.slice)
            if engine.hasMoreLocalChanges {
                // Copies are left: neither a compaction nor a snapshot (due after so many) nor arrivals, which
                // must order themselves after everything copied here, until they are written.
                rescanWritten(written)
                return
            }
            // Neither a compaction nor another snapshot while one is being written: it removes the segments it
            // covers when it is done.
            collectSnapshot()
            if snapshot == nil {
                if let compaction = try engine.compactLog() {
                    written += [compaction.written] + compaction.removed
                    log("sync: compacted \(compaction.removed.count) segments of this device's log into one")
                    for line in warnings.rejections(compaction.quarantined) { log(line + "; quarantined, skipped from now on") }
                }
                if let job = try engine.snapshotJobIfDue() { startSnapshot(job) }
            }
            rescanWritten(written)
        } catch {
            if let line = warnings.warning("sync: could not write this device's changes: \(error.message)") { log(line) }
            if engine.hasMoreLocalChanges { retryAt = Date().addingTimeInterval(Self.retryDelay) }
        }
        // Local changes are written before each slice of a placement: a copy made here meanwhile is placed above
        // the arrived items older than it, by its clock.
        guard folderChanged || engine.hasPlacementLeft else { return }
        if folderChanged && !engine.hasPlacementLeft && !intakesHere {
            do {
                if try engine.snapshotBytesToTakeIn() >= Self.threadedIntakeBytes {
                    startIntake()
                    return
                }
            } catch {
                if let line = warnings.warning("sync: could not apply what arrived: \(error.message)") { log(line) }
                return
            }
        }
        intakesHere = false
        let wasChanged = folderChanged
        folderChanged = false
        let arrivals: SyncArrivals
        do {
            arrivals = try engine.applyArrivals(
                deadline: .now + (yieldsWhen == nil ? Self.slice : Self.idleSlice), yieldsWhen: yieldsWhen)
        } catch {
            if let line = warnings.warning("sync: could not apply what arrived: \(error.message)") { log(line) }
            if engine.hasPlacementLeft { retryAt = Date().addingTimeInterval(Self.retryDelay) }
            return
        }
        // A slice that only went on with an earlier placement has not read the folder yet.
        if !arrivals.hasReadFolder && wasChanged { folderChanged = true }
        placementTurns += 1
        if !arrivals.isPlacementLeft {
            if placementTurns > 1 { log("sync: put what arrived in the history over \(placementTurns) turns") }
            placementTurns = 0
        }
        if let problem = arrivals.keyProblem, let line = warnings.warning("sync: \(problem); see 'pb sync status'") { log(line) }
        for line in warnings.rejections(arrivals.rejected) { log(line) }
        if arrivals.operations > 0 { log("sync: applied \(arrivals.operations) operation\(arrivals.operations == 1 ? "" : "s")") }
        // Only when nothing copied here since is newer: the arriving copy is at the top of the history.
        if let toClipboard, let newest = arrivals.newestCopy {
            do {
                if try store.newestID() == newest.id { toClipboard(newest.id) }
            } catch {
                log("sync: could not read the history: \(error.message)")
            }
        }
    }

    // MARK: - Snapshots

    /// Takes the folder's snapshots in on a thread of its own (see `SyncEngine.takeInSnapshots`). Where no thread
    /// can be made, the round takes them in here.
    private func startIntake() {
        let writing = IntakeWriting()
        let (location, setup, settings) = (location, engine.setup, engine.settings)
        do {
            try DetachedThread.start(name: "pb-sync-intake") {
                let outcome = Result { () throws(SyncError) in try SyncEngine.takeInSnapshots(location: location, setup: setup, settings: settings) }
                writing.outcome.withLock { $0 = outcome }
            }
            intake = writing
        } catch {
            log("sync: taking in snapshots here, not on a thread of its own: \(error)")
            intakesHere = true
            run(Changes(folder: false, store: true))
        }
    }

    /// Whether no take-in is under way on its thread (any that was is taken up now).
    private func collectIntake() -> Bool {
        guard let writing = intake else { return true }
        guard let outcome = writing.outcome.withLock({ $0.take() }) else { return false }
        intake = nil
        do {
            let taken = try outcome.get()
            try engine.tookIn(taken)
            for line in warnings.rejections(taken.rejected) { log(line) }
            if taken.operations > 0 {
                log("sync: took in \(taken.operations) operations from snapshots\(taken.isPlacedStraight ? ", straight into the history" : "")")
            }
        } catch {
            if let line = warnings.warning("sync: could not take in the folder's snapshots: \(error.message)") { log(line) }
            intakesHere = true
        }
        return true
    }

    /// Writes the snapshot `job` describes on a thread of its own: the daemon captures, serves and syncs meanwhile
    /// (10 million items take three minutes). Where no thread can be made, here and now.
    private func startSnapshot(_ job: SnapshotJob) {
        let writing = SnapshotWriting()
        do {
            try DetachedThread.start(name: "pb-snapshot") {
                let outcome = Result { () throws(SyncError) in try SyncEngine.produceSnapshot(job) }
                writing.outcome.withLock { $0 = outcome }
            }
            snapshot = writing
        } catch {
            log("sync: writing the snapshot here, not on a thread of its own: \(error)")
            finish(Result { () throws(SyncError) in try SyncEngine.produceSnapshot(job) })
        }
    }

    /// Completes the snapshot being written, when it is done.
    private func collectSnapshot() {
        guard let writing = snapshot, let outcome = writing.outcome.withLock({ $0.take() }) else { return }
        snapshot = nil
        finish(outcome)
    }

    private func finish(_ outcome: Result<ProducedSnapshot, SyncError>) {
        do {
            guard let written = try engine.finishSnapshot(try outcome.get()) else {
                log("sync: the snapshot written meanwhile is not needed any more (the folder's key changed, or a newer one was written); removed")
                return
            }
            rescanWritten([written.path] + written.removed + written.removedPayloads + written.restoredPayloads)
            log(
                "sync: wrote a snapshot of the merged state; removed \(written.removed.count) files it covers and "
                    + "\(written.removedPayloads.count) payload files nothing refers to")
        } catch {
            if let line = warnings.warning("sync: could not write this device's snapshot: \(error.message)") { log(line) }
        }
    }
}

/// Where the snapshot thread leaves its outcome for the daemon's loop.
private final class SnapshotWriting: Sendable {
    let outcome = Mutex<Result<ProducedSnapshot, SyncError>?>(nil)
}

/// Where the take-in thread leaves its outcome for the daemon's loop.
private final class IntakeWriting: Sendable {
    let outcome = Mutex<Result<SnapshotIntake, SyncError>?>(nil)
}
