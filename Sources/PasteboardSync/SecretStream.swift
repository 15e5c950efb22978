internal import CSodium
import FoundationEssentials

/// A file sealed with `crypto_secretstream_xchacha20poly1305`: a plaintext magic, the stream header, then each
/// message as a 4-byte big-endian length and its ciphertext. The last message carries the FINAL tag, so a file cut
/// short after any message is detected; every message is bound to `context` (the file's name in the folder) as
/// associated data, so a file renamed or moved to another place does not open either.
enum SecretStream {
    /// The first bytes of every sealed file: "PBS" and the format version.
    static let magic = Data("PBS1".utf8)
    /// The largest message `open` accepts (payload chunks are 64 KiB; log records are small).
    static let maxMessageBytes = 1 << 20
    /// How payloads are cut into messages.
    static let chunkBytes = 64 * 1024

    static var overhead: Int { magic.count + Int(crypto_secretstream_xchacha20poly1305_headerbytes()) }
    static var perMessageOverhead: Int { 4 + Int(crypto_secretstream_xchacha20poly1305_abytes()) }

    /// Seals `messages` (at least one) in order.
    static func seal(_ messages: [Data], key: SecretKey, context: String) throws(SyncError) -> Data {
        precondition(!messages.isEmpty, "a sealed file holds at least one message")  // callers always pass one
        var sealer = try Sealer(key: key, context: context)
        var out = sealer.prefix
        for (index, message) in messages.enumerated() {
            out.append(try sealer.seal(message, final: index == messages.count - 1))
        }
        return out
    }

    /// Seals a file a message at a time, for files too large to hold whole (a snapshot): `prefix` first, then what
    /// each `seal` returns, in order; the last message is sealed `final`.
    struct Sealer {
        /// The magic and the stream header: the file's first bytes.
        let prefix: Data
        private var state = crypto_secretstream_xchacha20poly1305_state()
        private let ad: [UInt8]

        init(key: SecretKey, context: String) throws(SyncError) {
            try Sodium.start()
            var header = [UInt8](repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
            var state = crypto_secretstream_xchacha20poly1305_state()
            let started = key.bytes.withUnsafeBytes { k in
                crypto_secretstream_xchacha20poly1305_init_push(&state, &header, k.bindMemory(to: UInt8.self).baseAddress!)
            }
            guard started == 0 else { throw SyncError(.crypto, "libsodium could not start an encrypted stream.") }
            self.state = state
            self.prefix = SecretStream.magic + Data(header)
            self.ad = [UInt8](context.utf8)
        }

        /// The next message as it goes in the file: its length, then its ciphertext.
        mutating func seal(_ message: Data, final: Bool) throws(SyncError) -> Data {
            let tag = final ? crypto_secretstream_xchacha20poly1305_tag_final() : crypto_secretstream_xchacha20poly1305_tag_message()
            var cipher = [UInt8](repeating: 0, count: message.count + Int(crypto_secretstream_xchacha20poly1305_abytes()))
            var cipherLength: UInt64 = 0
            let ad = self.ad
            let pushed = message.withUnsafeBytes { m in
                crypto_secretstream_xchacha20poly1305_push(
                    &state, &cipher, &cipherLength, m.bindMemory(to: UInt8.self).baseAddress, UInt64(message.count),
                    ad, UInt64(ad.count), tag)
            }
            guard pushed == 0 else { throw SyncError(.crypto, "libsodium could not encrypt a message.") }
            var out = Data(capacity: 4 + Int(cipherLength))
            var length = UInt32(cipherLength).bigEndian
            withUnsafeBytes(of: &length) { out.append(contentsOf: $0) }
            out.append(contentsOf: cipher[0..<Int(cipherLength)])
            return out
        }
    }

    /// Opens a sealed file: every message, or an error when anything is wrong (another key, a changed byte, a
    /// missing end, bytes after the end, a different `context`). Nothing is returned from a file that fails.
    static func open(_ file: Data, key: SecretKey, context: String) throws(SyncError) -> [Data] {
        var source = MemorySource(bytes: [UInt8](file))
        var messages: [Data] = []
        try open(&source, key: key, context: context) { messages.append($0) }
        return messages
    }

    /// Opens a sealed file read from `source`, handing each message to `message` as it is decrypted; throws when
    /// anything is wrong, possibly after some messages were handed over (the caller uses them only once this
    /// returns). Each message's declared length is checked against its limit and against what is left of the file
    /// before it is read, so a file that lies about its lengths costs no more than one message of memory.
    static func open<Source: SealedSource>(
        _ source: inout Source, key: SecretKey, context: String, message: (Data) throws(SyncError) -> Void
    ) throws(SyncError) {
        try Sodium.start()
        let headerBytes = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
        let abytes = Int(crypto_secretstream_xchacha20poly1305_abytes())
        guard source.remaining >= magic.count + headerBytes, Data(try source.read(magic.count)) == magic else {
            throw SyncError(.rejected, "not a Pasteboard sync file (no PBS1 header)")
        }
        var state = crypto_secretstream_xchacha20poly1305_state()
        let header = try source.read(headerBytes)
        let started = key.bytes.withUnsafeBytes { k in
            crypto_secretstream_xchacha20poly1305_init_pull(&state, header, k.bindMemory(to: UInt8.self).baseAddress!)
        }
        guard started == 0 else { throw SyncError(.rejected, "its stream header is invalid") }
        let ad = [UInt8](context.utf8)
        var finished = false
        while source.remaining > 0 {
            if finished { throw SyncError(.rejected, "it has bytes after its end") }
            guard source.remaining >= 4 else { throw SyncError(.rejected, "it is truncated") }
            let prefix = try source.read(4)
            let length = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
            guard length >= abytes, length <= maxMessageBytes + abytes else {
                throw SyncError(.rejected, "a message has an impossible length")
            }
            guard source.remaining >= length else { throw SyncError(.rejected, "it is truncated (a message is longer than the rest of the file)") }
            let cipher = try source.read(length)
            var plain = [UInt8](repeating: 0, count: length - abytes)
            var plainLength: UInt64 = 0
            var tag: UInt8 = 0
            let pulled = crypto_secretstream_xchacha20poly1305_pull(
                &state, &plain, &plainLength, &tag, cipher, UInt64(length), ad, UInt64(ad.count))
            guard pulled == 0 else {
                throw SyncError(.rejected, "it does not decrypt with this folder's key (modified, or from another folder)")
            }
            try message(Data(plain[0..<Int(plainLength)]))
            if tag == crypto_secretstream_xchacha20poly1305_tag_final() { finished = true }
        }
        guard finished else { throw SyncError(.rejected, "it is truncated (its last message is missing)") }
    }
}

/// Where `SecretStream.open` reads a sealed file from, a piece at a time.
protocol SealedSource {
    /// The bytes not read yet.
    var remaining: Int { get }
    /// The next `count` bytes (at most `remaining`).
    mutating func read(_ count: Int) throws(SyncError) -> [UInt8]
}

/// A sealed file already in memory.
struct MemorySource: SealedSource {
    let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func read(_ count: Int) throws(SyncError) -> [UInt8] {
        guard count <= remaining else { throw SyncError(.rejected, "it is truncated") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}
