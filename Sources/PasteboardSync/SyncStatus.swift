public import FoundationEssentials
public import PasteboardHistory

/// What `pb sync status` shows.
public struct SyncStatus: Sendable {
    public struct Device: Sendable {
        public let id: DeviceID
        public let isThisDevice: Bool
        /// The clock of its latest operation seen here (its wall time then).
        public let lastOperation: Date
        /// When its latest segment was applied here.
        public let lastSeen: Date
        /// How long its latest segment took to arrive and apply (applied minus written).
        public var lag: TimeInterval { lastSeen.timeIntervalSince(lastOperation) }
    }

    public struct RejectedFile: Sendable {
        public let path: String
        public let reason: String
    }

    public let folder: URL
    public let device: DeviceID
    public let devices: [Device]
    /// Items whose operations arrived but whose payloads have not yet.
    public let pendingItems: Int
    /// Segments in the folder not yet applied.
    public let unappliedSegments: Int
    public let rejected: [RejectedFile]

    /// The rejected files grouped by why, most first: what a terminal shows (a folder may hold thousands).
    public struct Rejection: Sendable {
        public let reason: String
        public let count: Int
        /// The first few paths, sorted.
        public let examples: [String]
    }

    public var rejectedByReason: [Rejection] {
        var byReason: [String: [String]] = [:]
        for file in rejected { byReason[file.reason, default: []].append(file.path) }
        return byReason.map { Rejection(reason: $0.key, count: $0.value.count, examples: Array($0.value.sorted().prefix(3))) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
    }

    /// The status of this device's sync, or nil when it does not sync.
    public static func load(location: StoreLocation) throws(SyncError) -> SyncStatus? {
        guard let setup = try SyncSetup.load(for: location) else { return nil }
        let state = try SyncState(directory: SyncSetup.directory(for: location))
        let folder = SyncFolder(root: setup.folder)
        var unapplied = 0
        for path in folder.segmentPaths() {
            guard let attributes = folder.attributes(path) else { continue }
            let known = try state.file(path)
            if known == nil || known!.size != attributes.size || known!.modified != attributes.modified { unapplied += 1 }
        }
        return SyncStatus(
            folder: setup.folder, device: setup.device,
            devices: try state.devices().map {
                Device(id: $0.device, isThisDevice: $0.device == setup.device, lastOperation: $0.clock.date, lastSeen: $0.seen)
            },
            pendingItems: try state.pendingCount(), unappliedSegments: unapplied,
            rejected: try state.rejectedFiles().map { RejectedFile(path: $0.path, reason: $0.reason ?? "rejected") })
    }
}
