public import FoundationEssentials
public import PasteboardModel

/// One entry of the clipboard history as listed: metadata and a one-line preview, not the payload.
public struct HistoryItem: Sendable, Hashable, Identifiable {
    /// The broad kind of an item, for display and filtering.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case text, url, html, image, file, data
    }

    public let id: Int64
    public let kind: Kind
    /// The first line of the item's text (or a description for binary items), at most about 200 characters.
    public let preview: String
    /// Total bytes over all representations.
    public let size: Int
    public let created: Date
    public let lastCopied: Date
    public let copyCount: Int
    public let isPinned: Bool
    /// The application that owned the selection, when known.
    public let source: String?
    /// The selection it came from (`clipboard`, `primary`), when captured from a display.
    public let selection: String?
    public let expiresAt: Date?
    /// The content types, in the item's order.
    public let types: [ContentType]
    /// Whether a paste of it waits for the user's Allow in the app ("Allow Paste").
    public var asksBeforePaste = false
    /// Its place in the history (larger is newer; a copy again moves it up): where a page that ends with it leaves
    /// off (`HistoryStore.page(_:below:limit:)`).
    public internal(set) var position: Int64 = 0
}

/// Where an item came from and how long it lives, given when it is recorded.
public struct CaptureMetadata: Sendable, Equatable {
    public var source: String?
    public var selection: String?
    public var date: Date
    public var expiresAt: Date?

    /// For imports: when the item was first copied (defaults to `date`), how often, and whether pinned.
    public var created: Date?
    public var copyCount: Int
    public var isPinned: Bool
    /// Pastes wait for the user's Allow (`pb copy --ask`, an `ask-app`/`ask-type` rule). A repeated copy that
    /// asks makes the existing item ask too; one that does not ask leaves it as it was.
    public var asksBeforePaste: Bool

    public init(
        source: String? = nil, selection: String? = nil, date: Date = Date(), expiresAt: Date? = nil,
        created: Date? = nil, copyCount: Int = 1, isPinned: Bool = false, asksBeforePaste: Bool = false
    ) {
        self.asksBeforePaste = asksBeforePaste
        self.source = source
        self.selection = selection
        self.date = date
        self.expiresAt = expiresAt
        self.created = created
        self.copyCount = copyCount
        self.isPinned = isPinned
    }
}

/// The outcome of recording an item.
public struct RecordResult: Sendable, Equatable {
    public let id: Int64
    /// False when the item duplicated an existing one, which moved to the top.
    public let isNew: Bool
}
