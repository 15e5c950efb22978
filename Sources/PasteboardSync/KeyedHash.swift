internal import CSodium
import FoundationEssentials

/// Keyed BLAKE2b (`crypto_generichash`): a payload file's name, which only holders of the sync key can compute, so
/// the name reveals nothing about the bytes.
enum KeyedHash {
    static let byteCount = 32

    static func digest(_ data: Data, key: SecretKey) throws(SyncError) -> Data {
        try Sodium.start()
        var out = [UInt8](repeating: 0, count: byteCount)
        let result = data.withUnsafeBytes { d in
            key.bytes.withUnsafeBytes { k in
                crypto_generichash(
                    &out, byteCount, d.bindMemory(to: UInt8.self).baseAddress, UInt64(data.count),
                    k.bindMemory(to: UInt8.self).baseAddress, SecretKey.byteCount)
            }
        }
        guard result == 0 else { throw SyncError(.crypto, "libsodium could not hash a payload.") }
        return Data(out)
    }
}
