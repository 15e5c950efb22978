public import FoundationEssentials

/// Limits on what the history keeps. Pinned items are always kept.
public struct RetentionPolicy: Sendable, Equatable {
    /// Keep at most this many unpinned items.
    public var maxItems: Int?
    /// Keep unpinned items totalling at most this many bytes.
    public var maxBytes: Int?
    /// Drop unpinned items last copied longer ago than this.
    public var maxAge: TimeInterval?
    /// Limits of their own for the items of one kind (`max-age.image = 7d`), by the kind's name (`kinds`). They apply
    /// on top of the limits above, counting only the items of that kind; the limits of a kind's own policy are the
    /// only ones read (its `byKind` is not).
    public var byKind: [String: RetentionPolicy] = [:]

    /// The kinds an item of the history has (the history's `HistoryItem.Kind`), which `byKind` may name.
    public static let kinds = ["text", "url", "html", "image", "file", "data"]

    public init(maxItems: Int? = nil, maxBytes: Int? = nil, maxAge: TimeInterval? = nil, byKind: [String: RetentionPolicy] = [:]) {
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.maxAge = maxAge
        self.byKind = byKind
    }

    /// Whether no limit of its own applies, whatever the kinds' limits.
    public var hasNoOwnLimit: Bool { maxItems == nil && maxBytes == nil && maxAge == nil }

    /// Whether an age limit applies, its own or a kind's.
    public var hasAgeLimit: Bool { maxAge != nil || byKind.values.contains { $0.maxAge != nil } }

    public var isUnlimited: Bool { hasNoOwnLimit && byKind.values.allSatisfy(\.hasNoOwnLimit) }
}
