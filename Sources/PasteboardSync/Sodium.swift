internal import CSodium
import FoundationEssentials
import Synchronization

/// libsodium, initialised once per process (`sodium_init` is safe to call again; it returns 1 when already done).
enum Sodium {
    private static let ready = Mutex(false)

    static func start() throws(SyncError) {
        try ready.withLock { (isReady: inout Bool) throws(SyncError) in
            if isReady { return }
            guard sodium_init() >= 0 else { throw SyncError(.crypto, "libsodium could not be initialised.") }
            isReady = true
        }
    }

    /// `count` bytes from the system's random source.
    static func randomBytes(_ count: Int) throws(SyncError) -> Data {
        try start()
        var bytes = Data(count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }

    /// Compares in constant time.
    static func equal(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in sodium_memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0 } }
    }
}
