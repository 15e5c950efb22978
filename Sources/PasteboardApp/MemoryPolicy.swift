import SystemSupport

/// How the app's process allocates: set once, first thing in `main`, before any thread starts.
enum MemoryPolicy {
    /// The most malloc arenas: the main thread does the work, a few helper threads (image decoding, the
    /// clipboard worker, the daemon's events) allocate now and then; with an arena each, the decoder's and the
    /// worker's kept megabytes resident after a history was paged through.
    static let arenaLimit = 2

    static func apply() {
        MallocArenas.limit(to: arenaLimit)
    }
}
