import Synchronization

/// A check that a file-backed representation's file still holds the bytes it was stored with, run at most once, when
/// the bytes are first read.
///
/// A store hands out its payload files this way when reading them up front would cost more than the operation
/// (restoring a 50 MB item): the check's hash pass is paid by the first reader, and every copy of the representation
/// shares its outcome.
/// ```swift
/// let check = PayloadVerifier { fileStillMatchesItsHash(url) ? nil : PasteboardError(.storage, "damaged") }
/// let representation = PasteboardItem.Representation(type: .png, fileURL: url, size: size, check: check)
/// try representation.verify()  // hashes the file now; later calls answer at once
/// ```
public final class PayloadVerifier: Sendable {
    private enum Outcome: Sendable {
        case pending
        case passed
        case failed(PasteboardError)
    }

    private let body: @Sendable () -> PasteboardError?
    private let outcome = Mutex(Outcome.pending)

    /// A check running `body`, which returns why the bytes cannot be used, or nil when they are good.
    public init(_ body: @escaping @Sendable () -> PasteboardError?) {
        self.body = body
    }

    /// Runs the check the first time; afterwards answers with its outcome. Two readers asking at the same moment may
    /// both run it (the lock is not held across the file's reading).
    public func verify() throws(PasteboardError) {
        switch outcome.withLock({ $0 }) {
        case .passed: return
        case .failed(let error): throw error
        case .pending: break
        }
        let failure = body()
        outcome.withLock { $0 = failure.map(Outcome.failed) ?? .passed }
        if let failure { throw failure }
    }

    /// Whether the check has run and found the bytes good.
    public var hasPassed: Bool {
        if case .passed = outcome.withLock({ $0 }) { return true }
        return false
    }
}
