public import FoundationEssentials
public import PasteboardModel
import TextSupport

/// Sync settings from the configuration file (see docs/sync.md):
///
/// ```
/// sync-max-item-size = 20M                  # larger items stay on this device (default 20M)
/// sync-ignore-app = KeePassXC               # items copied from this application stay on this device
/// sync-ignore-type = image/*                # items offering a matching type stay on this device
/// sync-clipboard = on                       # an item arriving from another device becomes the clipboard
/// syncthing-url = http://127.0.0.1:8384     # ask this Syncthing to rescan at once what pb writes
/// syncthing-api-key = abc123                # its API key (Actions > Settings > API Key)
/// syncthing-folder = pasteboard             # the id of the Syncthing folder holding the sync folder
/// ```
public struct SyncSettings: Sendable, Equatable {
    public var maxItemBytes = 20 << 20
    public var ignoredApplications: [String] = []
    public var ignoredTypes: [String] = []
    public var syncsClipboard = false
    public var syncthing: Syncthing?

    /// Where a Syncthing's REST API listens, for the rescan request.
    public struct Syncthing: Sendable, Equatable {
        public var url: URL
        public var apiKey: String
        public var folderID: String
    }

    public init() {}

    static let keys = [
        "sync-max-item-size", "sync-ignore-app", "sync-ignore-type", "sync-clipboard", "syncthing-url", "syncthing-api-key",
        "syncthing-folder",
    ]

    /// The Syncthing settings as given so far (all three together, or none).
    var partialSyncthing = PartialSyncthing()

    struct PartialSyncthing: Sendable, Equatable {
        var url: URL?
        var apiKey: String?
        var folderID: String?
    }

    /// Reads one `key = value` line; false when `key` is not a sync setting.
    mutating func parse(_ key: String, _ value: String) throws(SettingProblem) -> Bool {
        switch key {
        case "sync-max-item-size":
            guard let bytes = Units.bytes(value) else { throw SettingProblem("sync-max-item-size needs a size like 20M.") }
            maxItemBytes = bytes
        case "sync-ignore-app":
            guard !value.isEmpty else { throw SettingProblem("sync-ignore-app needs an application name.") }
            ignoredApplications.append(value)
        case "sync-ignore-type":
            guard CaptureRules.isTypePattern(value) else {
                throw SettingProblem(
                    "sync-ignore-type \(quoted(value)) is not a known type. Give a MIME type (text/html), a MIME prefix "
                        + "(image/*), an identifier (public.png) or an extension (png).")
            }
            ignoredTypes.append(value)
        case "sync-clipboard":
            guard ["on", "off", "true", "false", "yes", "no"].contains(value.lowercased()) else {
                throw SettingProblem("sync-clipboard needs on or off.")
            }
            syncsClipboard = ["on", "true", "yes"].contains(value.lowercased())
        case "syncthing-url":
            guard let url = URL(string: value), url.scheme == "http", let host = url.host,
                ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host), url.port != nil
            else {
                throw SettingProblem(
                    "syncthing-url needs Syncthing's REST address on this machine, like http://127.0.0.1:8384 (http, loopback, with a port).")
            }
            partialSyncthing.url = url
        case "syncthing-api-key":
            guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw SettingProblem("syncthing-api-key needs the API key from Syncthing's settings (letters, digits, - and _).")
            }
            partialSyncthing.apiKey = value
        case "syncthing-folder":
            guard !value.isEmpty, !value.contains(where: { $0.isWhitespace || $0 == "&" || $0 == "?" || $0 == "#" }) else {
                throw SettingProblem("syncthing-folder needs the Syncthing folder id (Folder > Edit > Folder ID).")
            }
            partialSyncthing.folderID = value
        default:
            return false
        }
        if let url = partialSyncthing.url, let apiKey = partialSyncthing.apiKey, let folderID = partialSyncthing.folderID {
            syncthing = Syncthing(url: url, apiKey: apiKey, folderID: folderID)
        }
        return true
    }

    /// What is missing when only some of the Syncthing settings are given, or nil.
    var incompleteSyncthing: String? {
        let given = [partialSyncthing.url != nil, partialSyncthing.apiKey != nil, partialSyncthing.folderID != nil]
        guard given.contains(true), given.contains(false) else { return nil }
        return "syncthing-url, syncthing-api-key and syncthing-folder go together; give all three or none."
    }

    /// Why an item copied from `source` offering `types` and `size` bytes stays on this device, or nil.
    public func localReason(source: String?, types: [ContentType], size: Int) -> String? {
        if size > maxItemBytes { return "larger than sync-max-item-size" }
        if let source, ignoredApplications.contains(where: { $0.isEqualIgnoringCase(source) }) {
            return "copied from \(source) (sync-ignore-app)"
        }
        for pattern in ignoredTypes {
            for type in types where CaptureRules.matches(type, pattern: pattern) {
                return "type \(type.identifier) (sync-ignore-type)"
            }
        }
        return nil
    }
}

/// A problem with one setting's value, placed at its line by the parser.
struct SettingProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
