public import FoundationEssentials

/// Limits on what the history keeps. Pinned items are always kept.
public struct RetentionPolicy: Sendable, Equatable {
    /// Keep at most this many unpinned items.
    public var maxItems: Int?
    /// Keep unpinned items totalling at most this many bytes.
    public var maxBytes: Int?
    /// Drop unpinned items last copied longer ago than this.
    public var maxAge: TimeInterval?

    public init(maxItems: Int? = nil, maxBytes: Int? = nil, maxAge: TimeInterval? = nil) {
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.maxAge = maxAge
    }

    public var isUnlimited: Bool { maxItems == nil && maxBytes == nil && maxAge == nil }
}
