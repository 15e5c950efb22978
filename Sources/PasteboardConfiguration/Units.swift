public import FoundationEssentials
import TextSupport

/// Parsing of sizes (`500K`, `2G`, `1MiB`) and durations (`30s`, `5m`, `2h`, `7d`, `4w`), bounded: a value
/// that would overflow or is not finite is not a size or a duration.
public enum Units {
    public static func bytes(_ text: String) -> Int? {
        let lower = text.lowercased().replacingEvery(" ", with: "")
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

    /// The longest duration accepted: 100 years (36,500 days). Anything longer is a typo, and every stored expiry
    /// must still be a date that exports and imports again (no date in the history may pass the year 9999).
    public static let maxDuration: TimeInterval = 36_500 * 86_400

    /// A duration with its unit (`250ms`, `30s`, `5m`, `2h`, `7d`, `4w`), positive and at most `maxDuration`.
    /// A bare number is not a duration: "5" could mean seconds or days.
    public static func duration(_ text: String) -> TimeInterval? {
        let lower = text.lowercased().replacingEvery(" ", with: "")
        let suffixes: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604_800)]
        for (suffix, factor) in suffixes where lower.hasSuffix(suffix) {
            let digits = lower.dropLast(suffix.count)
            // Only plain decimals: Double("inf"), "nan" and "0x1p3" are not what a person means by a duration.
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let number = Double(digits), number > 0
            else { return nil }
            let seconds = number * factor
            return seconds.isFinite && seconds <= maxDuration ? seconds : nil
        }
        return nil
    }

    /// Why `text` is not a duration, for an error message: the unit is missing, or the value is out of range.
    public static func durationProblem(_ text: String) -> String {
        let lower = text.lowercased().replacingEvery(" ", with: "")
        if !lower.isEmpty, Double(lower) != nil { return "a duration needs a unit: 30s, 5m, 2h, 7d or 4w" }
        return "a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years"
    }
}
