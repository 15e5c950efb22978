import FoundationEssentials
import SystemSupport

/// The shared folder and what is in it (see docs/sync.md):
///
/// ```
/// pasteboard-sync.json             the folder's header: format, how the key is made, a key check
/// devices/<device>/<seq>.pblog     each device's log segments, written only by that device
/// devices/<device>/<seq>.pbsnap    that device's snapshot of the merged state, covering its segments up to <seq>
/// payloads/<keyed hash>.pbdata     payloads, named by a keyed BLAKE2b of their bytes
/// ```
struct SyncFolder: Sendable {
    let root: URL

    static let headerName = "pasteboard-sync.json"
    static let checkText = Data("pasteboard sync key check".utf8)
    /// The largest segment read (a segment rolls over long before; anything bigger is not ours).
    static let maxSegmentBytes = 64 << 20
    /// The largest payload file read: the largest item Pasteboard syncs, sealed.
    static let maxPayloadBytes = 1 << 30

    var headerURL: URL { root.appendingPathComponent(Self.headerName) }
    var devicesURL: URL { root.appendingPathComponent("devices") }
    var payloadsURL: URL { root.appendingPathComponent("payloads") }

    func deviceURL(_ device: DeviceID) -> URL { devicesURL.appendingPathComponent(device.rawValue) }

    static func segmentPath(device: DeviceID, sequence: Int) -> String {
        let number = String(sequence)
        return "devices/\(device.rawValue)/" + String(repeating: "0", count: max(0, 10 - number.count)) + number + ".pblog"
    }

    static func payloadPath(_ name: String) -> String { "payloads/\(name).pbdata" }

    static func snapshotPath(device: DeviceID, sequence: Int) -> String {
        String(segmentPath(device: device, sequence: sequence).dropLast(6)) + ".pbsnap"
    }

    /// The largest snapshot read, and written: about 100 million short items' merged state (10 million took 1.7 GB).
    /// A snapshot is read and written as a stream, so this bounds the time spent on one file, not memory.
    static let maxSnapshotBytes = 16 << 30

    func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    // MARK: - The header

    /// How the folder's key is made, and a small sealed text that only the right key opens.
    struct Header: Codable, Equatable {
        var format: Int
        /// `phrase` (a generated key, typed as a phrase) or `passphrase` (Argon2id over what the user chose).
        var keyKind: String
        var passphrase: PassphraseKey?
        /// `checkText` sealed with the check key, base64.
        var check: String
        /// The epoch of the key that opens `check` (absent: 0, the key `pb sync init` made).
        var epoch: Int? = nil
    }

    func readHeader() throws(SyncError) -> Header {
        guard exists(Self.headerName) else {
            throw SyncError(
                .invalidInput,
                "\(root.path) is not a Pasteboard sync folder (no \(Self.headerName)). Run 'pb sync init --folder \(root.path)' on the first device, "
                    + "and wait until the folder has synced here before joining.")
        }
        let data: Data
        do throws(SyncError) {
            data = try read(Self.headerName, limit: 64 * 1024)
        } catch {
            throw SyncError(error.code, "\(headerURL.path) cannot be read: \(error.message)", cause: error)
        }
        do {
            let header = try JSONDecoder().decode(Header.self, from: data)
            guard header.format == 1 else {
                throw SyncError(.invalidInput, "\(headerURL.path) is format \(header.format); this pb reads format 1. Upgrade pb.")
            }
            return header
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.invalidInput, "\(headerURL.path) is damaged: \(SystemError.reason(of: error))", cause: error)
        }
    }

    /// Whether `key` opens this folder's key check.
    static func keyOpens(_ header: Header, _ key: SyncKey) -> Bool {
        guard let sealed = Data(base64Encoded: header.check),
            let messages = try? SecretStream.open(sealed, key: key.checkKey, context: headerName)  // a wrong key is an answer, not an error
        else { return false }
        return messages == [checkText]
    }

    static func header(for key: SyncKey, passphrase: PassphraseKey?, epoch: Int? = nil) throws(SyncError) -> Header {
        let sealed = try SecretStream.seal([checkText], key: key.checkKey, context: headerName)
        return Header(
            format: 1, keyKind: passphrase == nil ? "phrase" : "passphrase", passphrase: passphrase,
            check: sealed.base64EncodedString(), epoch: epoch)
    }

    // MARK: - Keys and devices

    /// The record of the rotation that started `epoch` (sealed with that epoch's key).
    static func rotationPath(epoch: Int) -> String { "keys/" + padded(epoch) + ".pbrot" }

    /// The new key of `epoch`, boxed for `device`.
    static func wrapPath(epoch: Int, device: DeviceID) -> String { "keys/" + padded(epoch) + "/\(device.rawValue).pbwrap" }

    /// A device's announcement of its name and public device key.
    static func announcementPath(_ device: DeviceID) -> String { "devices/\(device.rawValue)/device.pbkey" }

    private static func padded(_ number: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, 10 - text.count)) + text
    }

    /// The epochs of the rotation records in the folder, ascending.
    func rotationEpochs() -> [Int] {
        names(in: ["keys"]).compactMap { name -> Int? in
            guard name.hasSuffix(".pbrot"), name.count == 16 else { return nil }
            return Int(name.dropLast(6))
        }.sorted()
    }

    /// The devices with a directory in the folder.
    func deviceIDs() -> [DeviceID] { names(in: ["devices"]).compactMap(DeviceID.init(rawValue:)) }

    // MARK: - Listing

    /// Every segment in the folder, as relative paths, by device then sequence.
    func segmentPaths() -> [String] { paths(suffix: ".pblog") }

    /// Every snapshot in the folder, as relative paths, by device then sequence.
    func snapshotPaths() -> [String] { paths(suffix: ".pbsnap") }

    /// Every payload file in the folder, by name.
    func payloadNames() -> [String] {
        names(in: ["payloads"]).filter { $0.hasSuffix(".pbdata") && !$0.hasPrefix(".") }.map { String($0.dropLast(7)) }.sorted()
    }

    /// (A device directory that is a symbolic link, or not a directory, holds nothing: it is never followed.)
    private func paths(suffix: String) -> [String] {
        var paths: [String] = []
        for device in names(in: ["devices"]) where DeviceID(rawValue: device) != nil {
            for name in names(in: ["devices", device]) where name.hasSuffix(suffix) && !name.hasPrefix(".") {
                paths.append("devices/\(device)/\(name)")
            }
        }
        return paths
    }

    /// Parses `devices/<device>/<seq>.pblog`.
    static func parseSegmentPath(_ path: String) -> (device: DeviceID, sequence: Int)? { parse(path, suffix: ".pblog") }

    /// Parses `devices/<device>/<seq>.pbsnap`.
    static func parseSnapshotPath(_ path: String) -> (device: DeviceID, sequence: Int)? { parse(path, suffix: ".pbsnap") }

    private static func parse(_ path: String, suffix: String) -> (device: DeviceID, sequence: Int)? {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "devices", let device = DeviceID(rawValue: String(parts[1])),
            parts[2].hasSuffix(suffix), let sequence = Int(parts[2].dropLast(suffix.count)), parts[2].count == 10 + suffix.count
        else { return nil }
        return (device, sequence)
    }
}
