public import FoundationEssentials
public import PasteboardHistory
public import PasteboardModel
import TextSupport
import SystemSupport

/// Joining and leaving a sync folder, and what `pb sync status` shows.
public enum SyncSession {
    /// Makes `folder` a sync folder with a new key (or one derived from `passphrase`) and joins this device to it;
    /// returns the key phrase to carry to the other devices (nil with a passphrase).
    public static func initialize(folder: URL, location: StoreLocation, passphrase: String? = nil, name: String? = nil)
        throws(SyncError) -> String?
    {
        try refuseIfJoined(location)
        let syncFolder = SyncFolder(root: folder)
        if FileManager.default.fileExists(atPath: syncFolder.headerURL.path) {
            throw SyncError(
                .invalidInput,
                "\(folder.path) is a sync folder already. Join it with 'pb sync join --folder \(folder.path)' and its key.")
        }
        let key: SyncKey
        var parameters: PassphraseKey?
        if let passphrase {
            guard passphrase.count >= 8 else { throw SyncError(.invalidInput, "A passphrase needs at least 8 characters.") }
            let fresh = try PassphraseKey.fresh()
            parameters = fresh
            key = try fresh.derive(passphrase)
        } else {
            key = try SyncKey.generate()
        }
        let header = try SyncFolder.header(for: key, passphrase: parameters)
        let data: Data
        do {
            data = try JSONEncoder().encode(header)
        } catch {
            throw SyncError(.io, "Cannot encode the folder header: \(error)")
        }
        let staging = AtomicFile(staging: SyncSetup.directory(for: location).appendingPathComponent("staging"))
        try staging.write(data, to: syncFolder.headerURL)
        try AtomicFile.makeDirectory(syncFolder.devicesURL)
        try AtomicFile.makeDirectory(syncFolder.payloadsURL)
        try SyncSetup(
            folder: folder, device: try DeviceID.random(), key: key, name: try deviceName(name), deviceKey: try DeviceKey.generate()
        ).save(for: location)
        return passphrase == nil ? key.phrase : nil
    }

    /// Joins this device to an existing sync folder with its key phrase or passphrase (`secret`); refuses one
    /// that does not open the folder's data.
    public static func join(folder: URL, location: StoreLocation, secret: String, name: String? = nil) throws(SyncError) {
        try refuseIfJoined(location)
        let syncFolder = SyncFolder(root: folder)
        let header = try syncFolder.readHeader()
        let trimmed = secret.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { throw SyncError(.invalidInput, "No key given.") }
        let key: SyncKey
        if header.keyKind == "passphrase", let parameters = header.passphrase {
            key = try parameters.derive(trimmed)
        } else {
            key = try SyncKey(phrase: trimmed)
        }
        guard SyncFolder.keyOpens(header, key) else {
            throw SyncError(
                .wrongKey,
                header.keyKind == "passphrase"
                    ? "That passphrase does not open \(folder.path)." : "That key phrase does not open \(folder.path): it belongs to another folder.")
        }
        var setup = SyncSetup(
            folder: folder, device: try DeviceID.random(), key: key, name: try deviceName(name), deviceKey: try DeviceKey.generate())
        // A key of a later epoch (after a device was removed): the earlier keys come from the rotation records.
        if let epoch = header.epoch, epoch > 0 { try KeyRotation.walkChain(&setup, from: key, epoch: epoch, folder: syncFolder) }
        try setup.save(for: location)
    }

    /// The name given, checked, or the host's.
    static func deviceName(_ name: String?) throws(SyncError) -> String {
        guard let name else { return SyncSetup.hostName }
        let trimmed = name.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SyncError(.invalidInput, "A device name has 1 to 64 bytes and no control characters.")
        }
        return trimmed
    }

    /// Stops syncing on this device: the history stays as it is, the folder is left to the other devices.
    public static func leave(location: StoreLocation) throws(SyncError) {
        guard try SyncSetup.load(for: location) != nil else {
            throw SyncError(.notJoined, "This device does not sync; there is nothing to leave.")
        }
        // The setup goes first, so that a running daemon stops syncing (it checks before every round) before the
        // state it would otherwise write out again is forgotten.
        let url = SyncSetup.fileURL(for: location)
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw SyncError(.io, "Cannot remove \(url.path): \(SystemError.reason(of: error))")
        }
        let directory = SyncSetup.directory(for: location)
        let lock = try FileLock(path: directory.appendingPathComponent("lock").path)
        defer { withExtendedLifetime(lock) {} }
        try SyncState(directory: directory).reset()
    }

    private static func refuseIfJoined(_ location: StoreLocation) throws(SyncError) {
        if let setup = try SyncSetup.load(for: location) {
            throw SyncError(
                .alreadyJoined, "This device syncs with \(setup.folder.path) already. Run 'pb sync leave' first.")
        }
    }

    /// Whether an item was marked local-only (`pb copy --local`, `--once`); false when nothing ever was (no sync
    /// state is created to answer).
    public static func isLocalOnly(_ item: PasteboardItem, location: StoreLocation) throws(SyncError) -> Bool {
        let directory = SyncSetup.directory(for: location)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("state.sqlite").path) else {
            return false
        }
        return try SyncState(directory: directory).isLocalOnly(HistoryStore.syncIdentity(of: item))
    }

    /// Marks an item as one that never leaves this device (`pb copy --local`, `--once`), before it is recorded.
    public static func markLocalOnly(_ item: PasteboardItem, location: StoreLocation) throws(SyncError) {
        let state = try SyncState(directory: SyncSetup.directory(for: location))
        try state.markLocalOnly(HistoryStore.syncIdentity(of: item))
    }
}
