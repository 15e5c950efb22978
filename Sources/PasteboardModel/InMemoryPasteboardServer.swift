import Synchronization

/// Pasteboards that live in this process only: the default until a program installs a shared server.
public final class InMemoryPasteboardServer: PasteboardServer {
    private struct Board {
        var contents = PasteboardContents(items: [], changeCount: 0)
        var persistent: Bool
    }

    private struct State {
        var boards: [String: Board] = [:]
        var watchers: [String: [Int: AsyncStream<Int>.Continuation]] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func contents(of name: String) throws -> PasteboardContents {
        try state.withLock { state in
            if let board = state.boards[name] { return board.contents }
            if PasteboardName.isSystem(name) { return PasteboardContents(items: [], changeCount: 0) }
            throw PasteboardError(.noSuchPasteboard, "No pasteboard named '\(name)'.")
        }
    }

    public func changeCount(of name: String) throws -> Int { try contents(of: name).changeCount }

    public func write(_ items: [PasteboardItem], to name: String) throws -> Int {
        let (count, watchers) = state.withLock { state in
            var board = state.boards[name] ?? Board(persistent: true)
            board.contents.items = items
            board.contents.changeCount += 1
            state.boards[name] = board
            return (board.contents.changeCount, Array((state.watchers[name] ?? [:]).values))
        }
        for watcher in watchers { watcher.yield(count) }
        return count
    }

    public func create(_ name: String, persistent: Bool) throws {
        state.withLock { state in
            if state.boards[name] == nil { state.boards[name] = Board(persistent: persistent) }
        }
    }

    public func exists(_ name: String) throws -> Bool {
        state.withLock { $0.boards[name] != nil } || PasteboardName.isSystem(name)
    }

    public func isPersistent(_ name: String) throws -> Bool {
        state.withLock { $0.boards[name]?.persistent ?? true }
    }

    public func remove(_ name: String) throws {
        _ = state.withLock { $0.boards.removeValue(forKey: name) }
    }

    public func changes(of name: String) -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[name, default: [:]][id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.watchers[name]?.removeValue(forKey: id) }
        }
        return stream
    }
}
