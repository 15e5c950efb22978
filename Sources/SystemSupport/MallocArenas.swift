internal import CSystemShim

/// glibc's malloc arenas: the pools threads allocate from.
public enum MallocArenas {
    /// Makes glibc use at most `count` arenas (`mallopt(M_ARENA_MAX)`); call it before threads start. By default
    /// a thread that allocates while another holds an arena may get one of its own (up to eight per core), each
    /// reserving 64 MB and keeping resident much of what it once held. Returns whether glibc accepted it (when not,
    /// the default stays, which costs only memory).
    @discardableResult
    public static func limit(to count: Int) -> Bool {
        pb_malloc_limit_arenas(Int32(clamping: count)) == 1
    }

    /// Gives the free memory of every arena back to the system (`malloc_trim(0)`). glibc keeps what was freed for
    /// later allocations, so a process that once held 100 MB (a page cache, an index being built) stays that
    /// large however little it holds since. Returns whether any was given back.
    @discardableResult
    public static func releaseFreed() -> Bool {
        pb_malloc_trim() == 1
    }
}
