public import PasteboardModel
import Foundation

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
    private let lock = NSLock()
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
        lock.lock()
        defer { lock.unlock() }
        if store == nil { store = try HistoryStore(location: location) }
        return try body(store!)
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
        // The starting count is read now, not when the polling task first runs: a write in between would
        // otherwise become the starting point and never be reported.
        let initial = (try? changeCount(of: name)) ?? 0
        return AsyncStream { continuation in
            let task = Task { [weak self] in
                var last = initial
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self else { break }
                    if let count = try? self.changeCount(of: name), count != last {
                        last = count
                        continuation.yield(count)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
