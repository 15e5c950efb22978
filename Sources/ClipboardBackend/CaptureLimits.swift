public import Foundation

/// Limits that keep a hostile or stalled owner from hurting the process that reads it.
public struct CaptureLimits: Sendable {
    /// Give up on an owner that makes no progress for this long.
    public var stallTimeout: TimeInterval = 1.5
    /// Skip one representation larger than this.
    public var maxRepresentationBytes = 256 << 20
    /// Skip the whole item beyond this.
    public var maxItemBytes = 512 << 20
    /// Skip an owner whose list of types is longer than this (real applications offer a few dozen).
    public var maxOfferedTypes = 4096
    /// Fetch at most this many of the types worth keeping, in the owner's order.
    public var maxFetchedTypes = 64

    public init() {}
}
