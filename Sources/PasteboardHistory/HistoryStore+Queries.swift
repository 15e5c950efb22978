import FoundationEssentials
import PatternMatching
public import PasteboardModel
import SQLiteSupport
import TextSupport

/// What to list or search for.
public struct HistoryQuery: Sendable, Equatable {
    /// Substring to find, ignoring accents and case (nil lists everything; see `SearchMatcher`).
    public var text: String?
    /// Treat `text` as a regular expression (ICU syntax), case-insensitive unless it says `(?-i)`.
    public var isRegex: Bool
    /// Treat `text` as a fuzzy pattern: its characters in order, anything between, ignoring accents and case.
    public var isFuzzy = false
    /// Only items with a representation conforming to this type.
    public var type: ContentType?
    /// Only pinned items.
    public var pinnedOnly: Bool
    /// Only items of these kinds (as listed: a URL copied as text is a `url`), nil for any.
    public var kinds: Set<HistoryItem.Kind>?
    public var limit: Int
    /// Skip this many matches (for paging).
    public var offset: Int

    public init(
        text: String? = nil, isRegex: Bool = false, type: ContentType? = nil, pinnedOnly: Bool = false, limit: Int = 100,
        offset: Int = 0, kinds: Set<HistoryItem.Kind>? = nil
    ) {
        self.kinds = kinds
        self.text = text
        self.isRegex = isRegex
        self.type = type
        self.pinnedOnly = pinnedOnly
        self.limit = limit
        self.offset = offset
    }
}

extension HistoryStore {
    static let itemColumns = """
        SELECT i.id, i.position, i.kind, i.size, coalesce(i.created, i.last_copied) AS created, i.last_copied,
            i.copy_count, i.pinned, i.source, i.selection, i.expires_at, i.ask_before_paste, substr(\(textBytesSQL), 1, 1024) AS head,
            \(textHashSQL) AS text_hash, \(textInFileSQL) AS text_in_file,
            coalesce((SELECT group_concat(identifier, char(10)) FROM (SELECT t.identifier FROM representations r
                JOIN content_types t ON t.id = r.type_id WHERE r.item_id = i.id ORDER BY r.ordinal)),
                (SELECT identifier FROM content_types WHERE id = i.text_type)) AS types
        FROM items i LEFT JOIN blobs b ON b.id = i.text_blob
        """

    func historyItem(_ row: Row) -> HistoryItem {
        var head = row.data("head") ?? Data()
        if row.int("text_in_file") == 1, let hash = row.data("text_hash") { head = files.prefix(hash: hash, count: 1024) }
        let kind = HistoryItem.Kind(rawValue: row.string("kind") ?? "") ?? .data
        let size = Int(row.int("size") ?? 0)
        var preview = ItemText.preview(head)
        if kind == .image || kind == .data { preview += " (\(ByteCountFormatting.string(size)))" }
        var item = HistoryItem(
            id: row.int("id") ?? 0,
            kind: kind,
            preview: preview,
            size: size,
            created: Date(timeIntervalSince1970: row.double("created") ?? 0),
            lastCopied: Date(timeIntervalSince1970: row.double("last_copied") ?? 0),
            copyCount: Int(row.int("copy_count") ?? 1),
            isPinned: row.int("pinned") == 1,
            source: row.string("source"),
            selection: row.string("selection"),
            expiresAt: row.double("expires_at").map { Date(timeIntervalSince1970: $0) },
            // One identifier a line: an identifier kept verbatim may hold spaces (`;windows_formatname="Star
            // Object Descriptor (XML)"`), never a line break.
            types: (row.string("types") ?? "").split(separator: "\n").map { ContentType(String($0)) })
        item.asksBeforePaste = row.int("ask_before_paste") == 1
        item.position = row.int("position") ?? 0
        return item
    }

    /// The number of items (from the totals the store keeps: no item is read).
    public func count() throws(HistoryError) -> Int {
        try perform { Int(try db.row("SELECT coalesce(sum(items), 0) AS n FROM item_totals")?.int("n") ?? 0) }
    }

    /// One item's metadata.
    public func item(id: Int64) throws(HistoryError) -> HistoryItem {
        let row = try perform { try db.row(Self.itemColumns + " WHERE i.id = ?", id) }
        guard let row else { throw HistoryError(.noSuchItem, "No history item with id \(id).") }
        return historyItem(row)
    }

    /// The id of the newest item, if any.
    public func newestID() throws(HistoryError) -> Int64? {
        try perform { try db.row("SELECT id FROM items ORDER BY position DESC LIMIT 1")?.int("id") }
    }

    /// One item with every representation's bytes, ready to go back on a pasteboard. Each payload is checked
    /// against its content hash first: a missing or damaged one throws `missingPayload` or `damagedPayload`
    /// (with the item's id), never comes back as if it were good.
    public func pasteboardItem(id: Int64) throws(HistoryError) -> PasteboardItem {
        try perform {
            let reps = try db.rows("SELECT type_id, blob_id FROM representations WHERE item_id = ? ORDER BY ordinal", id)
            if reps.isEmpty {
                // One text kept in the item's row (InlineText.swift), checked against the item's identity.
                guard let inline = try inlineRepresentation(of: id) else {
                    throw HistoryError(.noSuchItem, "No history item with id \(id).")
                }
                return PasteboardItem([inline])
            }
            var item = PasteboardItem()
            for rep in reps {
                guard let typeID = rep.int("type_id"), let blobID = rep.int("blob_id") else { continue }
                item.setRepresentation(try blobRepresentation(blobID, type: try type(forID: typeID), of: .item(id)))
            }
            return item
        }
    }

    /// Items newest first, filtered by `query`, in a window of `query.limit` after `query.offset`.
    public func items(_ query: HistoryQuery = HistoryQuery()) throws(HistoryError) -> [HistoryItem] {
        try perform { () throws -> [HistoryItem] in
            let typeFilter = try typeIDs(conformingTo: query.type)
            if let typeFilter, typeFilter.isEmpty { return [] }
            if let kinds = query.kinds, kinds.isEmpty { return [] }
            if let text = query.text, !text.isEmpty {
                let matcher = try SearchMatcher(text, mode: query.isRegex ? .regex : query.isFuzzy ? .fuzzy : .substring)
                if let phrase = matcher.indexQuery {
                    return try indexedSearch(matcher, phrase: phrase, query: query, typeFilter: typeFilter)
                }
                return try streamingSearch(
                    query: query, typeFilter: typeFilter,
                    sqlFilter: matcher.asciiPrefilterNeedle == nil ? nil : Self.asciiPrefilter,
                    sqlValue: matcher.asciiPrefilterNeedle, grams: SearchGrams.required(by: matcher), matches: matcher.matches)
            }
            var conditions: [String] = []
            if query.pinnedOnly { conditions.append("i.pinned") }
            if let kinds = query.kinds { conditions.append(Self.kindCondition(kinds)) }
            if let typeFilter { conditions.append(Self.typeCondition(typeFilter)) }
            let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            guard query.offset > 0 else {
                return try db.rows(Self.itemColumns + whereClause + " ORDER BY i.position DESC LIMIT ?", query.limit)
                    .map(historyItem)
            }
            // A window deep in the history: its first position comes from the position index alone, then the window
            // is read from there. OFFSET on the full query reads every skipped item's text blob (0.15 s at 100,000
            // items, 10 ms this way), which a list scrolled to its end would pay on every page.
            guard
                let start = try db.row(
                    "SELECT i.position AS start FROM items i" + whereClause + " ORDER BY i.position DESC LIMIT 1 OFFSET ?",
                    query.offset)?.int("start")
            else { return [] }
            conditions.append("i.position <= ?")
            return try db.rows(
                Self.itemColumns + " WHERE " + conditions.joined(separator: " AND ") + " ORDER BY i.position DESC LIMIT ?",
                start, query.limit
            ).map(historyItem)
        }
    }

    /// Shorthand for the newest `limit` items.
    public func items(limit: Int) throws(HistoryError) -> [HistoryItem] {
        try items(HistoryQuery(limit: limit))
    }

    /// Kinds are fixed identifiers of this module (letters only): safe to inline.
    static func kindCondition(_ kinds: Set<HistoryItem.Kind>) -> String {
        "i.kind IN (" + kinds.map { "'\($0.rawValue)'" }.sorted().joined(separator: ",") + ")"
    }

    static func typeCondition(_ ids: [Int64]) -> String {
        let list = ids.map(String.init).joined(separator: ",")
        return "(i.text_type IN (\(list)) OR EXISTS (SELECT 1 FROM representations r WHERE r.item_id = i.id AND r.type_id IN (\(list))))"
    }

    /// The ids of stored content types conforming to `type`; nil when there is no filter.
    func typeIDs(conformingTo type: ContentType?) throws -> [Int64]? {
        guard let type else { return nil }
        var ids: [Int64] = []
        for row in try db.rows("SELECT id, identifier FROM content_types") {
            guard let id = row.int("id"), let identifier = row.string("identifier") else { continue }
            if ContentType(identifier).conforms(to: type) { ids.append(id) }
        }
        return ids
    }

    /// Substring search through the trigram index, newest first, paging through candidates.
    ///
    /// The index keeps no positions (`detail=none`, a third of the size of a positional index), so it returns every
    /// item holding all the query's terms (`phrase`, `SearchTerms.query`); each candidate's text is then checked.
    ///
    /// Items not indexed yet (the newest ones, see HistoryStore+SearchBacklog.swift) are scanned first, with the
    /// same check of each text, so a search right after an import finds what it brought.
    func indexedSearch(_ matcher: SearchMatcher, phrase: String, query: HistoryQuery, typeFilter: [Int64]?) throws -> [HistoryItem] {
        var conditions: [String] = []
        if query.pinnedOnly { conditions.append("i.pinned") }
        if let kinds = query.kinds { conditions.append(Self.kindCondition(kinds)) }
        if let typeFilter { conditions.append(Self.typeCondition(typeFilter)) }
        let filter = conditions.map { " AND " + $0 }.joined()
        var ids: [Int64] = []
        var skipped = 0
        var below = Int64.max
        if let indexedThrough = try searchIndexedThrough() {
            let needle = matcher.asciiPrefilterNeedle
            let backlog = try scan(
                query: query, typeFilter: typeFilter,
                sqlFilter: "i.position > ?" + (needle != nil ? " AND " + Self.asciiPrefilter : ""),
                sqlValues: needle.map { [indexedThrough, $0] } ?? [indexedThrough], matches: matcher.matches)
            ids = backlog.ids
            skipped = backlog.skipped
            below = indexedThrough + 1
        }
        // Small first page (the newest matches usually come first), then pages sized by the share that matched.
        var page = max(64, (query.limit + query.offset) * 2)
        var examined = 0
        var matched = 0
        search: while ids.count < query.limit {  // then the indexed items, below the backlog
            let positions = try db.rows(
                "SELECT rowid FROM item_text WHERE item_text MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?",
                phrase, below, page
            ).compactMap { $0.int(0) }
            if positions.isEmpty { break }
            // One query per page of candidates (positions are integers from the index: safe to inline).
            let list = positions.map(String.init).joined(separator: ",")
            var candidates: [Int64: Row] = [:]
            for row in try db.rows(
                "SELECT i.id, i.position, \(Self.textHashSQL) AS hash, \(Self.textInFileSQL) AS inFile, "
                    + "substr(\(Self.textBytesSQL), 1, \(ItemText.indexedPrefix)) AS head, "
                    + Self.recognizedColumn
                    + " FROM items i LEFT JOIN blobs b ON b.id = i.text_blob WHERE i.position IN (\(list))" + filter)
            {
                if let position = row.int("position") { candidates[position] = row }
            }
            for position in positions {
                examined += 1
                guard let row = candidates[position], let id = row.int("id"),
                    searchableTextMatches(row, { matcher.matches($0) })
                else { continue }
                matched += 1
                if skipped < query.offset { skipped += 1; continue }
                ids.append(id)
                if ids.count == query.limit { break search }
            }
            if positions.count < page { break }
            below = positions.last ?? 0
            page = Self.nextCandidatePage(
                after: page, examined: examined, matched: matched,
                wanted: query.limit - ids.count + query.offset - skipped)
        }
        return try ids.compactMap { try db.row(Self.itemColumns + " WHERE i.id = ?", $0).map(historyItem) }
    }

    /// How many index candidates the next page of a search asks for: as many as the matches still `wanted` take at
    /// the share of candidates that matched so far, and a quarter more, between 64 and 4,096; four times the last
    /// page while none matched. A query of two common words ("red apple") matches one candidate in twenty or fewer
    /// (the index knows each word, not that they are side by side): pages growing fourfold read up to three times
    /// the candidates it needs, each one an intersection of the words' terms in the index.
    static func nextCandidatePage(after page: Int, examined: Int, matched: Int, wanted: Int) -> Int {
        guard matched > 0 else { return min(page * 4, 4096) }
        let estimate = max(wanted, 1) * examined / matched * 5 / 4 + 1
        return min(max(estimate, 64), 4096)
    }

    /// The longest a search that reads items one by one (regex, fuzzy, short non-ASCII text) may take.
    static let searchTimeLimit: Duration = .seconds(20)

    /// Streams text items newest first, keeping those `matches` accepts, for at most `searchTimeLimit`.
    func streamingSearch(
        query: HistoryQuery, typeFilter: [Int64]?, sqlFilter: String? = nil, sqlValue: (any SQLiteBindable)? = nil,
        grams: [Int]? = nil, matches: @escaping @Sendable (Data) -> Bool
    ) throws -> [HistoryItem] {
        let found = try scan(
            query: query, typeFilter: typeFilter, sqlFilter: sqlFilter, sqlValues: sqlValue.map { [$0] } ?? [],
            grams: grams, matches: matches)
        return try found.ids.compactMap { try db.row(Self.itemColumns + " WHERE i.id = ?", $0).map(historyItem) }
    }

    /// The first `limit` bytes of an item's text (its own, or the text derived from its HTML), decoded as
    /// UTF-8; nil when it has none. Reads no more than that, whatever the item's size.
    public func textPrefix(id: Int64, limit: Int) throws(HistoryError) -> String? {
        try perform { () throws -> String? in
            guard
                let row = try db.row(
                    "SELECT \(Self.textHashSQL) AS hash, \(Self.textInFileSQL) AS inFile, substr(\(Self.textBytesSQL), 1, ?) AS head "
                        + "FROM items i LEFT JOIN blobs b ON b.id = i.text_blob "
                        + "WHERE i.id = ? AND (i.text_data IS NOT NULL OR b.id IS NOT NULL)", limit, id)
            else {
                guard try db.row("SELECT 1 AS found FROM items WHERE id = ?", id) != nil else {
                    throw HistoryError(.noSuchItem, "No history item with id \(id).")
                }
                return nil
            }
            var head = row.data("head") ?? Data()
            if row.int("inFile") == 1, let hash = row.data("hash") { head = files.prefix(hash: hash, count: limit) }
            return String(decoding: head, as: UTF8.self)
        }
    }
}

/// Human-readable byte counts (`12.3 KB`), decimal units like `ls -h --si`.
public enum ByteCountFormatting {
    public static func string(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        return CFormat.string(value < 10 ? "%.1f" : "%.0f", value) + " " + units[unit]
    }
}

extension HistoryStore {
    /// Items oldest first, after the cursor `position` (nil for the start): for exports that stream the
    /// whole history without ever holding it. Returns the items and the cursor for the next page.
    public func itemsInCopyOrder(after position: Int64?, limit: Int, type: ContentType? = nil) throws(HistoryError) -> (items: [HistoryItem], next: Int64?) {
        try perform { () throws -> ([HistoryItem], Int64?) in
            let typeFilter = try typeIDs(conformingTo: type)
            if let typeFilter, typeFilter.isEmpty { return ([], nil) }
            var sql = Self.itemColumns + " WHERE i.position > ?"
            if let typeFilter { sql += " AND " + Self.typeCondition(typeFilter) }
            let rows = try db.rows(sql + " ORDER BY i.position LIMIT ?", position ?? 0, limit)
            let next = rows.count == limit ? rows.last?.int("position") : nil
            return (rows.map(historyItem), next)
        }
    }
}
