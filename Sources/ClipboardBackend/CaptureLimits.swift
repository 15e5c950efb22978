public import FoundationEssentials

/// Limits that keep a hostile or stalled owner from hurting the process that reads it.
public struct CaptureLimits: Sendable {
    /// Give up on an owner that shows no sign of life for this long: no data arrived and, when it runs on this
    /// machine, it used no processor time. (Toolkits encode images on request: Qt took 6.5 s, GTK 4 8.6 s, for the
    /// PNG of a 4000×3000 picture, answering nothing meanwhile but working all along.)
    public var stallTimeout: TimeInterval = 1.5
    /// The longest one capture may take, however busy its owner: a slow owner is waited for, within this bound.
    public var slowOwnerCap: TimeInterval = 60
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
