public import FoundationEssentials
public import PasteboardHistory

/// What `pb sync status` shows.
public struct SyncStatus: Sendable {
    public struct Device: Sendable {
        public let id: DeviceID
        public let isThisDevice: Bool
        /// The name it announced (nil before its announcement was read).
        public let name: String?
        /// The clock of its latest operation seen here (its wall time then).
        public let lastOperation: Date
        /// When it wrote its newest segment seen here, by the time sealed in that segment (not a file time, which
        /// the folder's host controls).
        public let lastSeen: Date
        /// Removed from the folder with `pb sync remove-device`.
        public let isRemoved: Bool
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
    /// Whether the list of rejected files is full (more may be in the folder, not remembered; see `SyncState`).
    public let rejectedListIsFull: Bool

    /// The epoch of the folder key this device uses (0 until a device is removed).
    public let epoch: Int
    /// Why this device cannot take up the folder's newer key, if it cannot.
    public let keyProblem: String?

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
        // Read only: whether the folder offers a newer key this device cannot open (the daemon takes it up).
        var probe = setup
        var keyProblem: String?
        if case .unavailable(_, let reason) = try KeyRotation.adopt(&probe, folder: folder, state: state) { keyProblem = reason }
        let names = try KeyRotation.names(state)
        return SyncStatus(
            folder: setup.folder, device: setup.device,
            devices: try state.devices().map {
                Device(
                    id: $0.device, isThisDevice: $0.device == setup.device,
                    name: $0.device == setup.device ? setup.name : names[$0.device.rawValue], lastOperation: $0.clock.date,
                    lastSeen: $0.seen, isRemoved: setup.removed.contains($0.device.rawValue))
            },

            pendingItems: try state.pendingCount(), unappliedSegments: unapplied,
            rejected: try state.rejectedFiles().map { RejectedFile(path: $0.path, reason: $0.reason ?? "rejected") },
            rejectedListIsFull: try state.rejectedFiles().count >= state.maxRejectedRows, epoch: setup.epoch, keyProblem: keyProblem)
    }
}
