public import PasteboardModel
import Dispatch
import FoundationEssentials
import Synchronization
import SystemSupport

/// Pasteboards kept in the history store: the headless default, shared by every process of the user.
///
/// Writes to `general` are also recorded in the history.
/// ```swift
/// Pasteboard.sharedServer = StorePasteboardServer()
/// try Pasteboard.general.setString("hello")   // now visible to `pb paste` in any shell
/// ```
public final class StorePasteboardServer: PasteboardServer, @unchecked Sendable {
    // @unchecked Sendable: the non-Sendable store is only touched while `lock` is held.
    private let location: StoreLocation
    private let lock = Lock()
    private var store: HistoryStore?
    /// How often `changes(of:)` checks for writes by other processes.
    public let pollInterval: Duration
    /// Whether a write to `general` is also recorded in the history; the user's ignore rules say no to some.
    private let isRecorded: @Sendable ([PasteboardItem]) throws -> Bool

    /// `isRecorded` decides, for each write to `general`, whether the history records it too (the
    /// configuration's ignore rules: see `SystemPasteboardServer`); it may throw to refuse the write.
    public init(
        location: StoreLocation = .standard(), pollInterval: Duration = .milliseconds(200),
        isRecorded: @escaping @Sendable ([PasteboardItem]) throws -> Bool = { _ in true }
    ) {
        self.location = location
        self.pollInterval = pollInterval
        self.isRecorded = isRecorded
    }

    private func withStore<T>(_ body: (HistoryStore) throws -> T) throws -> T {
        try lock.withLock {
            if store == nil { store = try HistoryStore(location: location) }
            return try body(store!)
        }
    }

    public func contents(of name: String) throws -> PasteboardContents {
        try withStore { store in
            // The protocol promises `noSuchPasteboard`; the store can only report a `HistoryError`.
            guard try store.pasteboardExists(name) else {
                throw PasteboardError(.noSuchPasteboard, "No pasteboard named '\(name)'.")
            }
            return try store.pasteboardContents(name)
        }
    }

    public func changeCount(of name: String) throws -> Int {
        try withStore { try $0.pasteboardChangeCount(name) }
    }

    public func write(_ items: [PasteboardItem], to name: String) throws -> Int {
        try withStore { store in
            let recorded = name == PasteboardName.general.rawValue && !items.isEmpty ? try isRecorded(items) : false
            let history = recorded ? CaptureMetadata(selection: "headless") : nil
            return try store.writePasteboard(items, to: name, history: history).changeCount
        }
    }

    public func create(_ name: String, persistent: Bool) throws {
        try withStore { try $0.createPasteboard(name, persistent: persistent) }
    }

    public func exists(_ name: String) throws -> Bool {
        try withStore { try $0.pasteboardExists(name) }
    }

    public func isPersistent(_ name: String) throws -> Bool {
        try withStore { try $0.pasteboardIsPersistent(name) }
    }

    public func remove(_ name: String) throws {
        try withStore { try $0.removePasteboard(name) }
    }

    public func changes(of name: String) -> AsyncStream<Int> {
        let interval = pollInterval
        // The starting count is read now, not when the first check runs: a write in between would otherwise
        // become the starting point and never be reported.
        let last = Mutex((try? changeCount(of: name)) ?? 0)  // an unreadable store counts as unchanged
        return AsyncStream { continuation in
            // The checks run on a Dispatch timer, not in a task: a cooperative pool kept busy by its other work
            // (two threads on a two-core machine) must not hold back news of a write.
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
            let nanoseconds = Int(interval.components.seconds) * 1_000_000_000
                + Int(interval.components.attoseconds / 1_000_000_000)
            timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(max(1, nanoseconds)))
            timer.setEventHandler { [weak self] in
                guard let self else {
                    continuation.finish()
                    return
                }
                // A check that cannot read the store reports nothing; the next one tries again.
                guard let count = try? self.changeCount(of: name) else { return }
                let changed = last.withLock { previous in
                    guard previous != count else { return false }
                    previous = count
                    return true
                }
                if changed { continuation.yield(count) }
            }
            let source = TimerSource(timer)
            continuation.onTermination = { _ in source.cancel() }
            timer.resume()
        }
    }
}

/// A Dispatch timer handed to the stream's termination handler, which only cancels it (`cancel` may be called from
/// any thread).
private final class TimerSource: @unchecked Sendable {
    private let timer: any DispatchSourceTimer

    init(_ timer: any DispatchSourceTimer) { self.timer = timer }

    func cancel() { timer.cancel() }
}
