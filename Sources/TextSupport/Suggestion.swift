/// "Did you mean" suggestions for mistyped names.
public enum Suggestion {
    /// The candidate closest to `input` by edit distance, if it is close enough to be a likely typo
    /// (or `input` is a prefix of exactly one candidate).
    public static func nearest(to input: String, among candidates: [String]) -> String? {
        let prefixed = candidates.filter { $0.hasPrefix(input) }
        if input.count >= 2, prefixed.count == 1 { return prefixed[0] }
        let limit = input.count <= 4 ? 1 : (input.count <= 8 ? 2 : 3)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(input.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// Optimal string alignment distance (Levenshtein with adjacent transpositions).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            previousPrevious = previous
            previous = current
        }
        return previous[b.count]
    }
}
