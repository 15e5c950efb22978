import FoundationEssentials
import PasteboardModel
import SQLiteSupport

/// Who holds a payload, for the error that says it is missing or damaged.
enum PayloadOwner {
    case item(Int64)
    case pasteboard(String)

    func error(_ code: HistoryError.Code, type: ContentType, _ problem: String) -> HistoryError {
        switch self {
        case .item(let id):
            return HistoryError(
                code,
                "Item \(id)'s \(type.identifier) payload \(problem), so it was not used. Delete the item ('pb delete \(id)'); "
                    + "'pb doctor --check' lists every damaged item.", itemID: id)
        case .pasteboard(let name):
            let what = name == PasteboardName.general.rawValue ? "The clipboard's" : "The pasteboard '\(name)''s"
            return HistoryError(
                code,
                "\(what) \(type.identifier) payload \(problem), so it was not used. Copy something new over it; "
                    + "'pb doctor --check' lists every damaged payload.")
        }
    }
}

/// What checking every stored payload against its content hash found.
public struct PayloadCheck: Sendable, Equatable {
    /// One payload that is gone or damaged, and who uses it.
    public struct Problem: Sendable, Equatable {
        public enum Kind: String, Sendable {
            /// Gone: its file (or its row) is missing, or it cannot be read.
            case missing
            /// Its bytes no longer match their SHA-256 (or its file is not a regular file).
            case damaged
        }

        public let kind: Kind
        /// The payload's row, and its file when it lives in one; 0 for a text an item keeps in its row.
        public let blobID: Int64
        public let file: String?
        /// What exactly is wrong, in words.
        public let detail: String
        /// The history items and pasteboards that use it.
        public let itemIDs: [Int64]
        public let pasteboards: [String]
    }

    /// Shard directories and payload files that are not safe to trust (a symbolic link, another user's, writable
    /// by others), each as a message naming the path and the fix.
    public var unsafePaths: [String] = []
    /// How many payloads were read and hashed, and their bytes.
    public var checkedCount = 0
    public var checkedBytes = 0
    public var problems: [Problem] = []

    public var missingCount: Int { problems.filter { $0.kind == .missing }.count }
    public var damagedCount: Int { problems.filter { $0.kind == .damaged }.count }
}

extension HistoryStore {
    /// Reads every payload once and compares it with its content hash; also finds items and pasteboards that refer
    /// to a payload row that is gone. Memory stays bounded: payloads are read one at a time, files in chunks.
    ///
    /// - Parameter filesOnly: check only the payloads kept in files (the large ones, outside the database), and no
    ///   row references: what `pb stats` counts, in a time that grows with the files, not with the history (10
    ///   million short texts took a minute to hash). `pb doctor --check` checks everything.
    public func checkPayloads(filesOnly: Bool = false) throws(HistoryError) -> PayloadCheck {
        try perform { () throws -> PayloadCheck in
            var check = PayloadCheck()
            var after: Int64 = 0
            while true {
                let page = try db.rows(
                    "SELECT id, hash, size, data IS NULL AS inFile FROM blobs WHERE id > ?"
                        + (filesOnly ? " AND data IS NULL" : "") + " ORDER BY id LIMIT 256", after
                )
                guard let last = page.last?.int("id") else { break }
                after = last
                for row in page {
                    guard let id = row.int("id") else { continue }
                    let size = Int(row.int("size") ?? -1)
                    guard
                        let problem = try problem(
                            blob: id, hash: row.data("hash"), size: size, inFile: row.int("inFile") == 1)
                    else {
                        check.checkedCount += 1
                        check.checkedBytes += max(0, size)
                        continue
                    }
                    check.checkedCount += 1
                    check.problems.append(problem)
                }
            }
            check.problems = try withOwners(check.problems)
            check.unsafePaths = unsafePayloadPaths()
            if filesOnly { return check }
            try checkInlineTexts(into: &check)
            // References to a payload row that is not there at all.
            let dangling = try db.rows(
                """
                SELECT r.blob_id AS blob, r.item_id AS item, NULL AS board FROM representations r
                    WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.id = r.blob_id)
                UNION SELECT i.text_blob, i.id, NULL FROM items i
                    WHERE i.text_blob IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.id = i.text_blob)
                UNION SELECT p.blob_id, NULL, p.pasteboard FROM pasteboard_items p
                    WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.id = p.blob_id)
                ORDER BY 1
                """)
            var byBlob: [Int64: (items: Set<Int64>, boards: Set<String>)] = [:]
            for row in dangling {
                guard let blob = row.int("blob") else { continue }
                if let item = row.int("item") { byBlob[blob, default: ([], [])].items.insert(item) }
                if let board = row.string("board") { byBlob[blob, default: ([], [])].boards.insert(board) }
            }
            for (blob, users) in byBlob.sorted(by: { $0.key < $1.key }) {
                check.problems.append(
                    .init(
                        kind: .missing, blobID: blob, file: nil, detail: "its row is missing from the database",
                        itemIDs: users.items.sorted(), pasteboards: users.boards.sorted()))
            }
            return check
        }
    }

    /// Checks every text an item keeps in its row (InlineText.swift) against the item's identity, a page of items
    /// at a time.
    private func checkInlineTexts(into check: inout PayloadCheck) throws {
        var after: Int64 = 0
        while true {
            let page = try db.rows(
                "SELECT id, identity, text_type, pb_unpacked(text_data, text_packing, size) AS data FROM items "
                    + "WHERE id > ? AND text_data IS NOT NULL ORDER BY id LIMIT 256", after)
            guard let last = page.last?.int("id") else { return }
            after = last
            for row in page {
                guard let id = row.int("id"), let typeID = row.int("text_type") else { continue }
                let data = row.data("data") ?? Data()
                check.checkedCount += 1
                check.checkedBytes += data.count
                guard !Self.inlineTextMatches(data, type: try type(forID: typeID), identity: row.data("identity") ?? Data())
                else { continue }
                check.problems.append(
                    PayloadCheck.Problem(
                        kind: .damaged, blobID: 0, file: nil,
                        detail: "its text (kept in its row) no longer matches the item's identity, its SHA-256",
                        itemIDs: [id], pasteboards: []))
            }
        }
    }

    /// Walks `blobs/`: every shard must be a directory of this user's and every file in it a plain file of this
    /// user's, neither writable by others.
    private func unsafePayloadPaths() -> [String] {
        let directory = location.blobDirectory.path
        // A missing or unreadable payload directory is found by the checks of the payloads themselves.
        guard let shards = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var messages: [String] = []
        func inspect(_ path: String, isDirectory: Bool) -> Bool {
            do {
                try StoreLocation.checkStoreFile(path, isDirectory: isDirectory, tightening: false)
                return true
            } catch {
                messages.append(error.message)
                return false
            }
        }
        for shard in shards.sorted() where !shard.hasPrefix(".tmp-") {
            let shardPath = directory + "/" + shard
            guard inspect(shardPath, isDirectory: true),
                let names = try? FileManager.default.contentsOfDirectory(atPath: shardPath)
            else { continue }
            for name in names.sorted() where !name.hasPrefix(".tmp-") {
                _ = inspect(shardPath + "/" + name, isDirectory: false)
            }
        }
        return messages
    }

    /// The problem with one payload row, or nil when its bytes match their hash.
    private func problem(blob id: Int64, hash: Data?, size: Int, inFile: Bool) throws -> PayloadCheck.Problem? {
        guard let hash else { return problem(id, .damaged, file: nil, "it has no content hash") }
        if !inFile {
            let data = try db.row("SELECT pb_unpacked(data, packing, size) AS data FROM blobs WHERE id = ?", id)?.data("data") ?? Data()
            if SHA256.address(data) == hash && data.count == size { return nil }
            return problem(id, .damaged, file: nil, "its bytes no longer match their SHA-256")
        }
        let path = files.url(forHash: hash).path
        switch files.check(hash: hash, size: size) {
        case .intact: return nil
        case .missing:
            // Deleted meanwhile by another process? It removes the file only after its transaction committed.
            guard try db.row("SELECT 1 FROM blobs WHERE id = ?", id) != nil else { return nil }
            return problem(id, .missing, file: path, "its file is missing")
        case .damaged: return problem(id, .damaged, file: path, "its file's bytes no longer match their SHA-256")
        case .notAFile: return problem(id, .damaged, file: path, "its file is not a regular file")
        case .unreadable(let reason):
            return problem(id, .missing, file: path, "its file cannot be read (\(reason))")
        }
    }

    /// A problem with payload `id`, its owners not looked up yet (see `withOwners`).
    private func problem(
        _ id: Int64, _ kind: PayloadCheck.Problem.Kind, file: String?, _ detail: String
    ) -> PayloadCheck.Problem {
        PayloadCheck.Problem(kind: kind, blobID: id, file: file, detail: detail, itemIDs: [], pasteboards: [])
    }

    /// `problems` with the items and pasteboards that use each payload, found in one pass over the representations
    /// and the items whatever the number of problems (neither is indexed by payload: a look-up per damaged payload
    /// would read them all each time).
    private func withOwners(_ problems: [PayloadCheck.Problem]) throws -> [PayloadCheck.Problem] {
        guard !problems.isEmpty else { return problems }
        let ids = "[" + problems.map { String($0.blobID) }.joined(separator: ",") + "]"
        var items: [Int64: Set<Int64>] = [:]
        var boards: [Int64: Set<String>] = [:]
        let damaged = "(SELECT value FROM json_each(?))"
        for row in try db.rows(
            "SELECT blob_id AS blob, item_id AS id FROM representations WHERE blob_id IN \(damaged) "
                + "UNION SELECT text_blob, id FROM items WHERE text_blob IN \(damaged)", ids, ids)
        {
            if let blob = row.int("blob"), let id = row.int("id") { items[blob, default: []].insert(id) }
        }
        for row in try db.rows("SELECT DISTINCT blob_id AS blob, pasteboard FROM pasteboard_items WHERE blob_id IN \(damaged)", ids) {
            if let blob = row.int("blob"), let board = row.string("pasteboard") { boards[blob, default: []].insert(board) }
        }
        return problems.map {
            PayloadCheck.Problem(
                kind: $0.kind, blobID: $0.blobID, file: $0.file, detail: $0.detail,
                itemIDs: (items[$0.blobID] ?? []).sorted(), pasteboards: (boards[$0.blobID] ?? []).sorted())
        }
    }

    /// `PRAGMA integrity_check`: "ok", or SQLite's first findings.
    public func integrityCheck() throws(HistoryError) -> [String] {
        try perform {
            try db.rows("PRAGMA integrity_check(20)").compactMap { $0.string("integrity_check") }
        }
    }
}
