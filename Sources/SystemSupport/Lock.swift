#if canImport(Glibc)
import Glibc
#endif

/// A mutual-exclusion lock for state that several threads share inside a class (a `pthread_mutex_t`), for the places
/// where `Synchronization.Mutex`'s single owned value does not fit: several fields guarded together, non-`Sendable`
/// values handed out under the lock.
public final class Lock: @unchecked Sendable {
    // @unchecked Sendable: the mutex is the synchronisation; it lives at a fixed address (allocated here, never moved)
    // as POSIX requires.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Default attributes cannot fail to initialise a mutex on Linux (glibc returns 0).
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init: \(SystemError.reason(errno: status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock. Never call a blocking operation inside it.
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
