public import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

extension SyncEngine {
    /// How many of its own segments a device keeps before it compacts them.
    public static let compactionThreshold = 64

    /// What one `compactLog` did, paths relative to the folder.
    public struct Compaction: Sendable, Equatable {
        /// The segment written.
        public var written: String
        /// The segments it replaces, removed.
        public var removed: [String]
        /// Segments of this device's directory that did not open (another key, modified, not a regular file):
        /// quarantined, that is noted as rejected in the sync state, reported this once and skipped from now on.
        /// This device's next snapshot removes them with the segments it covers.
        public var quarantined: [String] = []
    }

    /// Rewrites this device's log as one segment holding only what still counts (see `compacted(_:)`) and removes
    /// the segments it replaces, once this device has more than `threshold` of them (when they hold
    /// `snapshotOperations` or more, a snapshot is made due instead, which replaces them without holding them). Whoever reads the new segment
    /// reaches the same state as by reading every old one; a device that joins reads far fewer operations.
    /// A segment in this device's directory that does not open is quarantined (see `Compaction.quarantined`), not
    /// a reason to stop: this device's own state holds everything its own log said, and its next snapshot (due at
    /// once then) carries it.
    /// Returns nil when nothing was done.
    @discardableResult
    public func compactLog(threshold: Int = SyncEngine.compactionThreshold, now: Date = Date()) throws(SyncError) -> Compaction? {
        try withLock { () throws(SyncError) -> Compaction? in
            var own: [String] = []
            for path in folder.segmentPaths() where SyncFolder.parseSegmentPath(path)?.device == setup.device {
                if let known = try state.file(path), known.status == "rejected", let attributes = folder.attributes(path),
                    known.size == attributes.size, known.modified == attributes.modified
                {
                    continue  // quarantined already
                }
                own.append(path)
            }
            guard own.count > threshold else { return nil }
            // Segments holding many operations (a first export of a big history) are replaced by a snapshot, written
            // a window at a time, rather than read whole into memory here: one is made due at once.
            var known = 0
            for path in own { known += try state.file(path)?.operations ?? 0 }
            if known >= Self.snapshotOperations {
                try state.setMeta("snapshot-due", "1")
                return nil
            }
            var operations: [SyncOperation] = []
            var readable: [String] = []
            var quarantined: [String] = []
            for path in own {
                do throws(SyncError) {
                    operations += try readSegment(path).operations
                    readable.append(path)
                } catch where error.code == .rejected {
                    try state.noteFile(path, folder: folder, status: "rejected", reason: error.message, operations: 0, now: now)
                    quarantined.append("\(path): \(error.message)")
                }
            }
            let kept = Self.compacted(operations)
            let written = try batch(includingStore: false) { () throws(SyncError) -> String in
                try writeSegment(kept, coversFrom: (Int(try state.meta("snapshot-sequence") ?? "0") ?? 0) + 1, now: now)
            }
            for path in readable {
                try folder.remove(path)
                try state.forgetFile(path)
            }
            // The new segment lacks what a quarantined one said; the merged state has it: a snapshot is due now
            // (it covers, and removes, every segment of this device up to the new one).
            if !quarantined.isEmpty { try state.setMeta("snapshot-at", "0") }
            return Compaction(written: written, removed: readable, quarantined: quarantined)
        }
    }

    /// The operations that still decide the merged state, by the merge rules (every field keeps its greatest clock):
    /// per item the latest copy, delete and pin or unpin, and the latest clear of each kind; a copy older than a delete
    /// of the same item or a clear of everything is dropped, since it can no longer make the item live.
    static func compacted(_ operations: [SyncOperation]) -> [SyncOperation] {
        var copies: [String: SyncOperation] = [:]
        var deletes: [String: SyncOperation] = [:]
        var pins: [String: SyncOperation] = [:]
        var clearAll: SyncOperation?
        var clearUnpinned: SyncOperation?
        func later(_ a: SyncOperation?, _ b: SyncOperation) -> SyncOperation { a.map { $0.clock > b.clock ? $0 : b } ?? b }
        for operation in operations {
            switch operation.kind {
            case .copy: copies[operation.identity!] = later(copies[operation.identity!], operation)  // well formed: has one
            case .delete: deletes[operation.identity!] = later(deletes[operation.identity!], operation)
            case .pin, .unpin: pins[operation.identity!] = later(pins[operation.identity!], operation)
            case .clear:
                if operation.keepsPinned == true { clearUnpinned = later(clearUnpinned, operation) } else { clearAll = later(clearAll, operation) }
            }
        }
        var kept: [SyncOperation] = []
        for (identity, copy) in copies {
            if let delete = deletes[identity], delete.clock > copy.clock { continue }
            if let clearAll, clearAll.clock > copy.clock { continue }
            kept.append(copy)
        }
        kept += deletes.values
        kept += pins.values
        kept += [clearAll, clearUnpinned].compactMap { $0 }
        return kept.sorted { $0.clock < $1.clock }
    }
}
