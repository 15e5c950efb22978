public import FoundationEssentials

extension Dictionary where Key == FileAttributeKey, Value == Any {
    /// The `.size` attribute in bytes, 0 when absent. FoundationEssentials stores it as a `UInt`, the whole of
    /// Foundation as an `NSNumber`: reading it as `NSNumber` finds nothing without Foundation.
    public var fileSize: Int {
        switch self[.size] {
        case let size as UInt: return Int(clamping: size)
        case let size as UInt64: return Int(clamping: size)
        case let size as Int: return size
        case let size as Int64: return Int(clamping: size)
        default: return 0
        }
    }
}
