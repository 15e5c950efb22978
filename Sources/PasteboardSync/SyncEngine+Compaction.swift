public import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

extension SyncEngine {
    /// How many of its own segments a device keeps before it compacts them.
    public static let compactionThreshold = 64

    /// Rewrites this device's log as one segment holding only what still counts (see `compacted(_:)`) and removes
    /// the segments it replaces, once this device has more than `threshold` of them. Whoever reads the new segment
    /// reaches the same state as by reading every old one; a device that joins reads far fewer operations.
    /// Returns the paths written and removed (relative to the folder), or nil when nothing was done.
    @discardableResult
    public func compactLog(threshold: Int = SyncEngine.compactionThreshold, now: Date = Date()) throws(SyncError)
        -> (written: String, removed: [String])?
    {
        try withLock { () throws(SyncError) -> (written: String, removed: [String])? in
            let own = folder.segmentPaths().filter { SyncFolder.parseSegmentPath($0)?.device == setup.device }
            guard own.count > threshold else { return nil }
            var operations: [SyncOperation] = []
            for path in own { operations += try readSegment(path).operations }
            let kept = Self.compacted(operations)
            let written = try batch(includingStore: false) { () throws(SyncError) -> String in
                try writeSegment(kept, coversFrom: (Int(try state.meta("snapshot-sequence") ?? "0") ?? 0) + 1, now: now)
            }
            for path in own {
                if unlink(folder.url(path).path) != 0 && errno != ENOENT {
                    throw AtomicFile.error("Cannot remove the compacted segment \(path)", .last("unlink"))
                }
                try state.forgetFile(path)
            }
            return (written, own)
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
