import SystemSupport

/// Gives memory back after a burst of heavy work: a search backlog indexed (an import of a million items), a sync
/// placement or a snapshot taken in. SQLite keeps the pages it read in each connection's cache, and glibc keeps what
/// was freed for later, so without this a daemon that joined a million items stayed at 72 MB where it had started at
/// 20, until it was restarted.
struct MemoryRelief {
    /// Whether heavy work ran since the last relief.
    private(set) var hasWorked = false

    /// Notes that heavy work ran this turn.
    mutating func noteWork() { hasWorked = true }

    /// When work was noted since the last relief and none is left: frees the connections' unused cache pages
    /// (`freeCaches`), then glibc's free memory. Returns what it gave back, for the log, when that was at least 1 MB.
    mutating func relieve(freeCaches: () -> Void) -> String? {
        guard hasWorked else { return nil }
        hasWorked = false
        let before = ResidentMemory.bytes()
        freeCaches()
        MallocArenas.releaseFreed()
        guard let before, let after = ResidentMemory.bytes(), before - after >= 1 << 20 else { return nil }
        return "gave back \((before - after) >> 20) MB of memory after indexing or syncing (resident \(before >> 20) MB → \(after >> 20) MB)"
    }
}
