import FoundationEssentials

/// How long to wait before trying again after a refusal: `first`, then twice as long after each refusal in a row, at
/// most `longest`; a success starts over. The daemon's search backlog uses it when another writer holds the store's
/// lock: a checkpoint holds it for moments, an import for minutes.
struct RetryBackoff {
    let first: TimeInterval
    let longest: TimeInterval
    private var next: TimeInterval

    init(first: TimeInterval, longest: TimeInterval) {
        precondition(first > 0 && longest >= first, "RetryBackoff(first: \(first), longest: \(longest))")  // programmer error
        self.first = first
        self.longest = longest
        next = first
    }

    /// The wait after a refusal; the next refusal waits twice as long.
    mutating func refused() -> TimeInterval {
        let wait = next
        next = min(next * 2, longest)
        return wait
    }

    /// After a success: the next refusal waits `first` again.
    mutating func succeeded() { next = first }
}
