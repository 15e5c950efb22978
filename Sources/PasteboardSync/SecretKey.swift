import FoundationEssentials

/// A 32-byte secret key (for `crypto_secretstream_xchacha20poly1305` or keyed BLAKE2b).
struct SecretKey: Sendable, Equatable {
    static let byteCount = 32
    let bytes: Data

    init(_ bytes: Data) {
        precondition(bytes.count == Self.byteCount, "a secret key has 32 bytes")  // every caller derives or generates 32
        self.bytes = Data(bytes)
    }

    static func random() throws(SyncError) -> SecretKey { SecretKey(try Sodium.randomBytes(byteCount)) }
}
