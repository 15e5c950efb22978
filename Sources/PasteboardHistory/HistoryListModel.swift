import Dispatch
import FoundationEssentials
import Synchronization

/// The list of the history that a window, a popup or the terminal picker shows, read and searched on a thread of its
/// own, with its own store connection: no key typed into a search field waits for the store.
///
/// - A newer query (`search(_:limit:)`, `reload(limit:)`) cancels the one running: it stops at SQLite's next
///   progress check (`Connection.stopping(when:)`) and its results are never delivered.
/// - Pages are read by position (keyset, `HistoryStore.page(_:below:limit:)`): `more(limit:)` goes on below the last
///   row delivered, never from the top.
/// - A search that reads items one by one (a letter or two, a regex, a fuzzy pattern) delivers what it found after
///   `firstSlice`, even nothing, so the list shows the new query at once, then goes on in the background and
///   delivers more rows as it finds them, until it has `limit`.
///
/// Updates reach `deliver` on the model's thread, in order; the caller hands them to its own loop, and drops any whose
/// `generation` is older than `generation` there (one may have been on its way when a newer query started).
public final class HistoryListModel: Sendable {
    /// Rows for the list, from the model's thread.
    public struct Update: Sendable {
        /// The query they belong to: the value `search` or `reload` returned.
        public let generation: Int
        public let filter: HistoryFilter
        /// Where `items` go: 0 replaces the list (the first rows of a query); otherwise they follow the rows already
        /// delivered for this generation.
        public let start: Int
        public let items: [HistoryItem]
        /// Whether the query is still looking for the rows asked for (more updates will come).
        public let isSearching: Bool
        /// Whether every match has been delivered.
        public let isComplete: Bool
        /// Where more matches start (below this position), once the query has stopped with more left.
        public let next: Int64?
        /// Why the query stopped, if it failed.
        public let error: HistoryError?
        /// Whether the query was a reload (`reload(limit:)`): the list should keep its selection.
        public let isReload: Bool
    }

    /// How long the first step of a slow search runs before its first rows are delivered anyway.
    public static let firstSlice: Duration = .milliseconds(15)
    /// How long each later step runs between deliveries.
    public static let laterSlice: Duration = .milliseconds(120)

    private struct State {
        var generation = 0
        var filter = HistoryFilter()
    }

    private let queue: DispatchQueue
    private let state = Mutex(State())
    /// The generation queries check to tell whether they are still wanted (read by SQLite's progress handler).
    private let current = Atomic<Int>(0)
    private let store: StoreConnection
    private let deliver: @Sendable (Update) -> Void

    /// - Parameters:
    ///   - location: the store to read; the model opens its own connection on its thread, at the first query.
    ///   - deliver: called on the model's thread with each update.
    public init(location: StoreLocation, label: String = "pasteboard.list", deliver: @escaping @Sendable (Update) -> Void) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        store = StoreConnection(location: location)
        self.deliver = deliver
    }

    /// The newest query's generation.
    public var generation: Int { current.load(ordering: .acquiring) }

    /// The filter of the newest query.
    public var filter: HistoryFilter { state.withLock { $0.filter } }

    /// Starts listing `filter`'s first `limit` matches, cancelling whatever ran; returns the new generation.
    @discardableResult
    public func search(_ filter: HistoryFilter, limit: Int) -> Int {
        start(filter, limit: limit, isReload: false)
    }

    /// Runs the current query (or `filter`) again from the top, for at least `limit` rows (the rows the list holds, so
    /// that it keeps its place), cancelling whatever ran: what a view does when the history changed under it
    /// ("something changed since N"). The list should keep its selection (`Update.isReload`).
    @discardableResult
    public func reload(limit: Int, filter: HistoryFilter? = nil) -> Int {
        start(filter ?? self.filter, limit: limit, isReload: true)
    }

    /// Reads up to `limit` more rows of `filter` below position `below` (the last row the list has, which is row
    /// `start - 1`), cancelling whatever ran; returns the new generation. The rows arrive as updates whose `start` is
    /// `start`.
    @discardableResult
    public func search(_ filter: HistoryFilter, below: Int64, start: Int, limit: Int) -> Int {
        self.start(filter, below: below, at: start, limit: limit, isReload: false)
    }

    /// Stops the running query; its rows are not delivered.
    public func cancel() {
        state.withLock { state in
            state.generation += 1
            current.store(state.generation, ordering: .releasing)
        }
    }

    private func start(
        _ filter: HistoryFilter, below: Int64? = nil, at start: Int = 0, limit: Int, isReload: Bool
    ) -> Int {
        let generation = state.withLock { state in
            state.generation += 1
            state.filter = filter
            current.store(state.generation, ordering: .releasing)
            return state.generation
        }
        schedule(
            Job(generation: generation, filter: filter, start: start, below: below, remaining: max(1, limit),
                isReload: isReload, slice: Self.firstSlice, hasDelivered: start > 0))
        return generation
    }

    /// One step of a query: where it goes on, and for how long.
    private struct Job: Sendable {
        let generation: Int
        let filter: HistoryFilter
        /// The list position of the first row this step finds.
        var start: Int
        var below: Int64?
        /// Rows still to find.
        var remaining: Int
        let isReload: Bool
        var slice: Duration
        /// Whether this generation's list has been delivered at least once (a new query's first step must deliver).
        var hasDelivered: Bool
    }

    private func schedule(_ job: Job) {
        queue.async { [self] in step(job) }
    }

    /// Reads rows for `job` for one slice of time. Done (all the rows asked for, the last match, or a failure): the
    /// last update. Cut short: the rows found so far are delivered (the first time even none, so the list shows the
    /// new query at once) and the next step is queued behind any newer work.
    private func step(_ job: Job) {
        let generation = job.generation
        let isCancelled: @Sendable () -> Bool = { [self] in current.load(ordering: .relaxed) != generation }
        guard !isCancelled() else { return }
        let page: HistoryPage
        do {
            page = try store.open().page(
                job.filter, below: job.below, limit: job.remaining, until: .now + job.slice, isCancelled: isCancelled)
        } catch where error.code == .cancelled {
            return
        } catch {
            finish(job, items: [], next: nil, error: error)
            return
        }
        if page.next == nil || page.items.count >= job.remaining {
            finish(job, items: page.items, next: page.next, error: nil)
            return
        }
        var next = job
        if !job.hasDelivered || !page.items.isEmpty {
            guard isCurrent(generation) else { return }
            deliver(
                Update(
                    generation: generation, filter: job.filter, start: job.start, items: page.items, isSearching: true,
                    isComplete: false, next: nil, error: nil, isReload: job.isReload))
            next.hasDelivered = true
        }
        next.start += page.items.count
        next.remaining -= page.items.count
        next.below = page.next
        next.slice = Self.laterSlice
        schedule(next)
    }

    /// Delivers the last rows of a step: the query has what it was asked for, or found every match, or failed.
    private func finish(_ job: Job, items: [HistoryItem], next: Int64?, error: HistoryError?) {
        guard isCurrent(job.generation) else { return }
        deliver(
            Update(
                generation: job.generation, filter: job.filter, start: job.start, items: items, isSearching: false,
                isComplete: next == nil, next: next, error: error, isReload: job.isReload))
    }

    /// Whether `generation` is still the newest query (else its rows are not delivered).
    private func isCurrent(_ generation: Int) -> Bool {
        state.withLock { $0.generation == generation }
    }
}

/// A store connection opened on first use and used only on the model's queue.
///
/// `@unchecked Sendable`: `opened` is touched only by blocks running on that queue, one at a time.
final class StoreConnection: @unchecked Sendable {
    private let location: StoreLocation
    private var opened: HistoryStore?

    init(location: StoreLocation) { self.location = location }

    func open() throws(HistoryError) -> HistoryStore {
        if let opened { return opened }
        let store = try HistoryStore(location: location)
        opened = store
        return store
    }
}
