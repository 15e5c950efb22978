import SQLiteSupport
public import TextSupport

/// An error from the history store, with a message a user can act on.
public struct HistoryError: ActionableError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        /// The file exists but is not a SQLite database, or is damaged.
        public static let corrupt = Code(name: "corrupt")
        /// The file was written by a newer version of Pasteboard.
        public static let newerSchema = Code(name: "newerSchema")
        /// The file is an SQLite database of another application: never modified.
        public static let foreignDatabase = Code(name: "foreignDatabase")
        /// A store directory or file is not safe to trust: another user owns it or can write it, or a symbolic
        /// link stands where a store file should be.
        public static let unsafe = Code(name: "unsafe")
        /// A stored payload is gone (its file was removed, or the row that holds it is missing).
        public static let missingPayload = Code(name: "missingPayload")
        /// A stored payload no longer matches its content hash.
        public static let damagedPayload = Code(name: "damagedPayload")
        /// The store cannot be created or written (permissions, read-only file system).
        public static let notWritable = Code(name: "notWritable")
        /// The disk is full.
        public static let full = Code(name: "full")
        /// No item has the requested id.
        public static let noSuchItem = Code(name: "noSuchItem")
        /// No pasteboard has the requested name.
        public static let noSuchPasteboard = Code(name: "noSuchPasteboard")
        /// The input could not be used (bad import line, empty item, …).
        public static let invalidInput = Code(name: "invalidInput")
        /// Another process holds the database longer than the busy timeout.
        public static let busy = Code(name: "busy")
        /// The query was stopped because a newer one made it pointless (`HistoryStore.page(…isCancelled:)`).
        public static let cancelled = Code(name: "cancelled")
        /// Any other I/O or database failure.
        public static let io = Code(name: "io")
    }

    public let code: Code
    public let message: String
    /// The underlying error, if any (never holding clipboard contents).
    public let underlying: (any Error & Sendable)?
    /// The history item the error is about, when it is about one (a missing or damaged payload).
    public let itemID: Int64?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil, itemID: Int64? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
        self.itemID = itemID
    }

    /// Translates an SQLite error met while using the store at `path`.
    static func from(_ error: SQLiteError, path: String) -> HistoryError {
        if error.isCorrupt {
            return HistoryError(
                .corrupt,
                "The history store \(path) is not a Pasteboard database or is damaged (\(error.message)). "
                    + "It was left untouched; move it aside to start a new history.",
                underlying: error)
        }
        if error.isReadOnly || error.isCannotOpen {
            return HistoryError(
                .notWritable,
                "Cannot write the history store \(path) (\(error.message)). "
                    + "Check that its directory is writable, or set XDG_DATA_HOME to a writable place.",
                underlying: error)
        }
        if error.isFull {
            return HistoryError(.full, "The disk holding \(path) is full; nothing was changed. Free some space and retry.", underlying: error)
        }
        if error.isInterrupted {
            return HistoryError(.cancelled, "The query was cancelled by a newer one.", underlying: error)
        }
        if error.isBusy {
            return HistoryError(.busy, "The history store \(path) stayed locked by another process; retry in a moment.", underlying: error)
        }
        return HistoryError(.io, "History store \(path): \(error.message)", underlying: error)
    }
}
