import FoundationEssentials

/// Atom lists as they arrive in properties.
enum DataAtoms {
    static func values(_ data: Data, format: Int32) -> [UInt] {
        guard format == 32 else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt.self)) }
    }
}
