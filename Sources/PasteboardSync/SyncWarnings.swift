public import FoundationEssentials

/// Keeps the daemon's sync warnings few whatever the folder holds: a file rejected is reported once, files
/// rejected for the same reason are reported together as one line with a count, and the same warning (or the same
/// reason of rejection) at most once per `interval`; what was held back is counted into the next line that goes out.
/// (A folder host can put thousands of junk files in the folder; each is still named in `pb sync status`.)
public struct SyncWarnings: Sendable {
    public let interval: TimeInterval
    /// Rejections reported already (`path: reason`), so each is counted once.
    private var reported = Set<String>()
    /// Per reason or warning text: when it last went out, and how many were held back since.
    private var last: [String: (date: Date, held: Int)] = [:]

    public init(interval: TimeInterval = 600) { self.interval = interval }

    /// The lines to log for a round's rejections (each `path: reason`, as `SyncArrivals.rejected` has them).
    public mutating func rejections(_ rejected: [String], now: Date = Date()) -> [String] {
        var byReason: [String: [String]] = [:]
        var order: [String] = []
        // Bounded like the sync state's list: past it, a file may be reported again (its reason still at most
        // once per interval).
        if reported.count > 10_000 { reported.removeAll() }
        for rejection in rejected where reported.insert(rejection).inserted {
            let (path, reason) = Self.split(rejection)
            if byReason[reason] == nil { order.append(reason) }
            byReason[reason, default: []].append(path)
        }
        var lines: [String] = []
        for reason in order {
            let paths = byReason[reason] ?? []
            let key = "rejected: " + reason
            guard let held = admit(key, count: paths.count, now: now) else { continue }
            let count = paths.count + held
            lines.append(
                count == 1
                    ? "sync: rejected \(paths[0]): \(reason) (see pb sync status)"
                    : "sync: rejected \(count) files: \(reason); the latest \(paths[0]) (see pb sync status)")
        }
        return lines
    }

    /// The line to log for `text`, or nil when the same text went out less than `interval` ago.
    public mutating func warning(_ text: String, now: Date = Date()) -> String? {
        guard let held = admit(text, count: 1, now: now) else { return nil }
        return held == 0 ? text : "\(text) (\(held) more like it held back since it was last logged)"
    }

    /// Whether `key` may go out now; if so, how many were held back before, else nil (and `count` is held back).
    private mutating func admit(_ key: String, count: Int, now: Date) -> Int? {
        if let previous = last[key], now.timeIntervalSince(previous.date) < interval {
            last[key] = (previous.date, previous.held + count)
            return nil
        }
        let held = last[key]?.held ?? 0
        last[key] = (now, 0)
        return held
    }

    /// `path: reason` split at the first colon (a path sync reads holds none).
    static func split(_ rejection: String) -> (path: String, reason: String) {
        guard let colon = rejection.firstIndex(of: ":") else { return (rejection, "rejected") }
        let reason = rejection[rejection.index(after: colon)...].drop { $0 == " " }
        return (String(rejection[..<colon]), String(reason))
    }
}
