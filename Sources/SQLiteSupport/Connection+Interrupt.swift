internal import CSQLite

extension Connection {
    /// Runs `body` with `shouldStop` asked every `instructions` virtual-machine steps of whatever SQLite runs meanwhile
    /// on this connection; once it answers true, the running statement stops with `SQLITE_INTERRUPT`
    /// (`SQLiteError.isInterrupted`). A search that a newer one made pointless ends within a fraction of a millisecond
    /// instead of at its end.
    ///
    /// `shouldStop` runs on the thread using the connection: it must be cheap and may read only thread-safe state
    /// (an atomic, a lock).
    public func stopping<T>(
        when shouldStop: @escaping () -> Bool, every instructions: Int32 = 1000, _ body: () throws -> T
    ) rethrows -> T {
        let check = StopCheck(shouldStop)
        let context = Unmanaged.passRetained(check)
        sqlite3_progress_handler(
            handle, instructions,
            { pointer in
                guard let pointer else { return 0 }
                return Unmanaged<StopCheck>.fromOpaque(pointer).takeUnretainedValue().shouldStop() ? 1 : 0
            }, context.toOpaque())
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            context.release()
        }
        return try body()
    }
}

/// The closure a progress handler asks, kept alive while it is installed.
private final class StopCheck {
    let shouldStop: () -> Bool
    init(_ shouldStop: @escaping () -> Bool) { self.shouldStop = shouldStop }
}
