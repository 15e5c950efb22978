import Foundation
import ArgumentParsing
public import PasteboardHistory

/// Settings from `$XDG_CONFIG_HOME/pasteboard/config` (or `$PB_CONFIG`): `key = value` lines, `#` comments.
/// The daemon, the CLI and every other surface read it through this one parser.
///
/// ```
/// max-items = 50000
/// max-bytes = 2G
/// max-age = 90d
/// ignore-app = KeePassXC
/// ```
public struct Configuration: Sendable {
    public var retention = RetentionPolicy()
    public var capture = CaptureRules()

    public init() {}

    /// Every setting the file may hold.
    public static let keys = [
        "max-items", "max-bytes", "max-age", "ignore-app", "ignore-type", "ignore-text", "max-item-size", "primary",
    ]

    /// The longest configuration file read (a configuration is a few lines; a huge file is a mistake).
    public static let maxFileBytes = 1 << 20

    /// Where the file is: `$PB_CONFIG`, else `$XDG_CONFIG_HOME/pasteboard/config`, else `~/.config/pasteboard/config`.
    public static func path(environment: [String: String]) -> String {
        if let explicit = environment["PB_CONFIG"], !explicit.isEmpty { return explicit }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/pasteboard/config"
    }

    /// Reads the file; no file means the defaults.
    public static func load(environment: [String: String]) throws(ConfigurationError) -> Configuration {
        let path = path(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return Configuration() }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }  // read-only: closing cannot lose anything
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw ConfigurationError(path: path, line: nil, problem: "cannot be read (\(error.localizedDescription)).", cause: error)
        }
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
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            func failure(_ problem: String) -> ConfigurationError {
                ConfigurationError(path: path, line: index + 1, problem: problem)
            }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { throw failure("expected 'key = value', found '\(trimmed)'.") }
            let (key, value) = (parts[0], parts[1])
            switch key {
            case "max-items":
                guard let count = Int(value), count >= 0 else { throw failure("max-items needs a whole number.") }
                configuration.retention.maxItems = count
            case "max-bytes":
                guard let bytes = Units.bytes(value) else { throw failure("max-bytes needs a size like 500M or 2G.") }
                configuration.retention.maxBytes = bytes
            case "max-age":
                guard let age = Units.duration(value) else { throw failure("max-age needs a duration like 30d or 12h (at most 100 years).") }
                configuration.retention.maxAge = age
            case "ignore-app":
                guard !value.isEmpty else { throw failure("ignore-app needs an application name.") }
                configuration.capture.ignoredApplications.append(value)
            case "ignore-type":
                guard !value.isEmpty else { throw failure("ignore-type needs a type like image/* or text/html.") }
                configuration.capture.ignoredTypes.append(value)
            case "ignore-text":
                guard let rule = TextRule(value) else { throw failure("ignore-text is not a valid regular expression.") }
                configuration.capture.ignoredText.append(rule)
            case "max-item-size":
                guard let bytes = Units.bytes(value) else { throw failure("max-item-size needs a size like 50M.") }
                configuration.capture.maxItemBytes = bytes
            case "primary":
                guard ["on", "off", "true", "false", "yes", "no"].contains(value.lowercased()) else {
                    throw failure("primary needs on or off.")
                }
                configuration.capture.capturesPrimary = ["on", "true", "yes"].contains(value.lowercased())
            default:
                var problem = "unknown setting '\(key)'."
                if let near = Suggestion.nearest(to: key, among: keys) { problem += " Did you mean '\(near)'?" }
                throw failure(problem)
            }
        }
        return configuration
    }
}
