import ArgumentParsing
import Foundation
import PasteboardDaemon
import PasteboardHistory

/// Settings from `$XDG_CONFIG_HOME/pasteboard/config` (or `$PB_CONFIG`): `key = value` lines, `#` comments.
///
/// ```
/// max-items = 50000
/// max-bytes = 2G
/// max-age = 90d
/// ```
struct Configuration {
    var retention = RetentionPolicy()
    var capture = CapturePolicy()

    static let keys = ["max-items", "max-bytes", "max-age", "ignore-app", "ignore-type", "ignore-text", "max-item-size", "primary"]

    static func path(environment: [String: String]) -> String {
        if let explicit = environment["PB_CONFIG"], !explicit.isEmpty { return explicit }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/pasteboard/config"
    }

    static func load(environment: [String: String]) throws -> Configuration {
        let path = path(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return Configuration() }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandFailure("Cannot read the configuration file \(path).")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws -> Configuration {
        var configuration = Configuration()
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let place = "\(path):\(number + 1)"
            guard parts.count == 2 else { throw CommandFailure("\(place): expected 'key = value', found '\(trimmed)'.") }
            let (key, value) = (parts[0], parts[1])
            switch key {
            case "max-items":
                guard let count = Int(value), count >= 0 else { throw CommandFailure("\(place): max-items needs a whole number.") }
                configuration.retention.maxItems = count
            case "max-bytes":
                guard let bytes = Units.bytes(value) else { throw CommandFailure("\(place): max-bytes needs a size like 500M or 2G.") }
                configuration.retention.maxBytes = bytes
            case "max-age":
                guard let age = Units.duration(value) else { throw CommandFailure("\(place): max-age needs a duration like 30d or 12h.") }
                configuration.retention.maxAge = age
            case "ignore-app":
                configuration.capture.ignoredApplications.append(value)
            case "ignore-type":
                configuration.capture.ignoredTypes.append(value)
            case "ignore-text":
                guard (try? NSRegularExpression(pattern: value)) != nil else {
                    throw CommandFailure("\(place): ignore-text is not a valid regular expression.")
                }
                configuration.capture.ignoredTextPatterns.append(value)
            case "max-item-size":
                guard let bytes = Units.bytes(value) else { throw CommandFailure("\(place): max-item-size needs a size like 50M.") }
                configuration.capture.maxItemBytes = bytes
            case "primary":
                guard ["on", "off", "true", "false", "yes", "no"].contains(value.lowercased()) else {
                    throw CommandFailure("\(place): primary needs on or off.")
                }
                configuration.capture.capturesPrimary = ["on", "true", "yes"].contains(value.lowercased())
            default:
                var message = "\(place): unknown setting '\(key)'."
                if let near = Suggestion.nearest(to: key, among: keys) { message += " Did you mean '\(near)'?" }
                throw CommandFailure(message)
            }
        }
        return configuration
    }
}

/// Parsing of sizes (`500K`, `2G`, `1MiB`) and durations (`30s`, `5m`, `2h`, `7d`, `4w`).
enum Units {
    static func bytes(_ text: String) -> Int? {
        let lower = text.lowercased().replacingOccurrences(of: " ", with: "")
        let suffixes: [(String, Int)] = [
            ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("kb", 1000), ("mb", 1_000_000), ("gb", 1_000_000_000),
            ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1),
        ]
        for (suffix, factor) in suffixes where lower.hasSuffix(suffix) {
            // Int(_:) traps on infinity and on values beyond Int.max ("1e30G", "inf k"): those are not sizes.
            guard let number = Double(lower.dropLast(suffix.count)), number >= 0,
                number * Double(factor) < Double(Int.max)
            else { return nil }
            return Int(number * Double(factor))
        }
        return Int(lower).flatMap { $0 >= 0 ? $0 : nil }
    }

    static func duration(_ text: String) -> TimeInterval? {
        let lower = text.lowercased()
        let suffixes: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604_800)]
        for (suffix, factor) in suffixes where lower.hasSuffix(suffix) {
            // The product too must be finite: "1e308w" is not a duration.
            guard let number = Double(lower.dropLast(suffix.count)), number > 0, (number * factor).isFinite else {
                return nil
            }
            return number * factor
        }
        return Double(lower).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }
}
