internal import CSodium
import FoundationEssentials

/// A sync key derived from a passphrase with `crypto_pwhash` (Argon2id 1.3), its salt and costs kept in the
/// folder's header so every device derives the same key.
struct PassphraseKey: Sendable, Equatable, Codable {
    var salt: Data
    var opsLimit: UInt64
    var memLimit: Int

    /// New parameters: a random salt and libsodium's "interactive" costs (64 MiB, 2 passes).
    static func fresh() throws(SyncError) -> PassphraseKey {
        try Sodium.start()
        return PassphraseKey(
            salt: try Sodium.randomBytes(Int(crypto_pwhash_saltbytes())),
            opsLimit: UInt64(crypto_pwhash_opslimit_interactive()), memLimit: Int(crypto_pwhash_memlimit_interactive()))
    }

    /// Bounds on what a folder header may ask for, so a hostile header cannot make a device hash for hours.
    var isReasonable: Bool {
        salt.count == Int(crypto_pwhash_saltbytes()) && opsLimit >= 1 && opsLimit <= 10
            && memLimit >= 8 << 20 && memLimit <= 1 << 30
    }

    func derive(_ passphrase: String) throws(SyncError) -> SyncKey {
        try Sodium.start()
        guard isReasonable else { throw SyncError(.rejected, "The folder's passphrase parameters are out of range.") }
        var out = [UInt8](repeating: 0, count: SecretKey.byteCount)
        let password = [CChar](passphrase.utf8CString.dropLast())
        let result = salt.withUnsafeBytes { s in
            crypto_pwhash(
                &out, UInt64(out.count), password, UInt64(password.count), s.bindMemory(to: UInt8.self).baseAddress!,
                opsLimit, memLimit, crypto_pwhash_alg_argon2id13())
        }
        guard result == 0 else {
            throw SyncError(.crypto, "Argon2id could not derive the key (out of memory?).")
        }
        return SyncKey(SecretKey(Data(out)))
    }
}
