import FoundationEssentials

extension SyncEngine {
    /// Brings this device's keys up to date at the start of a round (under the lock): the setup as saved (a
    /// `pb sync remove-device` here may have changed it), a device key made and announced, the other devices'
    /// announcements pinned, and a newer folder key taken up when the folder offers one. Returns why a newer key
    /// cannot be taken up, if so. Only a round that writes (`announcing`) writes the announcement.
    func refreshKeys(now: Date, announcing: Bool) throws(SyncError) -> String? {
        if let saved = try SyncSetup.load(directory: directory), saved.device == setup.device { setup = saved }
        if setup.deviceKey == nil {
            setup.deviceKey = try DeviceKey.generate()
            try setup.save(directory: directory)
        }
        var problem: String?
        let ownSequence = Int(try state.meta("sequence") ?? "0") ?? 0
        switch try KeyRotation.adopt(&setup, folder: folder, state: state) {
        case .none:
            break
        case .unavailable(_, let reason):
            problem = reason
        case .adopted(_, let cut):
            try setup.save(directory: directory)
            try state.forgetRejectedFiles()  // what did not open with the old keys is read again
            try rewriteOwnSegments(after: cut, upTo: ownSequence, now: now)
            // A snapshot of this device's written with the old key after the cut is refused by the others, and the
            // segments it covered are gone: a new one, with the new key, is due at once.
            if Int(try state.meta("snapshot-sequence") ?? "0") ?? 0 > cut { try state.setMeta("snapshot-due", "1") }
        }
        if announcing { _ = try KeyRotation.announce(setup, folder: folder, state: state, staging: staging) }
        try KeyRotation.readAnnouncements(setup, folder: folder, state: state)
        return problem
    }

    /// This device's segments written with the old key after the rotation's cut (between the rotation and this
    /// device taking the new key up) are refused by every device now: their operations are written again in one
    /// segment with the new key, and the old files removed.
    private func rewriteOwnSegments(after cut: Int, upTo last: Int, now: Date) throws(SyncError) {
        guard last > cut else { return }
        var operations: [SyncOperation] = []
        var paths: [String] = []
        for sequence in (cut + 1)...last {
            let path = SyncFolder.segmentPath(device: setup.device, sequence: sequence)
            guard folder.exists(path) else { continue }
            do throws(SyncError) {
                operations += try readSegment(path, now: now, acceptingRetiredKeys: true).operations
            } catch where error.code == .rejected {
                continue  // not one of ours (planted): left to compaction's quarantine
            }
            paths.append(path)
        }
        if !operations.isEmpty {
            _ = try batch(includingStore: false) { () throws(SyncError) -> String in try writeSegment(operations, now: now) }
        }
        for path in paths {
            try folder.remove(path)
            try state.forgetFile(path)
        }
    }
}
