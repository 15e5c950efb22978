public import Foundation

/// Parsing of sizes (`500K`, `2G`, `1MiB`) and durations (`30s`, `5m`, `2h`, `7d`, `4w`), bounded: a value
/// that would overflow or is not finite is not a size or a duration.
public enum Units {
    public static func bytes(_ text: String) -> Int? {
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

    /// The longest duration: 100 years (36,500 days). Anything longer is a mistake, and an expiry that far off
    /// could reach past the year 9999, which no date in the history may (it could not be exported).
    public static let maxDuration: TimeInterval = 36_500 * 86_400

    /// A duration (`30s`, `5m`, `2h`, `7d`, `4w`, `250ms`, or plain seconds), more than 0 and at most
    /// `maxDuration`; nil for anything else.
    public static func duration(_ text: String) -> TimeInterval? {
        guard let seconds = unboundedDuration(text), seconds <= maxDuration else { return nil }
        return seconds
    }

    private static func unboundedDuration(_ text: String) -> TimeInterval? {
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
