public import TextSupport

/// Why a sync step failed: a code to act on, a message a user can follow, and the cause kept.
public struct SyncError: ActionableError {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// libsodium failed or is unusable.
        public static let crypto = Code(rawValue: "crypto")
        /// A file does not open with the key, was modified, or was cut short.
        public static let rejected = Code(rawValue: "rejected")
        /// The key (or phrase, or passphrase) does not open this folder's data.
        public static let wrongKey = Code(rawValue: "wrong-key")
        /// What the user gave (a phrase, a folder) is not usable.
        public static let invalidInput = Code(rawValue: "invalid-input")
        /// Sync is not set up on this device, or already is.
        public static let notJoined = Code(rawValue: "not-joined")
        public static let alreadyJoined = Code(rawValue: "already-joined")
        /// Reading or writing a file failed.
        public static let io = Code(rawValue: "io")
    }

    public let code: Code
    public let message: String
    public let cause: (any Error)?

    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
