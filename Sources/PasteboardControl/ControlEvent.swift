public import FoundationEssentials

/// Something that happened, as every watcher sees it (`pb watch` prints these lines). Every event has a name and
/// a time; the other fields belong to some events only (docs/protocol.md lists which).
public struct ControlEvent: Codable, Sendable, Equatable {
    /// An event's name. Clients may announce names of their own through `notify`.
    public struct Name: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// A copy was recorded (or repeated an item, which moved to the top).
        public static let captured: Name = "captured"
        /// An item was put back on the clipboard.
        public static let restored: Name = "restored"
        public static let pinned: Name = "pinned"
        public static let unpinned: Name = "unpinned"
        public static let deleted: Name = "deleted"
        /// The history was cleared.
        public static let cleared: Name = "cleared"
        /// The clipboard was emptied.
        public static let clearedClipboard: Name = "cleared-clipboard"
        /// The clipboard was read and cleared in one step (`pb take`).
        public static let taken: Name = "taken"
        /// An application asks to paste an item that asks first: approvers show "Allow *reader* to paste from
        /// *source*?" and answer with `answer-paste` before `deadline`.
        public static let pasteRequested: Name = "paste-requested"
        /// An item was pasted, or a paste refused (`outcome`); with `request`, the answer to that question.
        public static let pasted: Name = "pasted"
        /// Many items were recorded at once (`pb import`): `count`, the new ones with ids `id`...`lastID`.
        public static let imported: Name = "imported"
        /// An item's expiry time passed and it was deleted.
        public static let expired: Name = "expired"
        /// Retention deleted an item (`id`), or `count` items at once.
        public static let pruned: Name = "pruned"
        /// A copy made on another device (`device`) arrived through sync: an item (`id`, `new`) or, with `count`,
        /// many at once.
        public static let arrived: Name = "arrived"
        /// An item moved to the top without being copied (the order sync agreed on).
        public static let moved: Name = "moved"
        /// An item's settings changed (whether it asks before it is pasted).
        public static let changed: Name = "changed"
        /// A paste stack moved on, or ended: `id` is on the clipboard now, `remaining` items are to come after it.
        public static let pasteStack: Name = "paste-stack"
        /// The watcher asked for the changes after a `seq` the daemon no longer keeps: reload everything shown.
        public static let reload: Name = "reload"

        /// The events the daemon makes from the store's change feed, whoever changed the store; a client's
        /// `notify` with one of these names is not passed on (the change itself is).
        public static let historyChanges: Set<Name> = [
            .captured, .restored, .pinned, .unpinned, .deleted, .cleared, .imported, .expired, .pruned, .arrived,
            .moved, .changed,
        ]
    }

    public var event: Name
    /// Seconds since 1970, fractional; set by the daemon when it sends the event.
    public var time: Double?
    /// A change of the history: its number in the store's change feed. A watcher that reconnects passes the last
    /// one it saw (`watch` with `since`) and is sent what it missed.
    public var seq: Int64?
    public var id: Int64?
    /// `imported`, `arrived` of many: the last new item's id (the new ones are `id`...`lastID`).
    public var lastID: Int64?
    /// A change that came through sync: the device it was made on.
    public var device: String?
    /// `captured`: false when the copy repeated an existing item.
    public var new: Bool?
    /// `captured`: `clipboard` or `primary`.
    public var selection: String?
    /// `captured`: the stored content types' identifiers.
    public var types: [String]?
    /// `captured`: bytes of all representations.
    public var size: Int?
    /// `captured`: the copying application, when known.
    public var source: String?
    /// `captured`: when the item was in the store.
    public var committed: Double?
    /// `captured`: the backend's time of the owner change (X server time).
    public var ownerTime: UInt?
    /// `cleared`, `imported`, `pruned`: how many items; `cleared`: whether pinned ones were kept.
    public var count: Int?
    public var keptPinned: Bool?
    /// `paste-requested`, `pasted`: the question's number, the reading application (when the backend knows it)
    /// and its process id.
    public var request: Int?
    public var reader: String?
    public var readerPID: Int?
    /// `paste-requested`: when the paste is refused unless allowed (seconds since 1970).
    public var deadline: Double?
    /// `pasted`: `served`, `allowed`, `refused`, `unanswered` or `no-approver`.
    public var outcome: String?
    /// `paste-stack`: how many items are still to come after the one on the clipboard (0: the stack ended).
    public var remaining: Int?

    public init(_ event: Name, id: Int64? = nil, time: Double? = nil) {
        self.event = event
        self.id = id
        self.time = time
    }

    /// When the event happened, from `time`.
    public var date: Date? { time.map { Date(timeIntervalSince1970: $0) } }
}
