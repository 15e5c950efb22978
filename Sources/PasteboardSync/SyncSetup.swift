public import FoundationEssentials
public import PasteboardHistory
#if canImport(Glibc)
import Glibc
#endif

/// This device's membership of a sync folder: where the folder is, this device's id and name, the folder's keys
/// (the current one and those of earlier epochs, see docs/sync.md, "Removing a device") and this device's own
/// device key. Kept in `<store>/sync/device.json`, mode 600 (the key is on this device's disk as the history is).
public struct SyncSetup: Sendable, Equatable {
    public let folder: URL
    public let device: DeviceID
    /// The folder's current key: everything this device writes is sealed with it.
    public internal(set) var key: SyncKey
    /// The current key's epoch: 0 for the key made by `pb sync init`, one more at each `pb sync remove-device`.
    public internal(set) var epoch: Int = 0
    /// The keys of earlier epochs, to read what was written before a rotation.
    var olderKeys: [Int: SyncKey] = [:]
    /// Per rotation (by the epoch it started), the sequence up to which each device's files of the epochs before it
    /// are accepted: what the device that rotated had seen of them.
    var cuts: [Int: [String: Int]] = [:]
    /// Devices removed from the folder so far.
    var removed: Set<String> = []
    /// This device's name in `pb sync status` and for `pb sync remove-device`.
    public internal(set) var name: String
    /// This device's own key pair (`crypto_box`); the secret half never leaves this file.
    var deviceKey: DeviceKey?

    init(folder: URL, device: DeviceID, key: SyncKey, name: String, deviceKey: DeviceKey?) {
        self.folder = folder
        self.device = device
        self.key = key
        self.name = name
        self.deviceKey = deviceKey
    }

    struct File: Codable {
        var folder: String
        var device: String
        var key: String
        var epoch: Int?
        var olderKeys: [String: String]?
        var cuts: [String: [String: Int]]?
        var removed: [String]?
        var name: String?
        var deviceSecret: String?
    }

    /// Every key this device holds, newest epoch first.
    var keysNewestFirst: [(epoch: Int, key: SyncKey)] {
        [(epoch, key)] + olderKeys.sorted { $0.key > $1.key }.map { (epoch: $0.key, key: $0.value) }
    }

    /// One purpose's key of every epoch this device holds, newest first.
    func keys(_ purpose: (SyncKey) -> SecretKey) -> [(epoch: Int, key: SecretKey)] {
        keysNewestFirst.map { ($0.epoch, purpose($0.key)) }
    }

    /// The key of `epoch` (the current one for an epoch this device does not hold).
    func key(epoch: Int) -> SyncKey { epoch == self.epoch ? key : olderKeys[epoch] ?? key }

    /// Whether a file of `device` numbered `sequence`, sealed with the key of `fileEpoch`, is accepted: a file
    /// sealed with an earlier key than the current one only up to what the rotation that retired that key saw.
    func accepts(epoch fileEpoch: Int, device: DeviceID, sequence: Int) -> Bool {
        guard fileEpoch < epoch else { return true }
        guard let cut = cuts[fileEpoch + 1] else { return false }
        return sequence <= cut[device.rawValue] ?? 0
    }

    /// This device's default name: the host's.
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "device" }
        let name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "device" : String(name.prefix(64))
    }

    /// Where sync keeps its own files for the store at `location`.
    public static func directory(for location: StoreLocation) -> URL {
        location.directory.appendingPathComponent("sync")
    }

    static func fileURL(for location: StoreLocation) -> URL {
        directory(for: location).appendingPathComponent("device.json")
    }

    /// Whether this device still syncs (`pb sync leave` removes the setup).
    public static func isJoined(_ location: StoreLocation) -> Bool {
        FileManager.default.fileExists(atPath: fileURL(for: location).path)
    }

    /// This device's setup, or nil when it has not joined a folder.
    public static func load(for location: StoreLocation) throws(SyncError) -> SyncSetup? {
        try load(directory: directory(for: location))
    }

    /// The setup kept in the sync directory `directory`, or nil.
    static func load(directory: URL) throws(SyncError) -> SyncSetup? {
        let url = directory.appendingPathComponent("device.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try AtomicFile.read(url, limit: 1 << 20)
        let damaged = SyncError(.io, "\(url.path) is damaged. Run 'pb sync leave', then join the folder again.")
        guard let file = try? JSONDecoder().decode(File.self, from: data),  // the error is the message below
            let device = DeviceID(rawValue: file.device), let key = SyncKey(hex: file.key)
        else { throw damaged }
        var setup = SyncSetup(
            folder: URL(fileURLWithPath: file.folder), device: device, key: key, name: file.name ?? hostName, deviceKey: nil)
        setup.epoch = file.epoch ?? 0
        for (epoch, hex) in file.olderKeys ?? [:] {
            guard let epoch = Int(epoch), let key = SyncKey(hex: hex) else { throw damaged }
            setup.olderKeys[epoch] = key
        }
        for (epoch, cut) in file.cuts ?? [:] {
            guard let epoch = Int(epoch) else { throw damaged }
            setup.cuts[epoch] = cut
        }
        setup.removed = Set(file.removed ?? [])
        if let secret = file.deviceSecret {
            guard let deviceKey = DeviceKey(secretHex: secret) else { throw damaged }
            setup.deviceKey = deviceKey
        }
        return setup
    }

    func save(for location: StoreLocation) throws(SyncError) { try save(directory: Self.directory(for: location)) }

    func save(directory: URL) throws(SyncError) {
        let file = File(
            folder: folder.path, device: device.rawValue, key: Hex.encode(key.root.bytes), epoch: epoch,
            olderKeys: Dictionary(uniqueKeysWithValues: olderKeys.map { (String($0.key), Hex.encode($0.value.root.bytes)) }),
            cuts: Dictionary(uniqueKeysWithValues: cuts.map { (String($0.key), $0.value) }), removed: removed.sorted(),
            name: name, deviceSecret: deviceKey.map { Hex.encode($0.secret) })
        let data: Data
        do {
            data = try JSONEncoder().encode(file)
        } catch {
            throw SyncError(.io, "Cannot encode the sync setup: \(error)")
        }
        try AtomicFile(staging: directory).write(data, to: directory.appendingPathComponent("device.json"))
    }
}

extension SyncKey {
    /// A key kept as 64 hex digits; nil when it is not one.
    init?(hex: String) {
        guard let bytes = Hex.decode(hex), bytes.count == SecretKey.byteCount else { return nil }
        self.init(SecretKey(bytes))
    }
}
