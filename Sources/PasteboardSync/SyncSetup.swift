public import FoundationEssentials
public import PasteboardHistory

/// This device's membership of a sync folder: where the folder is, this device's id and the key. Kept in
/// `<store>/sync/device.json`, mode 600 (the key is on this device's disk as the history is).
public struct SyncSetup: Sendable, Equatable {
    public let folder: URL
    public let device: DeviceID
    public let key: SyncKey

    struct File: Codable {
        var folder: String
        var device: String
        var key: String
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
        let url = fileURL(for: location)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try AtomicFile.read(url, limit: 64 * 1024)
        guard let file = try? JSONDecoder().decode(File.self, from: data),  // the error is the message below
            let device = DeviceID(rawValue: file.device), let keyBytes = Hex.decode(file.key), keyBytes.count == 32
        else {
            throw SyncError(.io, "\(url.path) is damaged. Run 'pb sync leave', then join the folder again.")
        }
        return SyncSetup(folder: URL(fileURLWithPath: file.folder), device: device, key: SyncKey(SecretKey(keyBytes)))
    }

    func save(for location: StoreLocation) throws(SyncError) {
        let directory = Self.directory(for: location)
        let file = File(folder: folder.path, device: device.rawValue, key: Hex.encode(key.root.bytes))
        let data: Data
        do {
            data = try JSONEncoder().encode(file)
        } catch {
            throw SyncError(.io, "Cannot encode the sync setup: \(error)")
        }
        try AtomicFile(staging: directory).write(data, to: Self.fileURL(for: location))
    }
}
