internal import CSodium
import FoundationEssentials

/// One device's own key pair (`crypto_box`: X25519, XSalsa20-Poly1305). The public half is announced in the folder
/// (sealed with the folder's key); the secret half stays in this device's `device.json`. When a device is removed,
/// the new folder key reaches each remaining device in a box from the device that rotated to that device: only it
/// can open it, and only a box from a device whose public key it pinned is believed.
struct DeviceKey: Sendable, Equatable {
    let secret: Data
    let publicKey: Data

    static var publicBytes: Int { Int(crypto_box_publickeybytes()) }

    static func generate() throws(SyncError) -> DeviceKey {
        try Sodium.start()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_box_publickeybytes()))
        var secret = [UInt8](repeating: 0, count: Int(crypto_box_secretkeybytes()))
        guard crypto_box_keypair(&publicKey, &secret) == 0 else { throw SyncError(.crypto, "libsodium could not make a key pair.") }
        return DeviceKey(secret: Data(secret), publicKey: Data(publicKey))
    }

    private init(secret: Data, publicKey: Data) {
        self.secret = secret
        self.publicKey = publicKey
    }

    /// The pair of a kept secret half; nil when it is not one.
    init?(secretHex: String) {
        guard (try? Sodium.start()) != nil, let secret = Hex.decode(secretHex), secret.count == Int(crypto_box_secretkeybytes()) else {
            return nil
        }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_box_publickeybytes()))
        let derived = secret.withUnsafeBytes { crypto_scalarmult_base(&publicKey, $0.bindMemory(to: UInt8.self).baseAddress!) }
        guard derived == 0 else { return nil }
        self.init(secret: secret, publicKey: Data(publicKey))
    }

    /// `message` boxed from this device to the holder of `recipient`: nonce (24 bytes) then the ciphertext.
    func box(_ message: Data, to recipient: Data) throws(SyncError) -> Data {
        try Sodium.start()
        guard recipient.count == Self.publicBytes else { throw SyncError(.invalidInput, "a device's public key has the wrong size") }
        let nonce = try Sodium.randomBytes(Int(crypto_box_noncebytes()))
        var cipher = [UInt8](repeating: 0, count: message.count + Int(crypto_box_macbytes()))
        let result = message.withUnsafeBytes { m in
            nonce.withUnsafeBytes { n in
                recipient.withUnsafeBytes { r in
                    secret.withUnsafeBytes { s in
                        crypto_box_easy(
                            &cipher, m.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count), n.bindMemory(to: UInt8.self).baseAddress!,
                            r.bindMemory(to: UInt8.self).baseAddress!, s.bindMemory(to: UInt8.self).baseAddress!)
                    }
                }
            }
        }
        guard result == 0 else { throw SyncError(.crypto, "libsodium could not encrypt a key for a device.") }
        return nonce + Data(cipher)
    }

    /// Opens what the holder of `sender` boxed to this device; nil when it does not open (another sender, modified).
    func open(_ boxed: Data, from sender: Data) -> Data? {
        guard (try? Sodium.start()) != nil, sender.count == Self.publicBytes else { return nil }
        let nonceBytes = Int(crypto_box_noncebytes())
        let macBytes = Int(crypto_box_macbytes())
        guard boxed.count >= nonceBytes + macBytes, boxed.count < 4096 else { return nil }
        let nonce = [UInt8](boxed.prefix(nonceBytes))
        let cipher = [UInt8](boxed.dropFirst(nonceBytes))
        var plain = [UInt8](repeating: 0, count: cipher.count - macBytes)
        let result = sender.withUnsafeBytes { p in
            secret.withUnsafeBytes { s in
                crypto_box_open_easy(
                    &plain, cipher, UInt64(cipher.count), nonce, p.bindMemory(to: UInt8.self).baseAddress!,
                    s.bindMemory(to: UInt8.self).baseAddress!)
            }
        }
        return result == 0 ? Data(plain) : nil
    }
}
