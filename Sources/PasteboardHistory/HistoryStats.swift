/// What the history holds and what its files cost on disk.
public struct HistoryStats: Sendable, Equatable {
    public var itemCount: Int
    public var pinnedCount: Int
    /// Items and their payload bytes per kind.
    public var kinds: [KindUsage]
    /// Bytes of all distinct payloads (each stored once).
    public var payloadBytes: Int
    /// Distinct payloads and how many live in files.
    public var blobCount: Int
    public var fileBlobCount: Int
    /// Bytes of the database file, the WAL, and the blob files.
    public var databaseBytes: Int
    public var walBytes: Int
    public var fileBlobBytes: Int
    /// Bytes of the search index (from `dbstat`), and of free pages that vacuum would return.
    public var indexBytes: Int
    /// Items not in the search index yet (imported, to be indexed; search finds them all the same).
    public var unindexedCount: Int
    public var reclaimableBytes: Int
    public var schemaVersion: Int
    /// Payloads that are gone (their file or row is missing, or unreadable), and payloads whose bytes no longer
    /// match their content hash: every payload kept in a file is read and hashed to count them (the short ones in the
    /// database are left to `checkPayloads()`, which lists them all).
    public var missingPayloads: Int
    public var damagedPayloads: Int

    public struct KindUsage: Sendable, Equatable {
        public var kind: HistoryItem.Kind
        public var count: Int
        public var bytes: Int
    }
}
