public import FoundationEssentials
public import PasteboardModel
public import TextSupport

/// One item of another clipboard manager's history, as its file holds it: every format it kept, in its order, and
/// what the manager knew of its times and pin.
public struct ImportedItem: Sendable {
    public var item: PasteboardItem
    /// When it was last copied; nil when the manager keeps no times (then `ImportedHistory.datingUndated` gives one
    /// from the history's order).
    public var date: Date?
    /// When it was first copied, when the manager knows.
    public var created: Date?
    public var copyCount: Int
    public var isPinned: Bool
    /// The application it was copied from, when the manager knows.
    public var source: String?

    public init(
        item: PasteboardItem, date: Date? = nil, created: Date? = nil, copyCount: Int = 1, isPinned: Bool = false,
        source: String? = nil
    ) {
        self.item = item
        self.date = date
        self.created = created
        self.copyCount = copyCount
        self.isPinned = isPinned
        self.source = source
    }
}

/// What a reader found: the items newest first, and what it passed over, by reason.
public struct ImportedHistory: Sendable {
    public var items: [ImportedItem] = []
    /// Items (or formats of items) left out, counted by a reason a user can read ("passwords (GPaste keeps no
    /// text for them)", "image file missing").
    public var skipped: [String: Int] = [:]
    /// The files read, for the summary.
    public var files: [String] = []

    public init(items: [ImportedItem] = [], skipped: [String: Int] = [:], files: [String] = []) {
        self.items = items
        self.skipped = skipped
        self.files = files
    }

    mutating func skip(_ reason: String, count: Int = 1) {
        skipped[reason, default: 0] += count
    }

    mutating func append(contentsOf other: ImportedHistory) {
        items.append(contentsOf: other.items)
        for (reason, count) in other.skipped { skipped[reason, default: 0] += count }
        files.append(contentsOf: other.files)
    }

    /// Gives each item without a date one that keeps the history's order: the newest undated item gets `newest`
    /// (the file's modification time), each older one a millisecond less. Managers that keep no times (CopyQ,
    /// Klipper, GPaste, clipboard-indicator, cliphist) keep only the order, and pb orders its history by date.
    public mutating func datingUndated(newest: Date) {
        var step = 0.0
        for index in items.indices where items[index].date == nil {
            items[index].date = newest.addingTimeInterval(-step / 1000)
            step += 1
        }
    }
}

/// Why a history could not be read: a message naming the file, and for a damaged one where reading stopped.
public struct ImportError: ActionableError, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    /// A damaged or truncated file: `what` went wrong at byte `offset`, in item `item` (counted from 1, in the
    /// file's order) when reading one.
    static func damaged(_ file: String, offset: Int, item: Int?, _ what: String) -> ImportError {
        let place = "at byte \(offset)" + (item.map { " (item \($0))" } ?? "")
        return ImportError("\(file) is damaged or truncated: \(what) \(place).")
    }
}

/// The size bounds of every read.
public enum ImportLimits {
    /// A history file (a CopyQ tab, a Klipper list, a registry), read whole: larger ones are refused.
    public static let fileBytes = 1 << 30
    /// One payload read from a file of its own or from `cliphist decode`.
    public static let payloadBytes = 256 << 20
}

extension PasteboardItem {
    /// The item of formats named by MIME types or X11 target names as another manager stored them ("text/plain",
    /// "UTF8_STRING"), in order. A second name of a type already there (`text/plain;charset=utf-8` beside
    /// `text/plain`) is kept under its verbatim name; a name pb cannot hold is counted in `unnamed`.
    static func fromNamedFormats(_ formats: [(name: String, data: Data)], unnamed: inout Int) -> PasteboardItem {
        var seen = Set<ContentType>()
        var representations: [PasteboardItem.Representation] = []
        for (name, data) in formats {
            var type = ContentType(x11Target: name) ?? ContentType(mimeType: name)
            if let found = type, seen.contains(found) { type = ContentType(verbatimName: name) }
            guard let type, seen.insert(type).inserted else {
                unnamed += 1
                continue
            }
            representations.append(PasteboardItem.Representation(type: type, data: data))
        }
        return PasteboardItem(representations)
    }
}
