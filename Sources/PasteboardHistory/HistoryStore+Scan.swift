import Dispatch
import FoundationEssentials
import SQLiteSupport
import Synchronization

/// Searches that no index narrows (a regex without a literal of three characters, fuzzy text, one or two letters
/// of accented text): every text item is read and checked, newest first.
///
/// On a big history the items are read in slices of positions, newest first, by one reader per processor, each on
/// its own read-only connection: a slice's matches count once every newer slice is done, and the search stops as
/// soon as the newest finished slices hold the page asked for (`--limit` after `--offset`). The whole search keeps
/// one time limit (`searchTimeLimit`), whatever the number of readers.
extension HistoryStore {
    /// Items a history needs before the scan is shared between readers (below it, opening them costs more than it
    /// saves).
    static let parallelScanItems: Int64 = 50_000
    /// Positions one slice covers, at least.
    static let scanSliceItems: Int64 = 32_768
    /// Readers at most, whatever the number of processors.
    static let scanReaders = 4
    /// Slices of one scan, at most.
    static let scanSlicesLimit: Int64 = 4096

    /// The ids of the text items, newest first, that `matches` accepts, up to `query.limit` after skipping
    /// `query.offset` of them, for at most `searchTimeLimit`; also how many were skipped.
    func scan(
        query: HistoryQuery, typeFilter: [Int64]?, sqlFilter: String?, sqlValues: [any SQLiteBindable],
        grams: [Int]? = nil, matches: @escaping @Sendable (Data) -> Bool
    ) throws -> (ids: [Int64], skipped: Int) {
        var filters: [String] = []
        if query.pinnedOnly { filters.append("i.pinned") }
        if let kinds = query.kinds { filters.append(Self.kindCondition(kinds)) }
        if let typeFilter { filters.append(Self.typeCondition(typeFilter)) }
        if let sqlFilter { filters.append(sqlFilter) }
        let conditions = filters
        let values = sqlValues.map(\.sqliteValue)
        let wanted = query.offset + query.limit
        let deadline = ContinuousClock.now + Self.searchTimeLimit
        // One or two letters: only the blocks that may hold them, one reader, newest first (see
        // HistoryStore+SearchBlocks.swift).
        if let grams,
            let bounds = try db.row("SELECT (SELECT min(position) FROM items), (SELECT max(position) FROM items)"),
            let low = bounds.int(0), let high = bounds.int(1),
            let reads = try searchBlockFilter(bits: grams, low: low, high: high)
        {
            var ids: [Int64] = []
            var examined = 0
            var block = Self.searchBlock(high)
            while block >= Self.searchBlock(low) && ids.count < wanted {
                // A run of blocks to read (32 at most: a common letter's page is in the first), as one slice.
                guard try reads(block) else {
                    block -= 1
                    continue
                }
                let top = block
                while try block > Self.searchBlock(low) && top - block < 31 && reads(block - 1) { block -= 1 }
                let range = ((block << Self.searchBlockShift) - 1, ((top + 1) << Self.searchBlockShift) - 1)
                let slice = ScanSlice(conditions: conditions, values: values, range: range)
                do {
                    ids += try slice.run(
                        on: db, files: files, wanted: wanted - ids.count, deadline: deadline, examined: &examined,
                        stop: { false }, matches: matches)
                } catch let timeout as ScanTimeout {
                    throw Self.searchStopped(examined: examined, found: ids.count + timeout.found)
                }
                block -= 1
            }
            return Self.page(ids, query: query)
        }
        let readers = min(Self.scanReaders, ProcessInfo.processInfo.activeProcessorCount)
        // Two subqueries: min() and max() in one query would read every row instead of the index's two ends.
        guard readers > 1,
            let bounds = try db.row("SELECT (SELECT min(position) FROM items), (SELECT max(position) FROM items)"),
            let low = bounds.int(0), let high = bounds.int(1), high - low >= Self.parallelScanItems
        else {
            let slice = ScanSlice(conditions: conditions, values: values, range: nil)
            var examined = 0
            do {
                let ids = try slice.run(
                    on: db, files: files, wanted: wanted, deadline: deadline, examined: &examined, stop: { false },
                    matches: matches)
                return Self.page(ids, query: query)
            } catch let timeout as ScanTimeout {
                throw Self.searchStopped(examined: examined, found: timeout.found)
            }
        }
        // A slice covers `scanSliceItems` positions at least (fewer items where a move left gaps), and there are at
        // most `scanSlicesLimit` slices, whatever the gaps.
        let width = max(Self.scanSliceItems, (high - low) / Self.scanSlicesLimit + 1)
        let sliceCount = Int((high - low) / width) + 1
        let state = Mutex(ScanState(sliceCount: sliceCount, wanted: wanted))
        let location = self.location
        let files = self.files
        DispatchQueue.concurrentPerform(iterations: readers) { _ in
            let reader: HistoryStore
            do {
                reader = try HistoryStore(location: location, readOnly: true)
            } catch {
                state.withLock { $0.fail(error) }
                return
            }
            while let index = state.withLock({ $0.take() }) {
                let top = high - Int64(index) * width
                let slice = ScanSlice(conditions: conditions, values: values, range: (top - width, top))
                var examined = 0
                let result = Result { () throws -> [Int64] in
                    try slice.run(
                        on: reader.db, files: files, wanted: wanted, deadline: deadline, examined: &examined,
                        stop: { state.withLock { $0.isSatisfied(before: index) } }, matches: matches)
                }
                state.withLock { $0.finish(index, result, examined: examined) }
            }
        }
        let outcome = state.withLock { $0.result() }
        switch outcome {
        case .success(let ids): return Self.page(ids, query: query)
        case .failure(let error as ScanTimeout): throw Self.searchStopped(examined: error.examined, found: error.found)
        case .failure(let error as SQLiteError): throw HistoryError.from(error, path: location.databaseURL.path)
        case .failure(let error): throw error
        }
    }

    private static func page(_ ids: [Int64], query: HistoryQuery) -> (ids: [Int64], skipped: Int) {
        let skipped = min(query.offset, ids.count)
        return (Array(ids.dropFirst(skipped).prefix(query.limit)), skipped)
    }

    static func searchStopped(examined: Int, found: Int) -> HistoryError {
        HistoryError(
            .invalidInput,
            "The search stopped after \(searchTimeLimit.components.seconds) s, \(examined) items in, "
                + "with \(found) found: make the pattern more specific, or narrow it with --type.")
    }
}

/// The search reached its time limit (turned into the message `searchStopped` gives, with the counts of every reader).
private struct ScanTimeout: Error {
    var examined: Int
    var found: Int
}

/// One query over the text items, newest first (all of them, or the positions in `range`: above its lower end, up
/// to its upper one).
private struct ScanSlice {
    let conditions: [String]
    let values: [SQLiteValue]
    let range: (above: Int64, through: Int64)?

    /// The ids of the matching items, newest first, `wanted` at most. `stop` is asked every 256 items.
    func run(
        on db: Connection, files: BlobFiles, wanted: Int, deadline: ContinuousClock.Instant, examined: inout Int,
        stop: () -> Bool, matches: (Data) -> Bool
    ) throws -> [Int64] {
        var all = conditions + [HistoryStore.hasSearchableText]
        if range != nil { all.append("i.position > ? AND i.position <= ?") }
        let whereClause = " WHERE " + all.joined(separator: " AND ")
        let statement = try db.prepare(
            "SELECT i.id, \(HistoryStore.textHashSQL), \(HistoryStore.textInFileSQL) AS inFile, "
                + "substr(\(HistoryStore.textBytesSQL), 1, \(ItemText.indexedPrefix)) AS head, "
                + HistoryStore.recognizedColumn + " FROM items i LEFT JOIN blobs b ON b.id = i.text_blob" + whereClause
                + " ORDER BY i.position DESC")
        var bound = values
        if let range { bound += [.integer(range.above), .integer(range.through)] }
        try statement.bind(bound)
        defer { statement.rewind() }
        var ids: [Int64] = []
        while try statement.next() {
            examined += 1
            if examined % 256 == 0 {
                if ContinuousClock.now > deadline { throw ScanTimeout(examined: examined, found: ids.count) }
                if stop() { break }
            }
            // The item's text (none for an image), then the text recognized in its image (see
            // HistoryStore+RecognizedText.swift).
            var found = false
            if !statement.isNull(at: 1) {
                let head: Data
                if statement.int64(at: 2) == 1 {
                    let hash = statement.withBlob(at: 1) { Data($0) }
                    head = files.prefix(hash: hash, count: ItemText.indexedPrefix)
                } else {
                    head = statement.withBlob(at: 3) { Data($0) }
                }
                found = matches(head)
            }
            if !found, !statement.isNull(at: 4) { found = matches(statement.withBlob(at: 4) { Data($0) }) }
            guard found else { continue }
            ids.append(statement.int64(at: 0))
            if ids.count == wanted { break }
        }
        return ids
    }
}

/// What the readers of a shared scan know together: the next slice to read, each finished slice's matches, and
/// whether the newest finished slices already hold the page.
private struct ScanState: ~Copyable {
    let sliceCount: Int
    let wanted: Int
    var next = 0
    var found: [Int: [Int64]] = [:]
    /// Slices 0..<done are finished, holding `doneMatches` matches together.
    var done = 0
    var doneMatches = 0
    var examined = 0
    var failure: (any Error)?

    init(sliceCount: Int, wanted: Int) {
        self.sliceCount = sliceCount
        self.wanted = wanted
    }

    var isSatisfied: Bool { doneMatches >= wanted || failure != nil }

    /// Whether slice `index` no longer matters: the newer ones hold the page, or the search failed.
    func isSatisfied(before index: Int) -> Bool { isSatisfied && (failure != nil || index >= done) }

    mutating func take() -> Int? {
        guard !isSatisfied, next < sliceCount else { return nil }
        defer { next += 1 }
        return next
    }

    mutating func fail(_ error: any Error) {
        if failure == nil { failure = error }
    }

    mutating func finish(_ index: Int, _ result: Result<[Int64], any Error>, examined: Int) {
        self.examined += examined
        switch result {
        case .failure(let error): fail(error)
        case .success(let ids):
            found[index] = ids
            while doneMatches < wanted, let ids = found[done] {
                doneMatches += ids.count
                done += 1
            }
        }
    }

    /// The matches of the finished newest slices, newest first; or the first failure (a time-out with the counts of
    /// every reader).
    func result() -> Result<[Int64], any Error> {
        if let failure {
            if failure is ScanTimeout { return .failure(ScanTimeout(examined: examined, found: doneMatches)) }
            return .failure(failure)
        }
        var ids: [Int64] = []
        var seen: Set<Int64> = []
        for index in 0..<done {
            for id in found[index] ?? [] where seen.insert(id).inserted { ids.append(id) }
        }
        return .success(ids)
    }
}
