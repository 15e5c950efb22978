import FoundationEssentials
import PasteboardControl
import PasteboardHistory
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Follows the store's change feed and turns each new change into the event watchers see, whichever process made
/// it (this daemon's capture, `pb`, the app, `pb import`, a sync arrival, retention, expiry).
///
/// It learns that another process wrote the store from inotify on the store's directory (every commit writes the
/// write-ahead log), so nothing polls; the daemon's own writes are followed at once (`follow()` after them).
final class ChangeFollower {
    private let store: HistoryStore
    private let publish: (ControlEvent) -> Void
    private let log: (String) -> Void
    /// The last change turned into an event.
    private(set) var lastSequence: Int64
    /// The capture service's events for the copies it just recorded, richer than the feed (selection times,
    /// the owner change's time): used for their change instead of the one made from the store.
    private var captured: [Int64: ControlEvent] = [:]
    private let inotify: Int32

    init(store: HistoryStore, publish: @escaping (ControlEvent) -> Void, log: @escaping (String) -> Void)
        throws(DaemonError)
    {
        self.store = store
        self.publish = publish
        self.log = log
        do {
            lastSequence = try store.latestChangeSequence()
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            let cause = SystemError.last("inotify_init1")
            throw DaemonError("Cannot follow the history's changes (inotify): \(cause.reason).", cause: cause)
        }
        let directory = store.location.directory.path
        guard inotify_add_watch(inotify, directory, UInt32(IN_MODIFY)) >= 0 else {
            let cause = SystemError.last("inotify_add_watch")
            close(inotify)
            throw DaemonError("Cannot follow the history's changes in \(directory): \(cause.reason).", cause: cause)
        }
    }

    deinit { close(inotify) }

    /// Readable when some file of the store was written.
    var fileDescriptor: Int32 { inotify }

    /// Takes what inotify reported (only that something was written matters), then follows the feed.
    ///
    /// A writer's frames reach the write-ahead log (waking this loop) a moment before its commit is visible to
    /// readers (SQLite publishes it in the shared-memory index afterwards, which inotify does not see), so a wake
    /// that finds nothing new looks again a little later, a few times, rather than miss the last change of a burst.
    func processEvents() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
        let before = lastSequence
        follow()
        if lastSequence == before {
            rechecks = 0
            nextDeadline = Date().addingTimeInterval(Self.recheckDelays[0])
        }
    }

    /// How long after a wake that found nothing the feed is read again (then not until the next write).
    static let recheckDelays: [TimeInterval] = [0.01, 0.05, 0.25]
    private var rechecks = 0
    /// When the feed is read again after a wake that found nothing new.
    private(set) var nextDeadline: Date?

    func processTimeouts(now: Date) {
        guard let deadline = nextDeadline, now >= deadline else { return }
        let before = lastSequence
        follow()
        rechecks += 1
        if lastSequence == before, rechecks < Self.recheckDelays.count {
            nextDeadline = now.addingTimeInterval(Self.recheckDelays[rechecks])
        } else {
            nextDeadline = nil
        }
    }

    /// The capture service recorded a copy: its event stands for the change the record made.
    func recorded(_ event: ControlEvent) {
        if let id = event.id { captured[id] = event }
        follow()
    }

    /// Publishes every change after `lastSequence`.
    func follow() {
        defer { captured.removeAll() }
        do {
            while true {
                let changes = try store.changes(after: lastSequence, limit: 500)
                for change in changes {
                    publish(event(for: change))
                    lastSequence = change.sequence
                }
                if changes.count < 500 { return }
            }
        } catch {
            log("could not read the history's changes: \(error.message)")
        }
    }

    /// The events a watcher missed after `sequence`, oldest first; nil when the feed no longer goes back that far
    /// (or the watcher is too far behind to catch up event by event): it must reload.
    func events(after sequence: Int64, limit: Int) -> [ControlEvent]? {
        do {
            guard sequence <= lastSequence, try store.hasChanges(after: sequence) else { return nil }
            let changes = try store.changes(after: sequence, limit: limit + 1)
                .filter { $0.sequence <= lastSequence }  // newer ones are published as usual
            if changes.count > limit { return nil }
            return changes.map { event(for: $0) }
        } catch {
            log("could not read the history's changes: \(error.message)")
            return nil
        }
    }

    // MARK: - Events

    func event(for change: HistoryChange) -> ControlEvent {
        var event: ControlEvent
        switch change.kind {
        case .added, .repeated:
            if change.device == nil, let id = change.itemID, let recorded = captured.removeValue(forKey: id) {
                event = recorded
            } else {
                event = ControlEvent(change.device == nil ? .captured : .arrived, id: change.itemID)
                event.new = change.kind == .added
                describeItem(into: &event)
            }
        case .imported:
            event = ControlEvent(change.device == nil ? .imported : .arrived, id: change.itemID)
            if change.device != nil, change.count == 1, change.itemID != nil, change.itemID == change.lastItemID {
                event.new = true  // one item arrived: said as a copy is
                describeItem(into: &event)
            } else {
                event.lastID = change.lastItemID
                event.count = change.count
            }
        case .restored: event = ControlEvent(.restored, id: change.itemID)
        case .moved: event = ControlEvent(.moved, id: change.itemID)
        case .pinned: event = ControlEvent(.pinned, id: change.itemID)
        case .unpinned: event = ControlEvent(.unpinned, id: change.itemID)
        case .changed: event = ControlEvent(.changed, id: change.itemID)
        case .deleted:
            event = ControlEvent(.deleted, id: change.itemID)
            event.count = change.count
        case .cleared:
            event = ControlEvent(.cleared)
            event.count = change.count
            event.keptPinned = change.keptPinned
        case .expired: event = ControlEvent(.expired, id: change.itemID)
        case .pruned:
            event = ControlEvent(.pruned, id: change.itemID)
            event.count = change.count
        }
        event.seq = change.sequence
        event.device = change.device
        if event.time == nil { event.time = change.time.timeIntervalSince1970 }
        return event
    }

    /// What the store says of the item an event names (nothing when it is gone already).
    private func describeItem(into event: inout ControlEvent) {
        guard let id = event.id else { return }
        do {
            let item = try store.item(id: id)
            event.types = item.types.map(\.identifier)
            event.size = item.size
            event.source = item.source
            event.selection = item.selection
        } catch where error.code == .noSuchItem {
            return  // deleted since: the event says what happened, the item's own deletion follows
        } catch {
            log("could not read item \(id) for its event: \(error.message)")
        }
    }
}
