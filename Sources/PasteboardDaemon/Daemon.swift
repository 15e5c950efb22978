public import ClipboardBackend
import FoundationEssentials
import SystemSupport
public import PasteboardConfiguration
public import PasteboardControl
public import PasteboardHistory
import PasteboardModel
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The long-running `pb daemon`: with a display backend, its capture service records every copy, keeps the
/// clipboard alive and serves items; in any case it expires items on time, applies retention and answers clients
/// on the control socket. One thread, one `poll` loop; no wake-ups while idle.
public final class Daemon {
    public let location: StoreLocation
    public let runtime: RuntimeDirectory
    public private(set) var configuration: Configuration
    /// Reads the configuration file again, for `reload-config` (nil: the daemon has no file to read; set by `launch`).
    public var readConfiguration: (() throws(ConfigurationError) -> Configuration)?
    /// The display backend, or nil without a display (headless).
    public let backend: (any ClipboardBackend)?
    private let log: (String) -> Void
    private var store: HistoryStore?
    private var capture: CaptureService?
    private var server: ControlServer?
    private var pasteApproval: PasteApproval?
    private var sync: SyncService?
    /// Reads the text of image items in the background (nil with `ocr = off`).
    private var recognition: RecognitionService?
    /// The change feed's position the recognition worker was last woken for.
    private var recognitionSequence: Int64?
    /// Turns the store's change feed into events, whoever wrote the store.
    private var follower: ChangeFollower?
    private var running = true
    /// The last failure of a background checkpoint (on its own thread), logged by the loop's next turn.
    private let checkpointFailures = LastFailure()

    /// A message one thread leaves for another.
    private final class LastFailure: Sendable {
        let message = Mutex<String?>(nil)
    }
    /// How long the loop waits for a pause in copies before it purges what retention retired.
    static let purgeDelay: TimeInterval = 2
    /// Items, and bytes of their text, of an import's or a join's search backlog the loop indexes in one turn: a
    /// slice of about a fifth of a second, as long as a turn of sync's placement (`SyncService.slice`), so that a
    /// copy or a stop signal waits no longer than that (see `HistoryStore.indexBacklog(limit:bytes:waiting:)`).
    /// Each slice costs about 4 ms besides its items (its transaction, its statements), and the index segment it
    /// makes is merged with the others again and again, so small slices cost more per item: a daemon alone indexed
    /// a backlog of 1,000,000 short texts in 21.6 s with slices of 1,000 items, in 14.5 s with 4,000
    /// (bench/backlog_bench.py); after a join of 200,000 items it indexed them in 2.6–2.9 s with 16,000 against
    /// 4.4–5.1 s with 4,000 (bench/sync_bench.py's join), and slices of 64,000 gained nothing more.
    static let indexSliceItems = 16_000
    static let indexSliceBytes = 4 << 20
    /// How long the loop leaves the backlog alone after another process held the write lock, at most: it waits
    /// `indexFirstRetryDelay` first, twice as long after each refusal in a row (a checkpoint holds the lock for
    /// moments, an import for minutes). A second's wait after every refusal left the loop idle for a second now and
    /// then while it indexed a backlog (its own checkpoints): a million items took 20.0 s, 17.5 s with this and the
    /// larger slices (bench/backlog_bench.py, medians of 2).
    static let indexRetryDelay: TimeInterval = 1
    /// How soon a quiet turn looks whether the memory heavy work took can be given back.
    static let reliefCheckDelay: TimeInterval = 0.5
    static let indexFirstRetryDelay: TimeInterval = 0.05
    /// Not before this time does the loop try the backlog again (after it found the store busy).
    private var nextIndexAttempt = Date.distantPast
    private var indexRetry = RetryBackoff(first: Daemon.indexFirstRetryDelay, longest: Daemon.indexRetryDelay)
    /// Whether the loop's next timeout is the backlog's alone (no housekeeping is due then).
    private var isWaitingForIndexOnly = false
    /// Gives back what indexing and sync left in memory once they are done.
    private var relief = MemoryRelief()
    /// When housekeeping is due (an item expires, or deletions wait for their purge); nil when nothing is.
    private var housekeepingDue: Date?
    /// When the next blocks of the short-search letters are due (see `housekeeping`); nil when none is left.
    private var searchBlocksDue: Date?
    /// The change feed's last sequence when the blocks were last looked at (`noteSearchBlockWork`).
    private var searchBlocksSequence: Int64?
    /// When retention next looks at every item for `max-age` (after a copy it looks at the oldest only).
    private var nextThoroughRetention = Date()
    /// How often that is.
    static let thoroughRetentionInterval: TimeInterval = 3600

    public init(
        location: StoreLocation, runtime: RuntimeDirectory, configuration: Configuration = Configuration(),
        backend: (any ClipboardBackend)? = nil, log: @escaping (String) -> Void
    ) {
        self.location = location
        self.runtime = runtime
        self.configuration = configuration
        self.backend = backend
        self.log = log
    }

    /// The backend in use: `x11` or `headless`.
    public var backendName: String { backend?.name ?? "headless" }

    /// Starts, serves until SIGTERM/SIGINT or a `stop` request, then cleans up.
    public func run(onReady: () -> Void = {}) throws(DaemonError) {
        do {
            try runtime.prepare()
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        let lock = try InstanceLock(path: runtime.lockPath)
        defer { withExtendedLifetime(lock) {} }
        let store: HistoryStore
        do {
            store = try HistoryStore(location: location)
            // Applied after every capture, as after every `pb copy` (housekeeping only runs when the loop times out).
            if !configuration.retention.isUnlimited { store.retention = configuration.retention }
            // A captured copy's commit never waits for the write-ahead log to be copied and synced.
            let failures = checkpointFailures
            store.checkpointInBackground { error in failures.message.withLock { $0 = error.message } }
            self.store = store
            try housekeeping()
            let freed = try store.collectOrphanedFiles()
            if freed > 0 { log("removed \(freed) bytes of unreferenced payload files") }
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        let server = try ControlServer(path: runtime.socketPath, log: log)
        self.server = server
        let follower = try ChangeFollower(
            store: store, publish: { [weak server] event in server?.broadcast(event) }, log: log)
        self.follower = follower
        server.changes = (
            latest: { [weak follower] in follower?.lastSequence },
            missed: { [weak follower] since in follower?.events(after: since, limit: 5_000) }
        )
        // The capture service's `captured` event stands for its copy's change in the feed; its other events
        // (the clipboard emptied, a paste question) are not changes of the history.
        let publish: (ControlEvent) -> Void = { [weak server, weak follower] event in
            if event.event == .captured, event.id != nil {
                follower?.recorded(event)
            } else {
                server?.broadcast(event)
            }
        }
        // 0.4 s: room within the 1 s promise for a loaded machine to deliver the signal and reap the process.
        let deadline = try StopDeadline(grace: .milliseconds(400))
        defer { withExtendedLifetime(deadline) {} }
        let signals = try SignalPipe()
        if let backend {
            let capture = CaptureService(
                store: store, rules: configuration.capture, backend: backend, log: log, broadcast: publish)
            capture.pasteApprovalRules = configuration.pasteApproval
            self.capture = capture
            let approval = PasteApproval(
                store: store, backend: backend, timeout: configuration.pasteApproval.timeout, log: log,
                broadcast: { [weak server] event in server?.broadcast(event) },
                itemID: { [weak capture] selection in capture?.itemID(on: selection) },
                approverCount: { [weak server] in server?.approverCount ?? 0 })
            pasteApproval = approval
            backend.setPasteGate(approval)
            backend.enableReconnection()
            capture.start()
        }
        do {
            sync = try SyncService.start(
                store: store, location: location, settings: configuration.sync, log: log,
                toClipboard: { [weak self] id in self?.putOnClipboard(id) })
        } catch {
            log("sync is off: \(error.message)")
        }
        startRecognition()
        defer {
            recognition?.stop()
            recognition = nil
            backend?.setPasteGate(nil)
            pasteApproval = nil
            sync = nil
            capture = nil
            self.follower = nil
            self.server = nil
            self.store = nil
        }
        onReady()
        while running { try turn(signals: signals, server: server) }
        log("stopping")
    }

    // MARK: - The loop

    /// One turn of the loop: wait for input or the next deadline, then handle what came.
    private func turn(signals: SignalPipe, server: ControlServer) throws(DaemonError) {
        var fds = [pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        if let backend { fds.append(pollfd(fd: backend.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        let syncIndex = sync.map { _ in fds.count }
        if let sync { fds.append(pollfd(fd: sync.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        let followerIndex = follower.map { _ in fds.count }
        if let follower { fds.append(pollfd(fd: follower.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        let serverStart = fds.count
        fds += server.pollDescriptors
        // A signal, a clipboard event or a request ends a slice of sync's placement at its next page: while none
        // comes, a slice may go on longer (see `SyncService.idleSlice`).
        var waiting = Array(fds[0..<(backend == nil ? 1 : 2)]) + fds[serverStart...]
        sync?.yieldsWhen = { poll(&waiting, nfds_t(waiting.count), 0) > 0 }
        defer { sync?.yieldsWhen = nil }
        // Events the backend already read off its connection would not wake poll: handle them first, and only then
        // compute how long poll may wait, since they may set a deadline (a take-over after an owner left: computed
        // before, poll waited forever and the take-over never came).
        backend?.processEvents()
        let timeout = try millisecondsUntilNextDeadline()
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 {
            if errno == EINTR { return }
            let cause = SystemError.last("poll")
            throw DaemonError("The daemon's loop failed: \(cause.reason).", cause: cause)
        }
        if let failure = checkpointFailures.message.withLock({ $0.take() }) {
            log("could not checkpoint the write-ahead log: \(failure)")
        }
        defer {
            wakeRecognition()
            noteSearchBlockWork()
        }
        let now = Date()
        capture?.processTimeouts(now: now)
        backend?.processTimeouts(now: now)
        pasteApproval?.processTimeouts(now: now)
        follower?.processTimeouts(now: now)
        server.processTimeouts()
        if fds[0].revents != 0 {
            log("received signal \(signals.take().map(String.init) ?? "?")")
            running = false
            return
        }
        if ready == 0 {
            // Not for every timeout: the feed's short re-reads after a write must not purge at each copy.
            if !isWaitingForIndexOnly, let due = housekeepingDue, Date() >= due { try runHousekeeping() }
            indexBacklogSlice()
            sync?.processTimeouts()
            if sync?.hasMoreWork == true {
                sync?.continueWork()
                relief.noteWork()
            }
            if sync?.isWorkingOnAThread == true { relief.noteWork() }
            follower?.follow()
            relieveMemoryWhenIdle()
            return
        }
        if backend != nil && fds[1].revents != 0 { backend?.processEvents() }
        if let syncIndex, fds[syncIndex].revents != 0 { sync?.processEvents() }
        if let followerIndex, fds[followerIndex].revents != 0 { follower?.processEvents() }
        server.service(fds[serverStart...]) { request in handle(request) }
        // What this turn changed in the store (a sync arrival, a request's deletion, housekeeping) is published
        // now; another process's change wakes the loop through the follower's descriptor.
        follower?.follow()
        // An app that went away leaves its questions to nobody: they are refused now, not at their deadline.
        pasteApproval?.processTimeouts(now: Date())
    }

    /// Starts the text recognition worker when the configuration asks for it.
    private func startRecognition() {
        guard configuration.textRecognition.isEnabled else { return }
        do {
            recognition = try RecognitionService.start(location: location, settings: configuration.textRecognition)
            recognitionSequence = nil
        } catch {
            log("text recognition is off: \(error)")
        }
    }

    /// Wakes the recognition worker when the change feed moved (a capture, an import, a sync arrival): it looks for
    /// image items it has not read.
    private func wakeRecognition() {
        guard let recognition else { return }
        for message in recognition.takeMessages() { log(message) }
        let sequence = follower?.lastSequence
        if sequence != recognitionSequence {
            recognitionSequence = sequence
            recognition.wake()
        }
    }

    /// When the change feed moved (a delete by another process makes a block's letters unknown), looks whether the
    /// short-search blocks have work, and if so makes housekeeping due in a second (see `housekeeping`).
    private func noteSearchBlockWork() {
        guard let store, searchBlocksDue == nil else { return }
        let sequence = follower?.lastSequence
        guard sequence != searchBlocksSequence else { return }
        searchBlocksSequence = sequence
        switch Result(catching: { () throws(HistoryError) in try store.hasSearchBlockWork() }) {
        case .success(true): searchBlocksDue = Date().addingTimeInterval(1)
        case .success(false): break
        case .failure: break  // the next turn's own store access reports what is wrong
        }
    }

    /// How long poll may wait: until the next item expires, or the backend or capture service has work.
    private func millisecondsUntilNextDeadline() throws(DaemonError) -> Int32 {
        var deadlines: [Date] = []
        var housekeeping: [Date] = []
        do {
            if let next = try store?.nextExpiry() { housekeeping.append(next) }
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        if configuration.retention.hasAgeLimit { housekeeping.append(nextThoroughRetention) }
        // Items retention retired after a copy are wiped once copies pause (see `HistoryStore.purge()`).
        if store?.hasUnpurgedDeletions == true { housekeeping.append(Date().addingTimeInterval(Self.purgeDelay)) }
        if let searchBlocksDue { housekeeping.append(searchBlocksDue) }
        housekeepingDue = housekeeping.min()
        deadlines += housekeeping
        if let next = backend?.nextDeadline { deadlines.append(next) }
        if let next = capture?.nextDeadline { deadlines.append(next) }
        if let next = pasteApproval?.nextDeadline { deadlines.append(next) }
        if let next = follower?.nextDeadline { deadlines.append(next) }
        if let next = server?.nextDeadline {
            let wait = (next - .now).components
            deadlines.append(Date().addingTimeInterval(Double(wait.seconds) + Double(wait.attoseconds) * 1e-18))
        }
        // A long export's next slice, at once (after the events this turn has).
        if sync?.hasMoreWork == true { deadlines.append(Date()) }
        // A snapshot written on its own thread: looked at ten times a second until it is done.
        if let next = sync?.nextDeadline { deadlines.append(next) }
        // Heavy work ran and its memory is not given back yet: a quiet turn comes, where `relieveMemoryWhenIdle`
        // looks again (the last of the work may have ended in a turn of events, after which nothing else wakes the
        // loop: a join taken straight into the history on its thread, indexed meanwhile).
        if relief.hasWorked { deadlines.append(Date().addingTimeInterval(Self.reliefCheckDelay)) }
        // An import's backlog is indexed a slice per turn, between the events (see `indexBacklogSlice`).
        let otherwise = deadlines.min()
        isWaitingForIndexOnly = false
        if hasSearchBacklog(), otherwise.map({ nextIndexAttempt < $0 }) ?? true {
            deadlines.append(nextIndexAttempt)
            isWaitingForIndexOnly = true
        }
        guard let next = deadlines.min() else { return -1 }
        return Int32(max(0, min(next.timeIntervalSinceNow * 1000 + 1, Double(Int32.max))))
    }

    /// Whether some items are not in the search index yet (an import's backlog); false when the store cannot tell.
    private func hasSearchBacklog() -> Bool {
        guard let store else { return false }
        switch Result(catching: { () throws(HistoryError) in try store.hasSearchBacklog() }) {
        case .success(let pending): return pending
        case .failure: return false  // the next turn's own store access reports what is wrong
        }
    }

    /// Indexes one slice of the search backlog, without waiting for another writer (an import still running keeps
    /// the lock: the loop tries again after `indexRetry`'s wait, 50 ms to 1 s).
    private func indexBacklogSlice() {
        guard let store, Date() >= nextIndexAttempt, hasSearchBacklog() else { return }
        relief.noteWork()
        do {
            try store.indexBacklog(limit: Self.indexSliceItems, bytes: Self.indexSliceBytes, waiting: false)
            indexRetry.succeeded()
        } catch where error.code == .busy {
            nextIndexAttempt = Date().addingTimeInterval(indexRetry.refused())
        } catch {
            log("could not index imported items yet: \(error.message)")
            nextIndexAttempt = Date().addingTimeInterval(Self.indexRetryDelay * 10)
        }
    }

    /// Once no indexing or sync work is left after some ran: frees the caches and glibc's free memory.
    private func relieveMemoryWhenIdle() {
        guard relief.hasWorked, !hasSearchBacklog(), sync?.hasMoreWork != true, sync?.isWorkingOnAThread != true else { return }
        let line = relief.relieve {
            if let store {
                do throws(HistoryError) {
                    try store.releaseMemory()
                } catch {
                    log("could not free the history's cache: \(error.message)")
                }
            }
            sync?.releaseMemory()
        }
        if let line { log(line) }
    }

    private func runHousekeeping() throws(DaemonError) {
        do {
            try housekeeping()
        } catch {
            throw DaemonError(error.message, cause: error)
        }
    }

    /// Removes expired items and applies retention; wipes what earlier deletions left behind (see
    /// `HistoryStore.purge()`).
    func housekeeping() throws(HistoryError) {
        guard let store else { return }
        let expired = try store.deleteExpiredItems()
        if !expired.isEmpty {
            log("expired \(expired.count) item\(expired.count == 1 ? "" : "s")")
            // Never served again, even when the selection's own timer has not run out yet.
            capture?.forget(ids: expired)
        }
        let retention = configuration.retention
        if !retention.isUnlimited {
            // Every item for max-age hourly (and at the start, and when the configuration is read again); otherwise
            // the counts and the oldest items only, which cost the same at any size.
            let now = Date()
            let thorough = now >= nextThoroughRetention
            if thorough { nextThoroughRetention = now.addingTimeInterval(Self.thoroughRetentionInterval) }
            let dropped = try store.applyRetention(retention, now: now, thorough: thorough)
            if dropped > 0 { log("retention removed \(dropped) item\(dropped == 1 ? "" : "s")") }
        }
        if store.hasUnpurgedDeletions {
            // Another process reading for a long time is no reason to stop: the next round tries again.
            do {
                try store.purge()
            } catch {
                log("could not wipe deleted items yet: \(error.message)")
            }
        }
        // The blocks a delete left unknown (and a store's blocks from before schema 9) learn their letters, so that
        // short searches skip them (see HistoryStore+SearchBlocks.swift); a pass a second until none is left.
        do {
            try store.refreshSearchBlocks(limit: Self.searchBlocksPerPass, waiting: false)
            searchBlocksDue = try store.hasSearchBlockWork() ? Date().addingTimeInterval(1) : nil
        } catch where error.code == .busy {
            searchBlocksDue = Date().addingTimeInterval(Self.indexRetryDelay)  // another writer: later
        } catch {
            log("could not update the short-search blocks yet: \(error.message)")
            searchBlocksDue = Date().addingTimeInterval(60)
        }
    }

    /// Blocks of the history whose letters one housekeeping pass computes at most (a few ms each: the write lock is
    /// held for well under a tenth of a second).
    static let searchBlocksPerPass = 16

    // MARK: - Requests

    /// Answers one request (`watch` is the server's own).
    func handle(_ request: ControlRequest) -> ControlReply {
        switch request {
        case .ping:
            var reply = ControlReply()
            reply.pid = getpid()
            reply.protocol = ControlProtocol.version
            return reply
        case .status:
            var reply = ControlReply()
            reply.pid = getpid()
            reply.protocol = ControlProtocol.version
            reply.backend = backendName
            reply.store = location.databaseURL.path
            reply.socket = runtime.socketPath
            reply.approvers = server?.approverCount ?? 0
            reply.pasteGating = (backend?.pasteGating ?? .unsupported).rawValue
            reply.backendProblem = backend?.problem
            reply.backendSummary = backend?.summary
            do {
                reply.items = try store?.count()
            } catch {
                return .failure("The store cannot be read: \(error.message)")
            }
            return reply
        case .notify(var event):
            // A change of the history reaches watchers from the store's change feed, whoever made it (an older
            // client still announcing its pin or delete would send it twice); other news is passed on.
            if ControlEvent.Name.historyChanges.contains(event.event) {
                return ControlReply()
            }
            event.time = Date().timeIntervalSince1970
            server?.broadcast(event)
            return ControlReply()
        case .restore(let id, let once, let expire, let plain):
            guard let capture else {
                // Headless, the clipboard is the store's general pasteboard, which the client writes itself;
                // the item must still exist, or the client would believe a restore that never happened.
                do {
                    _ = try store?.item(id: id)
                } catch {
                    return .failure(error.message)
                }
                var reply = ControlReply()
                reply.backend = "headless"
                return reply
            }
            do {
                try capture.restore(id: id, once: once, expireAfter: expire, plain: plain)
                return ControlReply()
            } catch {
                return .failure(error.message)
            }
        case .stack(let ids):
            guard let capture else {
                return .failure(
                    "A paste stack needs the daemon on a display: with no display, there are no pastes to count.")
            }
            do {
                try capture.stack(ids: ids)
                return ControlReply()
            } catch {
                return .failure(error.message)
            }
        case .reloadConfiguration:
            guard let readConfiguration else { return .failure("this daemon was started without a configuration file") }
            let fresh: Configuration
            do {
                fresh = try readConfiguration()
            } catch {
                return .failure(error.message)
            }
            let recognitionChanged = fresh.textRecognition != configuration.textRecognition
            configuration = fresh
            nextThoroughRetention = Date()
            if recognitionChanged {
                // `ocr` and `ocr-languages` take effect now: the worker stops (its picture abandoned, read again by
                // the next one) and starts again with the new settings, when on.
                recognition?.stop()
                recognition = nil
                startRecognition()
                wakeRecognition()
            }
            store?.retention = fresh.retention.isUnlimited ? nil : fresh.retention
            capture?.rules = fresh.capture
            capture?.pasteApprovalRules = fresh.pasteApproval
            log("configuration read again")
            do {
                try housekeeping()
                return ControlReply()
            } catch {
                return .failure(error.message)
            }
        case .reschedule:
            do {
                try housekeeping()
                return ControlReply()
            } catch {
                return .failure(error.message)
            }
        case .clear:
            guard let capture else { return .failure("no display backend") }
            capture.clear()
            return ControlReply()
        case .forget(let ids):
            var reply = ControlReply()
            guard let capture else {
                // Headless, the clipboard is in the store, which the deleting client emptied itself.
                reply.backend = "headless"
                reply.cleared = false
                return reply
            }
            reply.cleared = capture.forget(ids: ids)
            return reply
        case .stop:
            running = false
            return ControlReply()
        case .answerPaste(let request, let allow):
            guard let pasteApproval else { return .failure("No paste is waiting: the daemon has no display backend.") }
            do {
                try pasteApproval.answer(request, allow: allow)
                return ControlReply()
            } catch {
                return .failure(error.message)
            }
        case .paste(let key):
            guard let typing = backend as? any PasteTyping else {
                return .failure(
                    "The daemon's \(backendName) backend cannot type keys: paste with the keys yourself, or use "
                        + "--paste where pb can type (X11, sway, KWin, GNOME with the Pasteboard Shell extension).")
            }
            do {
                try typing.typePaste(key)
                return ControlReply()
            } catch {
                return .failure(error.message)
            }
        case .watch, .approve:
            return .failure("\(request.command) is handled by the server")
        }
    }
}

extension Daemon {
    /// The universal clipboard: an item copied on another device becomes this clipboard (`sync-clipboard = on`).
    func putOnClipboard(_ id: Int64) {
        do {
            if let capture {
                try capture.restore(id: id, once: false, expireAfter: nil)
            } else if let store {
                try store.writePasteboard([try store.pasteboardItem(id: id)], to: PasteboardName.general.rawValue)
            }
            log("sync: item \(id) from another device is now the clipboard")
        } catch {
            log("sync: could not put item \(id) on the clipboard: \(error)")
        }
    }
}
