/// Why a capture produced nothing.
public enum CaptureSkip: Sendable, Equatable, CustomStringConvertible {
    /// The owner marked the copy as a password or other secret.
    case secret
    /// Nothing worth keeping was offered.
    case empty
    /// The owner refused the request for this type.
    case ownerRefused(String)
    /// The owner made no progress on this type for too long.
    case timedOut(String)
    /// The owner was still working on this type when the capture had taken `CaptureLimits.slowOwnerCap`.
    case tookTooLong(String)
    /// A newer copy replaced this one while it was being read.
    case superseded
    /// This type was larger than the limits allow.
    case tooLarge(String)
    /// A user rule says not to record it (the reason says which).
    case ignored(String)

    public var description: String {
        switch self {
        case .secret: return "a concealed (secret) offer"
        case .empty: return "nothing to keep"
        case .ownerRefused(let type): return "the owner refused \(type)"
        case .timedOut(let type): return "the owner stalled on \(type)"
        case .tookTooLong(let type): return "the owner took too long to produce \(type)"
        case .superseded: return "a newer copy replaced it"
        case .tooLarge(let type): return "\(type) exceeds the size limit"
        case .ignored(let reason): return reason
        }
    }
}
