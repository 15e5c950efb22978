import SQLiteSupport

extension HistoryStore {
    /// Moves this store's write-ahead-log checkpoints off its commits onto a thread of their own (see
    /// `SQLiteSupport.BackgroundCheckpointer`), for a process whose commits someone waits for: the daemon, whose
    /// capture of a copy would otherwise wait, one commit in a thousand log frames, for the log to be copied into the
    /// database file and synced. `failed` hears of a checkpoint that failed, on that thread; the next one tries again.
    /// Deletions are still wiped from the log by `purge()`.
    public func checkpointInBackground(failed: @escaping @Sendable (HistoryError) -> Void = { _ in }) {
        let path = location.databaseURL.path
        db.checkpoint(
            in: BackgroundCheckpointer(path: path) { result in
                if case .failure(let error) = result { failed(HistoryError.from(error, path: path)) }
            })
    }
}
