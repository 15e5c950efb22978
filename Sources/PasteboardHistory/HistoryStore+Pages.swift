import FoundationEssentials
import SQLiteSupport

/// What a list of the history shows: a search field's text, how it is matched, and the filters beside it.
public struct HistoryFilter: Sendable, Hashable {
    /// How `text` is matched.
    public enum Mode: String, Sendable, Hashable {
        /// Case-insensitive substring (the trigram index from three characters on).
        case substring
        /// A regular expression (ICU syntax).
        case regex
        /// The characters of `text` in order, anything between, ignoring case.
        case fuzzy
    }

    /// What to find (empty: everything).
    public var text: String
    public var mode: Mode
    /// Only items of these kinds (nil: every kind).
    public var kinds: Set<HistoryItem.Kind>?
    public var pinnedOnly: Bool

    public init(text: String = "", mode: Mode = .substring, kinds: Set<HistoryItem.Kind>? = nil, pinnedOnly: Bool = false) {
        self.text = text
        self.mode = mode
        self.kinds = kinds
        self.pinnedOnly = pinnedOnly
    }

    /// Whether nothing is filtered out.
    public var isEmpty: Bool { text.isEmpty && kinds == nil && !pinnedOnly }
}

/// One page of a newest-first listing, and where the next one starts.
public struct HistoryPage: Sendable, Equatable {
    /// The matches, newest first.
    public var items: [HistoryItem]
    /// The next page holds the matches below this position (`page(_:below:limit:)`); nil when none is left.
    /// A page cut short by its deadline ends at the last item it looked at, so the next one goes on from there.
    public var next: Int64?

    public init(items: [HistoryItem], next: Int64?) {
        self.items = items
        self.next = next
    }
}

/// Pages by position (keyset): each page is `WHERE position < cursor ORDER BY position DESC LIMIT n`, so the
/// hundredth page of a search costs what the first does, instead of running the search again from the top past every
/// match skipped (`OFFSET`). Both the app's list and `pb pick` read the history this way (`HistoryListModel`).
extension HistoryStore {
    /// Up to `limit` items matching `filter` below position `below` (nil: from the newest), newest first.
    ///
    /// - Parameters:
    ///   - deadline: when given, a search that reads items one by one stops looking at it and returns what it found,
    ///     with `next` where it stopped (possibly an empty page that is not the end). Without, a search that takes
    ///     longer than `searchTimeLimit` fails, as `items(_:)` does.
    ///   - isCancelled: asked while the query runs (by SQLite's progress handler too); once true the query stops and
    ///     throws `HistoryError.Code.cancelled`.
    public func page(
        _ filter: HistoryFilter, below: Int64? = nil, limit: Int, until deadline: ContinuousClock.Instant? = nil,
        isCancelled: (@Sendable () -> Bool)? = nil
    ) throws(HistoryError) -> HistoryPage {
        precondition(limit > 0, "a page of nothing")  // programmer error
        guard let isCancelled else {
            return try perform { try page(filter, below: below, limit: limit, deadline: deadline, isCancelled: { false }) }
        }
        if isCancelled() { throw Self.cancelled }
        return try perform {
            try db.stopping(when: isCancelled) {
                try page(filter, below: below, limit: limit, deadline: deadline, isCancelled: isCancelled)
            }
        }
    }

    static let cancelled = HistoryError(.cancelled, "The query was cancelled by a newer one.")

    private func page(
        _ filter: HistoryFilter, below: Int64?, limit: Int, deadline: ContinuousClock.Instant?,
        isCancelled: () -> Bool
    ) throws -> HistoryPage {
        if let kinds = filter.kinds, kinds.isEmpty { return HistoryPage(items: [], next: nil) }
        var conditions: [String] = []
        if filter.pinnedOnly { conditions.append("i.pinned") }
        if let kinds = filter.kinds { conditions.append(Self.kindCondition(kinds)) }
        let text = filter.text
        if text.isEmpty {
            var values: [any SQLiteBindable] = []
            if let below {
                conditions.append("i.position < ?")
                values.append(below)
            }
            let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let statement = try db.prepare(Self.itemColumns + whereClause + " ORDER BY i.position DESC LIMIT ?")
            try statement.bind(values + [limit])
            var items: [HistoryItem] = []
            while let row = try statement.step() { items.append(historyItem(row)) }
            return HistoryPage(items: items, next: items.count == limit ? items.last?.position : nil)
        }
        let matcher = try SearchMatcher(text, mode: filter.mode)
        if let phrase = matcher.indexQuery {
            return try indexedPage(
                matcher: matcher, phrase: phrase, conditions: conditions, below: below, limit: limit, deadline: deadline,
                isCancelled: isCancelled)
        }
        var prefilter: String?
        var prefilterValue: (any SQLiteBindable)?
        if let needle = matcher.asciiPrefilterNeedle {
            prefilter = Self.asciiPrefilter
            prefilterValue = needle
        }
        var values: [any SQLiteBindable] = []
        if let prefilter, let prefilterValue {
            conditions.append(prefilter)
            values.append(prefilterValue)
        }
        let found = try scanPage(
            conditions: conditions, values: values, below: below, limit: limit, deadline: deadline,
            isCancelled: isCancelled, grams: SearchGrams.required(by: matcher), matches: matcher.matches)
        return HistoryPage(items: try items(atPositions: found.positions), next: found.next)
    }

    /// Positions a scan reads per statement: the deadline and cancellation are checked between them, so a filter that
    /// SQLite applies itself (the ASCII prefilter, rows it never hands back) overruns them by one range at most
    /// (about 10 ms of a million items' texts).
    static let scanRange: Int64 = 4096

    /// The positions of the text items below `below`, newest first, that `matches` accepts, up to `limit`; and where
    /// the scan stopped (nil: at the oldest item). It reads the history in ranges of `scanRange` positions; at the
    /// deadline it stops with what it has. Without one it fails after `searchTimeLimit`.
    func scanPage(
        conditions: [String], values: [any SQLiteBindable], below: Int64?, limit: Int,
        deadline: ContinuousClock.Instant?, isCancelled: () -> Bool, grams: [Int]? = nil, matches: (Data) -> Bool
    ) throws -> (positions: [Int64], next: Int64?) {
        // Two subqueries: SQLite reads min() or max() alone off the index's end, but both in one SELECT by scanning it.
        guard
            let bounds = try db.row(
                "SELECT (SELECT min(position) FROM items) AS low, (SELECT max(position) FROM items) AS high"),
            let low = bounds.int("low"), let high = bounds.int("high")
        else { return ([], nil) }
        let whereClause =
            " WHERE "
            + (conditions + [Self.hasSearchableText, "i.position < ?", "i.position >= ?"]).joined(separator: " AND ")
        let statement = try db.prepare(
            "SELECT i.position, \(Self.textHashSQL) AS hash, \(Self.textInFileSQL) AS inFile, "
                    + "substr(\(Self.textBytesSQL), 1, \(ItemText.indexedPrefix)) AS head, "
                + Self.recognizedColumn + " FROM items i LEFT JOIN blobs b ON b.id = i.text_blob" + whereClause + " ORDER BY i.position DESC")
        defer { statement.reset() }
        var positions: [Int64] = []
        let limitTime = ContinuousClock.now + Self.searchTimeLimit
        var examined = 0
        var upper = min(below ?? Int64.max, high + 1)
        // One or two letters: a block at a time, skipping those that cannot hold them (HistoryStore+SearchBlocks.swift).
        let reads = try grams.flatMap { try searchBlockFilter(bits: $0, low: low, high: upper - 1) }
        while upper > low {
            var lower = max(low, upper - Self.scanRange)
            if let reads {
                let block = Self.searchBlock(upper - 1)
                lower = max(low, block << Self.searchBlockShift)
                if try !reads(block) {
                    upper = lower
                    if isCancelled() { throw Self.cancelled }
                    continue
                }
            }
            try statement.bind(values + [upper, lower])
            while let row = try statement.step() {
                guard let position = row.int(0) else { continue }
                examined += 1
                if searchableTextMatches(row, matches) {
                    positions.append(position)
                    if positions.count == limit { return (positions, position) }
                }
                if examined % 256 == 0 {
                    if isCancelled() { throw Self.cancelled }
                    if let deadline, ContinuousClock.now > deadline { return (positions, position) }
                }
            }
            upper = lower
            if isCancelled() { throw Self.cancelled }
            let now = ContinuousClock.now
            if let deadline {
                if now > deadline, upper > low { return (positions, upper) }
            } else if now > limitTime {
                throw HistoryError(
                    .invalidInput,
                    "The search stopped after \(Self.searchTimeLimit.components.seconds) s, \(examined) items in, "
                        + "with \(positions.count) found: make the pattern more specific, or narrow it with --type.")
            }
        }
        return (positions, nil)
    }

    /// A substring page through the trigram index: the backlog of items not indexed yet first (scanned, see
    /// HistoryStore+SearchBacklog.swift), then the index's candidates below it, each one's text checked.
    private func indexedPage(
        matcher: SearchMatcher, phrase: String, conditions: [String], below: Int64?, limit: Int,
        deadline: ContinuousClock.Instant?, isCancelled: () -> Bool
    ) throws -> HistoryPage {
        var positions: [Int64] = []
        var below = below ?? Int64.max
        if let indexedThrough = try searchIndexedThrough(), below > indexedThrough + 1 {
            var backlogConditions = conditions + ["i.position > ?"]
            var values: [any SQLiteBindable] = [indexedThrough]
            if let needle = matcher.asciiPrefilterNeedle {
                backlogConditions.append(Self.asciiPrefilter)
                values.append(needle)
            }
            let backlog = try scanPage(
                conditions: backlogConditions, values: values, below: below == Int64.max ? nil : below, limit: limit,
                deadline: deadline, isCancelled: isCancelled
            ) { matcher.matches($0) }
            positions = backlog.positions
            if positions.count == limit || backlog.next != nil {
                return HistoryPage(items: try items(atPositions: positions), next: backlog.next)
            }
            below = indexedThrough + 1
        }
        let filter = conditions.map { " AND " + $0 }.joined()
        // Small first page (the newest matches usually come first), then pages sized by the share that matched.
        var page = max(64, limit * 2)
        var examined = 0
        let before = positions.count
        while true {
            if isCancelled() { throw Self.cancelled }
            let candidates = try db.rows(
                "SELECT rowid FROM item_text WHERE item_text MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?",
                phrase, below, page
            ).compactMap { $0.int(0) }
            if candidates.isEmpty { break }
            // One query per page of candidates (positions are integers from the index: safe to inline).
            let list = candidates.map(String.init).joined(separator: ",")
            var heads: [Int64: Row] = [:]
            for row in try db.rows(
                "SELECT i.position, \(Self.textHashSQL) AS hash, \(Self.textInFileSQL) AS inFile, "
                    + "substr(\(Self.textBytesSQL), 1, \(ItemText.indexedPrefix)) AS head, "
                    + Self.recognizedColumn
                    + " FROM items i LEFT JOIN blobs b ON b.id = i.text_blob WHERE i.position IN (\(list))" + filter)
            {
                if let position = row.int("position") { heads[position] = row }
            }
            for position in candidates {
                examined += 1
                guard let row = heads[position], searchableTextMatches(row, { matcher.matches($0) }) else { continue }
                positions.append(position)
                if positions.count == limit {
                    return HistoryPage(items: try items(atPositions: positions), next: position)
                }
            }
            below = candidates.last ?? 0
            if candidates.count < page { break }
            if let deadline, ContinuousClock.now > deadline {
                return HistoryPage(items: try items(atPositions: positions), next: below)
            }
            page = Self.nextCandidatePage(
                after: page, examined: examined, matched: positions.count - before, wanted: limit - positions.count)
        }
        return HistoryPage(items: try items(atPositions: positions), next: nil)
    }

    /// What SQLite checks of a text before Swift does, for an ASCII query (bound to the folded query): an ASCII text
    /// holds it ignoring ASCII case, or the text is not all ASCII (its length in characters is not its length in
    /// bytes), where accents may hide it from `instr` ("cafe" in "Café"). Texts kept in files pass (NULL data).
    static let asciiPrefilter =
        "(\(textInFileSQL) OR instr(lower(CAST(\(textBytesSQL) AS TEXT)), ?) > 0 OR length(\(textBytesSQL)) <> length(CAST(\(textBytesSQL) AS TEXT)))"

    /// The items at `positions`, in that order (one gone meanwhile is left out).
    func items(atPositions positions: [Int64]) throws -> [HistoryItem] {
        guard !positions.isEmpty else { return [] }
        var byPosition: [Int64: HistoryItem] = [:]
        // Positions are integers read from the store: safe to inline.
        for row in try db.rows(
            Self.itemColumns + " WHERE i.position IN (\(positions.map(String.init).joined(separator: ",")))")
        {
            let item = historyItem(row)
            byPosition[item.position] = item
        }
        return positions.compactMap { byPosition[$0] }
    }
}
