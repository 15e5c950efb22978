import FoundationEssentials
public import PasteboardHistory

/// Removing a device from a folder (see docs/sync.md, "Removing a device"): every device announces a public
/// device key; `pb sync remove-device` makes a new folder key (the next epoch), boxes it from this device to
/// each remaining device's pinned public key, and writes a rotation record sealed with the new key. Each remaining
/// device takes the new key up on its next round; the removed one has no box it can open.
enum KeyRotation {
    /// A device's announcement: its id, name and public device key, sealed with the folder's key of the time.
    struct Announcement: Codable {
        var device: String
        var name: String
        var publicKey: String

        enum CodingKeys: String, CodingKey { case device = "d", name = "n", publicKey = "p" }
    }

    /// The record of one rotation, sealed with the key it introduced: the previous key (so a device that joins
    /// later with the new key reads what came before), what the rotating device had seen of every device's log
    /// (older keys are accepted up to there), and every device removed so far.
    struct Record: Codable {
        var epoch: Int
        var by: String
        var removed: [String]
        var cuts: [String: Int]
        var previous: String
        var written: UInt64

        enum CodingKeys: String, CodingKey {
            case epoch = "e", by = "b", removed = "r", cuts = "c", previous = "k", written = "s"
        }
    }

    static let wrapMagic = Data("PBW1".utf8)

    // MARK: - Device keys and their pins

    static func pinnedKeys(_ state: SyncState) throws(SyncError) -> [String: Data] {
        try state.metas(prefix: "device-key:").compactMapValues(Hex.decode)
    }

    static func names(_ state: SyncState) throws(SyncError) -> [String: String] {
        try state.metas(prefix: "device-name:")
    }

    /// Writes this device's announcement (sealed with the current key) when the folder lacks one of this epoch.
    static func announce(_ setup: SyncSetup, folder: SyncFolder, state: SyncState, staging: AtomicFile) throws(SyncError) -> String? {
        guard let deviceKey = setup.deviceKey else { return nil }
        let path = SyncFolder.announcementPath(setup.device)
        if try state.meta("announced-epoch") == String(setup.epoch), folder.exists(path) { return nil }
        let announcement = Announcement(device: setup.device.rawValue, name: setup.name, publicKey: Hex.encode(deviceKey.publicKey))
        let data: Data
        do {
            data = try JSONEncoder().encode(announcement)
        } catch {
            throw SyncError(.io, "Cannot encode this device's announcement: \(error)")
        }
        try folder.write(try SecretStream.seal([data], key: setup.key.announcementKey, context: path), to: path, staging: staging)
        try state.setMeta("announced-epoch", String(setup.epoch))
        return path
    }

    /// Pins the public key of each device whose announcement opens with the current key and is not pinned yet (the
    /// first one seen is kept: a later, different one is ignored).
    static func readAnnouncements(_ setup: SyncSetup, folder: SyncFolder, state: SyncState) throws(SyncError) {
        let pinned = try pinnedKeys(state)
        for device in folder.deviceIDs() where device != setup.device && pinned[device.rawValue] == nil {
            let path = SyncFolder.announcementPath(device)
            guard let attributes = folder.attributes(path) else { continue }
            if let known = try state.file(path), known.size == attributes.size, known.modified == attributes.modified { continue }
            var messages: [Data] = []
            do throws(SyncError) {
                try folder.openSealed(path, limit: 64 * 1024, key: setup.key.announcementKey) { messages.append($0) }
                guard messages.count == 1, let announcement = try? JSONDecoder().decode(Announcement.self, from: messages[0]),  // reported below
                    announcement.device == device.rawValue, let key = Hex.decode(announcement.publicKey),
                    key.count == DeviceKey.publicBytes, !announcement.name.isEmpty, announcement.name.utf8.count <= 256
                else { throw SyncError(.rejected, "it is not a device announcement") }
                try state.setMeta("device-key:\(device.rawValue)", announcement.publicKey)
                try state.setMeta("device-name:\(device.rawValue)", announcement.name)
                try state.noteFile(path, folder: folder, status: "applied", reason: nil, operations: 0, now: Date())
            } catch {
                // Not yet under this epoch's key (its device has not taken it up): tried again when it changes.
                try state.noteFile(path, folder: folder, status: "unread", reason: error.message, operations: 0, now: Date())
            }
        }
    }

    // MARK: - Taking up a new key

    enum Adoption {
        case none
        /// This device now holds `epoch`; its own segments numbered above `cut` were written with the old key.
        case adopted(epoch: Int, cut: Int)
        /// The folder has a key of `epoch` this device cannot open.
        case unavailable(epoch: Int, reason: String)
    }

    /// Takes up the newest key the folder offers this device, if newer than its own; updates `setup` (the caller
    /// saves it). Nothing changes when no box opens.
    static func adopt(_ setup: inout SyncSetup, folder: SyncFolder, state: SyncState) throws(SyncError) -> Adoption {
        let newer = folder.rotationEpochs().filter { $0 > setup.epoch }
        guard let newest = newer.last else { return .none }
        guard let deviceKey = setup.deviceKey else {
            return .unavailable(epoch: newest, reason: "this device had no device key when it was made")
        }
        let pinned = try pinnedKeys(state)
        for epoch in newer.reversed() {
            let path = SyncFolder.wrapPath(epoch: epoch, device: setup.device)
            guard let wrap = try? folder.read(path, limit: 4096),  // none for this device: try the next
                wrap.count > wrapMagic.count + 16, wrap.prefix(wrapMagic.count) == wrapMagic,
                let sender = DeviceID(rawValue: String(decoding: wrap.dropFirst(wrapMagic.count).prefix(16), as: UTF8.self))
            else { continue }
            let senderKey = sender == setup.device ? deviceKey.publicKey : pinned[sender.rawValue]
            let body = wrapBody(epoch: epoch, device: setup.device, key: nil)
            guard let senderKey, let plain = deviceKey.open(Data(wrap.dropFirst(wrapMagic.count + 16)), from: senderKey),
                plain.count == body.count + SecretKey.byteCount, plain.prefix(body.count) == body
            else { continue }
            let key = SyncKey(SecretKey(Data(plain.suffix(SecretKey.byteCount))))
            var updated = setup
            do throws(SyncError) {
                try walkChain(&updated, from: key, epoch: epoch, folder: folder)
            } catch {
                continue  // its record does not open with the key boxed for it: not a rotation to take up
            }
            // This device's own files of its old epoch are accepted up to the lowest cut of the rotations it skips.
            let cut = ((setup.epoch + 1)...epoch).map { updated.cuts[$0]?[setup.device.rawValue] ?? 0 }.min() ?? 0
            setup = updated
            return .adopted(epoch: epoch, cut: cut)
        }
        return .unavailable(
            epoch: newest,
            reason: "the folder's key was replaced (epoch \(newest)) and no copy of the new key here opens for this device: "
                + "it was removed from the folder, or the copy has not arrived yet")
    }

    /// Makes `setup` hold `key` as the key of `epoch`, and every earlier key the rotation records chain to. The
    /// record of `epoch` must open with `key`; an older one that is missing or does not open ends the chain (the
    /// files of the epochs before it are then refused), so a host that deletes one cannot stop a device.
    static func walkChain(_ setup: inout SyncSetup, from key: SyncKey, epoch: Int, folder: SyncFolder) throws(SyncError) {
        let previousKey = setup.key
        let previousEpoch = setup.epoch
        setup.key = key
        if previousEpoch < epoch && previousKey != key { setup.olderKeys[previousEpoch] = previousKey }
        setup.olderKeys[epoch] = nil
        var current = (epoch: epoch, key: key)
        while current.epoch > 0 {
            let path = SyncFolder.rotationPath(epoch: current.epoch)
            var messages: [Data] = []
            do throws(SyncError) {
                try folder.openSealed(path, limit: 1 << 20, key: current.key.rotationKey) { messages.append($0) }
            } catch {
                if current.epoch < epoch { break }
                throw SyncError(.rejected, "\(path): \(error.message)", cause: error)
            }
            guard messages.count == 1, let record = try? JSONDecoder().decode(Record.self, from: messages[0]),  // reported below
                record.epoch == current.epoch, let previous = SyncKey(hex: record.previous)
            else {
                if current.epoch < epoch { break }
                throw SyncError(.rejected, "\(path) is not a rotation record")
            }
            setup.cuts[current.epoch] = record.cuts
            setup.removed.formUnion(record.removed)
            setup.olderKeys[current.epoch - 1] = previous
            current = (current.epoch - 1, previous)
        }
        setup.epoch = epoch
    }

    /// What a box holds before the key: a label, the epoch and the recipient, so a box is not taken for another.
    static func wrapBody(epoch: Int, device: DeviceID, key: SyncKey?) -> Data {
        var body = Data("pbkey".utf8)
        var number = UInt64(epoch).bigEndian
        withUnsafeBytes(of: &number) { body.append(contentsOf: $0) }
        body.append(contentsOf: Array(device.rawValue.utf8))
        if let key { body.append(key.root.bytes) }
        return body
    }
}

/// What `pb sync remove-device` did.
public struct SyncRemoval: Sendable {
    public let removed: DeviceID
    public let removedName: String?
    public let epoch: Int
    /// The devices the new key went to (this one included), by name.
    public let keptDevices: [String]
    /// Devices that never announced a device key: they need the new key phrase.
    public let devicesWithoutKey: [String]
    /// The new key as a phrase, for those and for devices that join from now on.
    public let phrase: String
}

extension SyncSession {
    /// Removes a device from the folder (by its id or its name): the folder gets a new key that every remaining
    /// device, and not the removed one, can open. See docs/sync.md, "Removing a device".
    public static func removeDevice(_ name: String, location: StoreLocation) throws(SyncError) -> SyncRemoval {
        guard var setup = try SyncSetup.load(for: location) else {
            throw SyncError(.notJoined, "This device does not sync; there is no device to remove.")
        }
        let directory = SyncSetup.directory(for: location)
        let lock = try FileLock(path: directory.appendingPathComponent("lock").path)
        defer { withExtendedLifetime(lock) {} }
        let state = try SyncState(directory: directory)
        let folder = SyncFolder(root: setup.folder)
        let staging = AtomicFile(staging: directory.appendingPathComponent("staging"))
        // This device's own key and what it knows of the others, as a round would have them.
        if setup.deviceKey == nil {
            setup.deviceKey = try DeviceKey.generate()
            try setup.save(directory: directory)
        }
        try KeyRotation.readAnnouncements(setup, folder: folder, state: state)
        let names = try KeyRotation.names(state)
        let pinned = try KeyRotation.pinnedKeys(state)
        // The devices heard from: by their announcements or their segments (not every directory a host could make).
        var known = Set(pinned.keys).union(try state.devices().map { $0.device.rawValue })
        known.insert(setup.device.rawValue)
        known.subtract(setup.removed)
        func label(_ id: String) -> String { names[id].map { "\($0) (\(id))" } ?? id }
        let matches = known.filter { $0 == name || names[$0] == name || ($0 == setup.device.rawValue && setup.name == name) }
        guard !matches.isEmpty else {
            if setup.removed.contains(name) || names.contains(where: { setup.removed.contains($0.key) && $0.value == name }) {
                throw SyncError(.invalidInput, "\(name) was removed from the folder already.")
            }
            let list = known.sorted().map { $0 == setup.device.rawValue ? "\(setup.name) (\($0), this device)" : label($0) }
            throw SyncError(
                .invalidInput, "No device of this folder is named \(name.debugDescription). Its devices: \(list.joined(separator: ", ")).")
        }
        guard matches.count == 1, let removedID = matches.first, let removed = DeviceID(rawValue: removedID) else {
            throw SyncError(
                .invalidInput,
                "Several devices are named \(name.debugDescription): \(matches.sorted().map(label).joined(separator: ", ")). Give the id of the one to remove.")
        }
        guard removed != setup.device else {
            throw SyncError(
                .invalidInput,
                "\(name) is this device. Remove it from another device of the folder, or run 'pb sync leave' to stop syncing here.")
        }
        if let problem = try? KeyRotation.adopt(&setup, folder: folder, state: state), case .unavailable(_, let reason) = problem {  // a failed adoption is the error below
            throw SyncError(.wrongKey, "This device cannot remove a device: \(reason).")
        }

        // The new key and its epoch; what this device has seen of each log is where the old keys stop.
        let epoch = max(setup.epoch, folder.rotationEpochs().last ?? 0) + 1
        let newKey = try SyncKey.generate()
        var cuts = try state.highestApplied()
        cuts[setup.device.rawValue] = Int(try state.meta("sequence") ?? "0") ?? 0
        var kept: [String] = []
        var withoutKey: [String] = []
        // Boxes first, the record last: until the record is there, no device takes the new key up.
        for id in known.sorted() where id != removedID {
            guard let device = DeviceID(rawValue: id) else { continue }
            let recipient = device == setup.device ? setup.deviceKey!.publicKey : pinned[id]  // made above
            guard let recipient else {
                withoutKey.append(label(id))
                continue
            }
            var wrap = KeyRotation.wrapMagic
            wrap.append(contentsOf: Array(setup.device.rawValue.utf8))
            wrap.append(try setup.deviceKey!.box(KeyRotation.wrapBody(epoch: epoch, device: device, key: newKey), to: recipient))
            try folder.write(wrap, to: SyncFolder.wrapPath(epoch: epoch, device: device), staging: staging)
            kept.append(device == setup.device ? setup.name : label(id))
        }
        let record = KeyRotation.Record(
            epoch: epoch, by: setup.device.rawValue, removed: setup.removed.union([removedID]).sorted(), cuts: cuts,
            previous: Hex.encode(setup.key.root.bytes), written: UInt64(Date().timeIntervalSince1970 * 1000))
        let recordData: Data
        let headerData: Data
        do {
            recordData = try JSONEncoder().encode(record)
            headerData = try JSONEncoder().encode(try SyncFolder.header(for: newKey, passphrase: nil, epoch: epoch))
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.io, "Cannot encode the rotation record: \(error)")
        }
        let recordPath = SyncFolder.rotationPath(epoch: epoch)
        try folder.write(try SecretStream.seal([recordData], key: newKey.rotationKey, context: recordPath), to: recordPath, staging: staging)
        try folder.write(headerData, to: SyncFolder.headerName, staging: staging)
        // This device takes the key up as every other does (its daemon re-reads the setup on its next round).
        switch try KeyRotation.adopt(&setup, folder: folder, state: state) {
        case .adopted:
            try setup.save(directory: directory)
            try state.forgetRejectedFiles()
        case .unavailable(_, let reason):
            throw SyncError(.io, "The new key was written but this device cannot open it: \(reason).")
        case .none:
            throw SyncError(.io, "The new key was written but is not in the folder.")
        }
        return SyncRemoval(
            removed: removed, removedName: names[removedID], epoch: epoch, keptDevices: kept, devicesWithoutKey: withoutKey,
            phrase: newKey.phrase)
    }
}
