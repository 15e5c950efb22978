import PasteboardHistory

/// A history store confined to one serial dispatch queue: a worker's own connection (SQLite WAL lets it read and
/// write beside the main thread's).
///
/// `@unchecked Sendable`: `store` is touched only by blocks running on `queue`, one at a time.
final class StoreBox: @unchecked Sendable {
    private let location: StoreLocation
    private var opened: HistoryStore?

    init(location: StoreLocation) { self.location = location }

    /// The store, opened on first use. Call only on the owning queue.
    func store() throws(AppError) -> HistoryStore {
        if let opened { return opened }
        do {
            let store = try HistoryStore(location: location)
            opened = store
            return store
        } catch {
            throw AppError(error.message)
        }
    }
}
