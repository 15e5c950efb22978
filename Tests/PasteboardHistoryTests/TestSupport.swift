import Foundation
@testable import PasteboardHistory
import PasteboardModel
import PasteboardTestSupport
import SQLiteSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Temporary directories

/// A fresh directory under the system temporary directory, removed when the last reference goes away.
///
/// Suites are structs (one instance per test), so they hold one of these to get a clean-up step.
final class TemporaryDirectory {
    let url: URL

    init(_ label: String = "pb-history-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Best effort: a leftover temporary directory is harmless, and deinit cannot throw.
        try? FileManager.default.removeItem(at: url)
    }

    /// A store location inside this directory; the store directory itself does not exist yet.
    var storeLocation: StoreLocation {
        StoreLocation(directory: url.appendingPathComponent("pasteboard", isDirectory: true))
    }
}

// MARK: - Histories

/// Imports one text item per string in one transaction, a second apart from 2023-11-14 on (the last newest); the
/// import leaves them in the search backlog.
func importTexts(_ texts: some Sequence<String>, into store: HistoryStore) throws {
    let bulk = try HistoryImport(store: store)
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    for (index, text) in texts.enumerated() {
        try bulk.add(PasteboardItem(string: text), metadata: CaptureMetadata(date: start.addingTimeInterval(Double(index))))
    }
    try bulk.commit()
}

// MARK: - Payloads

/// Deterministic pseudo-random bytes (a 64-bit LCG), so failures reproduce.
func pseudoRandomBytes(count: Int, seed: UInt64) -> Data {
    var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    var bytes = [UInt8](repeating: 0, count: count)
    for index in bytes.indices {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return Data(bytes)
}

/// Bytes that start with the PNG signature, large enough (by default) to be stored as a blob file.
func pngPayload(count: Int = 70_000, seed: UInt64 = 1) -> Data {
    var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    data.append(pseudoRandomBytes(count: count - data.count, seed: seed))
    return data
}

/// An item holding only a PNG representation.
func pngItem(count: Int = 70_000, seed: UInt64 = 1) -> PasteboardItem {
    PasteboardItem(data: pngPayload(count: count, seed: seed), type: .png)
}

/// An item holding HTML first and its plain-text version second.
func htmlItem(_ html: String, plain: String) -> PasteboardItem {
    var item = PasteboardItem()
    item.setData(Data(html.utf8), forType: .html)
    item.setString(plain)
    return item
}

// MARK: - Errors

/// Expects `body` to throw a `HistoryError` with `code`.
func expectHistoryError(
    _ code: HistoryError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: HistoryError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(error.map(String.init(describing:)) ?? "no error")", sourceLocation: sourceLocation)
}

// MARK: - Files

/// The permission bits of the file at `url`.
func permissions(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require(attributes[.posixPermissions] as? NSNumber).intValue & 0o777
}

/// Regular files under the blob directory, temporary files excluded.
func blobFiles(in location: StoreLocation) -> [URL] {
    guard
        let enumerator = FileManager.default.enumerator(
            at: location.blobDirectory, includingPropertiesForKeys: [.isRegularFileKey])
    else { return [] }
    var files: [URL] = []
    for case let url as URL in enumerator {
        let isFile = (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile ?? false
        if isFile && !url.lastPathComponent.hasPrefix(".tmp-") { files.append(url) }
    }
    return files
}

// MARK: - Raw database access

/// A second, independent connection to the store's database, for checks and tampering the public API
/// does not offer. SQLite in WAL mode lets it coexist with the store's own connection.
func rawConnection(_ location: StoreLocation) throws -> Connection {
    try Connection(path: location.databaseURL.path, mode: .readWrite(create: false))
}

/// How many rows of the contentless search index hold every term of `text` (`SearchTerms`: its words' trigrams; one
/// at least): live items only when the store keeps the index in step with its items.
func indexMatchCount(_ location: StoreLocation, phrase text: String) throws -> Int64 {
    let query = try #require(SearchTerms.query(SearchFolding.fold(text)))
    let db = try rawConnection(location)
    return try #require(try db.row("SELECT count(*) AS n FROM item_text WHERE item_text MATCH ?", query)?.int("n"))
}

// MARK: - LibreOffice's copies

extension LibreOfficeSamples {
    /// The content type stored for an X11 target.
    static func type(_ target: String) throws -> ContentType {
        try #require(ContentType(x11Target: target))
    }

    /// Writer's copy `number` (1 to 4) as an item.
    static func writerItem(_ number: Int) throws -> PasteboardItem {
        try PasteboardItem(writerCopy(number).map { .init(type: try type($0.target), data: $0.bytes) })
    }

    /// Calc's copy `number` (1 or 2) as an item.
    static func calcItem(_ number: Int) throws -> PasteboardItem {
        try PasteboardItem(calcCopy(number).map { .init(type: try type($0.target), data: $0.bytes) })
    }
}

/// Takes schema 14's inline texts out of a store (InlineText.swift): each goes back into a payload row, referenced
/// by a representation row and as the item's text, as before; then its columns, triggers and totals go. Returns
/// `undoSchema11`, for tests that set a store back to an older schema by hand: `undoingSchema14(db) + "…"`.
func undoingSchema14(_ db: Connection) throws -> String {
    for row in try db.rows("SELECT id, text_data, text_packing, text_type FROM items WHERE text_data IS NOT NULL") {
        #expect(row.int("text_packing") == nil, "undoingSchema14 takes unpacked texts only")
        let id = try #require(row.int("id"))
        let data = row.data("text_data") ?? Data()
        let hash = SHA256.address(data)
        try db.run(
            "INSERT INTO blobs(hash, size, data, refcount) VALUES (?, ?, ?, 2) "
                + "ON CONFLICT(hash) DO UPDATE SET refcount = refcount + 2", hash, data.count, data)
        let blob = try #require(try db.row("SELECT id FROM blobs WHERE hash = ?", hash)?.int("id"))
        try db.run(
            "INSERT INTO representations(item_id, ordinal, type_id, blob_id) VALUES (?, 0, ?, ?)", id,
            row.int("text_type"), blob)
        try db.run("UPDATE items SET text_blob = ? WHERE id = ?", blob, id)
    }
    try db.execute(
        """
        DROP TRIGGER items_packing_insert; DROP TRIGGER items_packing_delete; DROP TRIGGER items_packing_update;
        DROP TRIGGER items_inline_insert; DROP TRIGGER items_inline_delete; DROP TRIGGER items_inline_update;
        DROP TABLE inline_text_totals; UPDATE items SET text_data = NULL, text_packing = NULL, text_type = NULL;
        ALTER TABLE items DROP COLUMN text_data; ALTER TABLE items DROP COLUMN text_packing;
        ALTER TABLE items DROP COLUMN text_type;
        """)
    return undoSchema11
}

/// SQL that takes schema 11's packed payloads out of a store (no packed row in it), for tests that set a store back
/// to an older schema by hand (after `undoingSchema14`).
let undoSchema11 =
    "DROP TRIGGER blobs_packing_insert; DROP TRIGGER blobs_packing_delete; DROP TABLE packings; DROP TABLE packing_uses; "
    + "ALTER TABLE blobs DROP COLUMN packing; "
