import FoundationEssentials
import PasteboardModel

/// The identity of a history item: copies with the same identity are one item (a repeat moves it to the top and
/// counts a copy), and sync names items by it across devices.
///
/// It is a digest of the item's (type, content address) pairs in type order, as it always was, except for what
/// `VolatileContent` lists: a type an application changes on every copy is left out, and a type holding a field
/// it rewrites every time is hashed with that field normalised. An item with none of those has the identity it
/// always had, bit for bit, so stores and sync state written before need no migration. An item made only of
/// left-out types keeps them all (an empty identity would make every such item one).
///
/// ```swift
/// var identity = ItemIdentity()
/// identity.add(.html, address: SHA256.address(html), size: html.count) { Array(html) }
/// let value = identity.value  // 16 bytes
/// ```
struct ItemIdentity {
    private var parts: [(ContentType, Data)] = []
    private var leftOut: [(ContentType, Data)] = []

    /// Adds one representation by its content address (`SHA256.address` of its bytes). `bytes` is asked for only
    /// when the type has a volatile field and at most `VolatileContent.normalisedSizeLimit` bytes; it may answer
    /// nil (unreadable), and the content address is used then.
    mutating func add(_ type: ContentType, address: Data, size: Int, bytes: () -> [UInt8]?) {
        switch VolatileContent.treatment(of: type) {
        case nil:
            parts.append((type, address))
        case .excluded:
            leftOut.append((type, address))
        case .normalised(let field):
            guard size <= VolatileContent.normalisedSizeLimit, let bytes = bytes(),
                let normalised = field.address(of: bytes)
            else {
                parts.append((type, address))
                return
            }
            parts.append((type, normalised))
        }
    }

    /// The identity: 16 bytes.
    var value: Data {
        Self.digest(parts.isEmpty ? leftOut : parts)
    }

    /// The digest of (type, address) pairs: SHA-256 over each type's identifier, a zero byte and the address, in
    /// identifier order, cut to 16 bytes. Unchanged since the first store: existing identities depend on it.
    static func digest(_ parts: [(ContentType, Data)]) -> Data {
        var hasher = SHA256()
        for (type, address) in parts.sorted(by: { $0.0.identifier < $1.0.identifier }) {
            var identifier = type.identifier
            identifier.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
            withUnsafeBytes(of: UInt8(0)) { hasher.update($0) }
            hasher.update(address)
        }
        return hasher.finalize(byteCount: 16)
    }

    /// The identity of `item`, whose representations have the content addresses `addresses` (in order).
    static func of(_ item: PasteboardItem, addresses: [Data]) -> Data {
        precondition(addresses.count == item.representations.count)  // a programmer error
        var identity = ItemIdentity()
        for (representation, address) in zip(item.representations, addresses) {
            identity.add(representation.type, address: address, size: representation.byteCount) {
                // A file-backed one is read here, within the size limit; an unreadable one keeps its address.
                do { return Array(try representation.contents()) } catch { return nil }
            }
        }
        return identity.value
    }
}
