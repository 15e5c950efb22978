internal import CSodium
import FoundationEssentials

/// The secret every device of one sync folder shares. Every key used on the folder is derived from it with
/// `crypto_kdf` (BLAKE2b), one per purpose, so no key is used for two jobs.
///
/// A generated key is shown as a phrase of 14 groups of 4 letters and digits (Crockford base32 of the 32 bytes, then
/// a 20-bit checksum), e.g. `K7Q4-XM2P-…`; typing mistakes are caught by the checksum before the folder is tried.
public struct SyncKey: Sendable, Equatable {
    let root: SecretKey

    init(_ root: SecretKey) { self.root = root }

    static func generate() throws(SyncError) -> SyncKey { SyncKey(try SecretKey.random()) }

    // MARK: - Derived keys

    /// Seals log segments.
    var logKey: SecretKey { derived(1) }
    /// Seals payload files.
    var payloadKey: SecretKey { derived(2) }
    /// Names payload files (keyed BLAKE2b).
    var nameKey: SecretKey { derived(3) }
    /// Seals the folder's key check.
    var checkKey: SecretKey { derived(4) }
    /// Seals snapshots of the merged state.
    var snapshotKey: SecretKey { derived(5) }
    /// Seals the record of a key rotation (`keys/<epoch>.pbrot`), which holds the previous key.
    var rotationKey: SecretKey { derived(6) }
    /// Seals each device's announcement of its public device key (`devices/<id>/device.pbkey`).
    var announcementKey: SecretKey { derived(7) }

    private func derived(_ id: UInt64) -> SecretKey {
        var out = [UInt8](repeating: 0, count: SecretKey.byteCount)
        let context = Array("pbsync01".utf8CString.dropLast())
        let result = root.bytes.withUnsafeBytes { k in
            crypto_kdf_derive_from_key(&out, out.count, id, context, k.bindMemory(to: UInt8.self).baseAddress!)
        }
        // crypto_kdf_derive_from_key fails only for a subkey length outside 16...64 bytes; 32 is inside.
        precondition(result == 0, "crypto_kdf_derive_from_key with a 32-byte subkey cannot fail")
        return SecretKey(Data(out))
    }

    // MARK: - The phrase

    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// The key as the user writes it down.
    public var phrase: String {
        var bits = Array(root.bytes)
        let check = Self.checksum(root.bytes)
        bits.append(contentsOf: check)
        var symbols: [Character] = []
        var buffer = 0
        var count = 0
        for byte in bits {
            buffer = buffer << 8 | Int(byte)
            count += 8
            while count >= 5 {
                count -= 5
                symbols.append(Self.alphabet[(buffer >> count) & 31])
            }
        }
        if count > 0 { symbols.append(Self.alphabet[(buffer << (5 - count)) & 31]) }
        // 35 bytes → 56 symbols; show 14 groups of 4.
        let shown = symbols.prefix(56)
        return stride(from: 0, to: shown.count, by: 4).map { String(shown.dropFirst($0).prefix(4)) }.joined(separator: "-")
    }

    /// Parses a phrase typed by a user (case, spaces and dashes do not matter; O reads as 0, I and L as 1).
    public init(phrase: String) throws(SyncError) {
        var values: [Int] = []
        for character in phrase.uppercased() {
            if character == "-" || character == " " || character == "\t" { continue }
            let normalized: Character =
                switch character {
                case "O": "0"
                case "I", "L": "1"
                default: character
                }
            guard let index = Self.alphabet.firstIndex(of: normalized) else {
                throw SyncError(.invalidInput, "The key phrase contains \(character.debugDescription), which no key phrase has.")
            }
            values.append(index)
        }
        guard values.count == 56 else {
            throw SyncError(
                .invalidInput, "A key phrase has 56 letters and digits (14 groups of 4); this one has \(values.count).")
        }
        var bytes: [UInt8] = []
        var buffer = 0
        var count = 0
        for value in values {
            buffer = (buffer << 5 | value) & 0xFFFF
            count += 5
            if count >= 8 {
                count -= 8
                bytes.append(UInt8((buffer >> count) & 0xFF))
            }
        }
        let key = Data(bytes.prefix(32))
        guard bytes.count == 35, Data(bytes[32..<35]) == Self.checksum(key) else {
            throw SyncError(.invalidInput, "The key phrase has a typing mistake (its checksum does not match).")
        }
        self.init(SecretKey(key))
    }

    private static func checksum(_ key: Data) -> Data {
        var out = [UInt8](repeating: 0, count: 3)
        _ = key.withUnsafeBytes { k in
            crypto_generichash(&out, 3, k.bindMemory(to: UInt8.self).baseAddress, UInt64(key.count), nil, 0)
        }
        return Data(out)
    }
}
