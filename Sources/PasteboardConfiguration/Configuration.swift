import FoundationEssentials
public import PasteboardModel
import TextSupport
import SystemSupport

/// Settings from `$XDG_CONFIG_HOME/pasteboard/config` (or `$PB_CONFIG`): `key = value` lines, `#` comments.
/// The daemon, the CLI and every other surface read it through this one parser.
///
/// ```
/// max-items = 50000
/// max-bytes = 2G
/// max-age = 90d
/// ignore-app = KeePassXC
/// ignore-type = image/*                               # a copy offering an image is not recorded
/// drop-type = chromium/x-internal-source-rfh-token    # only this representation is left out
/// ```
///
/// Capture rules are described on `CaptureRules`: `ignore-type` skips a whole copy that offers a matching type,
/// `drop-type` (same patterns) keeps the copy and leaves out only the matching representations.
public struct Configuration: Sendable {
    public var retention = RetentionPolicy()
    public var capture = CaptureRules()
    /// Which copies ask before they are pasted (`ask-app`, `ask-type`) and how long a paste waits (`ask-timeout`).
    public var pasteApproval = PasteApprovalRules()
    /// What syncs to other devices, and how (see `SyncSettings`).
    public var sync = SyncSettings()
    /// Whether the daemon reads the text in pictures, and in which languages (see `TextRecognitionSettings`).
    public var textRecognition = TextRecognitionSettings()

    public init() {}

    /// Every setting the file may hold.
    public static let keys = [
        "max-items", "max-bytes", "max-age", "ignore-app", "ignore-type", "drop-type", "ignore-text", "max-item-size",
        "primary", "ask-app", "ask-type", "ask-timeout", "take-over-delay",
    ] + TextRecognitionSettings.keys + SyncSettings.keys

    /// The longest configuration file read (a configuration is a few lines; a huge file is a mistake).
    public static let maxFileBytes = 1 << 20

    /// Where the file is: `$PB_CONFIG`, else `$XDG_CONFIG_HOME/pasteboard/config`, else `~/.config/pasteboard/config`.
    public static func path(environment: [String: String]) -> String {
        if let explicit = environment["PB_CONFIG"], !explicit.isEmpty { return explicit }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.config")
        return base + "/pasteboard/config"
    }

    /// Reads the file; no file means the defaults, and anything but a regular file is refused (see
    /// `ConfigurationFile`).
    public static func load(environment: [String: String]) throws(ConfigurationError) -> Configuration {
        let path = path(environment: environment)
        guard let data = try ConfigurationFile.read(path, upToCount: maxFileBytes + 1) else { return Configuration() }
        guard data.count <= maxFileBytes else {
            throw ConfigurationError(path: path, line: nil, problem: "is larger than 1 MiB; is it the right file?")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(path: path, line: nil, problem: "is not UTF-8 text.")
        }
        return try parse(text, path: path)
    }

    /// Parses the text of a configuration file; `path` names it in errors.
    public static func parse(_ text: String, path: String) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            func failure(_ problem: String) -> ConfigurationError {
                ConfigurationError(path: path, line: index + 1, problem: problem)
            }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            guard parts.count == 2 else { throw failure("expected 'key = value', found \(quoted(trimmed)).") }
            let (key, value) = (parts[0], parts[1])
            switch key {
            case "max-items", "max-bytes", "max-age":
                try Self.parseLimit(key, value, named: key, into: &configuration.retention, failure: failure)
            case "ignore-app":
                guard !value.isEmpty else { throw failure("ignore-app needs an application name.") }
                configuration.capture.ignoredApplications.append(value)
            case "ask-app":
                guard !value.isEmpty else { throw failure("ask-app needs an application name.") }
                configuration.pasteApproval.applications.append(value)
            case "ask-timeout":
                let range = PasteApprovalRules.timeoutRange
                guard let seconds = Units.duration(value), range.contains(seconds) else {
                    throw failure("ask-timeout needs a duration from 1s to 10m, like 30s.")
                }
                configuration.pasteApproval.timeout = seconds
            case "ignore-type", "drop-type", "ask-type":
                guard CaptureRules.isTypePattern(value) else {
                    throw failure(
                        "\(key) \(quoted(value)) is not a known type. Give a MIME type (text/html), a MIME prefix "
                            + "(image/*), an identifier (public.png) or an extension (png).")
                }
                if key == "ignore-type" {
                    configuration.capture.ignoredTypes.append(value)
                } else if key == "ask-type" {
                    configuration.pasteApproval.types.append(value)
                } else {
                    configuration.capture.droppedTypes.append(value)
                }
            case "ignore-text":
                do {
                    configuration.capture.ignoredText.append(try TextRule(value))
                } catch {
                    throw failure("ignore-text: \(error.message)")
                }
            case "max-item-size":
                guard let bytes = Units.bytes(value) else { throw failure("max-item-size needs a size like 50M.") }
                configuration.capture.maxItemBytes = bytes
            case "take-over-delay":
                let range = CaptureRules.takeOverDelayRange
                guard let seconds = value == "0" ? 0 : Units.duration(value), range.contains(seconds) else {
                    throw failure("take-over-delay needs a duration from 0 to 5s, like 300ms.")
                }
                configuration.capture.takeOverDelay = seconds
            case "primary":
                guard ["on", "off", "true", "false", "yes", "no"].contains(value.lowercased()) else {
                    throw failure("primary needs on or off.")
                }
                configuration.capture.capturesPrimary = ["on", "true", "yes"].contains(value.lowercased())
            default:
                if let (limit, kind) = Self.kindLimit(key) {
                    guard RetentionPolicy.kinds.contains(kind) else {
                        var problem = "\(quoted(key)): \(quoted(kind)) is not a kind of item."
                        if let near = Suggestion.nearest(to: kind, among: RetentionPolicy.kinds) {
                            problem += " Did you mean '\(limit).\(near)'?"
                        }
                        throw failure(problem + " The kinds are: " + RetentionPolicy.kinds.joined(separator: ", ") + ".")
                    }
                    var limits = configuration.retention.byKind[kind] ?? RetentionPolicy()
                    try Self.parseLimit(limit, value, named: key, into: &limits, failure: failure)
                    configuration.retention.byKind[kind] = limits
                    continue
                }
                do {
                    if try configuration.textRecognition.parse(key, value) { continue }
                } catch {
                    throw failure(error.message)
                }
                do {
                    if try configuration.sync.parse(key, value) { continue }
                } catch {
                    throw failure(error.message)
                }
                var problem = "unknown setting \(quoted(key))."
                if let near = Suggestion.nearest(to: key, among: keys) { problem += " Did you mean '\(near)'?" }
                problem += " The settings are: " + keys.joined(separator: ", ") + "."
                throw failure(problem)
            }
        }
        if let problem = configuration.sync.incompleteSyncthing {
            throw ConfigurationError(path: path, line: nil, problem: problem)
        }
        return configuration
    }

    /// The retention limits a key may set, alone (`max-age`) or for one kind of item (`max-age.image`).
    public static let limitKeys = ["max-items", "max-bytes", "max-age"]

    /// `("max-age", "image")` for `max-age.image`: a limit for the items of one kind; nil for any other key.
    static func kindLimit(_ key: String) -> (limit: String, kind: String)? {
        let parts = key.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, limitKeys.contains(String(parts[0])) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// Reads a `max-items`, `max-bytes` or `max-age` value into `policy`; `limit` is the key without its kind, and
    /// messages say `name`, the key as the user wrote it.
    static func parseLimit(
        _ limit: String, _ value: String, named name: String, into policy: inout RetentionPolicy, failure: (String) -> ConfigurationError
    ) throws(ConfigurationError) {
        switch limit {
        case "max-items":
            guard let count = Int(value), count > 0 else {
                throw failure(
                    "\(name) needs a whole number of at least 1 (pinned items are always kept). "
                        + "To keep no history at all, stop the daemon instead.")
            }
            policy.maxItems = count
        case "max-bytes":
            guard let bytes = Units.bytes(value) else { throw failure("\(name) needs a size like 500M or 2G.") }
            policy.maxBytes = bytes
        default:
            guard let age = Units.duration(value) else { throw failure("\(name): \(Units.durationProblem(value)).") }
            policy.maxAge = age
        }
    }
}
