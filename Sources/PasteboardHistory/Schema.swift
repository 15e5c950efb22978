import FoundationEssentials
import SQLiteSupport

/// The store's schema, as numbered migrations, and how a store is told from any other SQLite file.
enum Schema {
    /// `PRAGMA application_id` of every Pasteboard store: the bytes "PBHS" (Pasteboard History Store), 0x50424853.
    ///
    /// A store is recognised by this number in its header. Stores written before the number was introduced have 0
    /// there; they are recognised by their schema (a version set by these migrations and only tables of ours) and
    /// stamped when opened for writing. Any other file, even an SQLite database at `user_version` 0, is never
    /// modified. (`file history.sqlite` reports the number too.)
    static let applicationID: Int32 = 0x5042_4853

    /// What an opened file is, as far as the store is concerned.
    struct Identity {
        /// The schema version (`PRAGMA user_version`); 0 for a file with nothing in it yet.
        let version: Int
        /// Whether the header carries `applicationID` already.
        let isStamped: Bool
    }

    /// Tables, indexes and virtual tables the migrations create (the search index's shadow tables are named
    /// `item_text_…`; SQLite's own begin with `sqlite_`).
    static let knownNames: Set<String> = [
        "blobs", "content_types", "items", "items_pinned", "items_expiry", "representations", "representations_blob",
        "item_text", "pasteboards", "pasteboard_items", "pasteboard_items_blob", "paste_log", "paste_log_item",
        "search_backlog", "changes", "recognized_text", "items_images", "item_totals", "items_totals_insert",
        "items_totals_delete", "items_totals_update", "blob_totals", "blobs_totals_insert", "blobs_totals_delete",
        "blobs_totals_update", "blobs_in_files", "search_blocks", "search_blocks_since", "packings", "packing_uses",
        "blobs_packing_insert", "blobs_packing_delete", "key_insertions", "items_insertions", "blobs_insertions",
        "items_packing_insert", "items_packing_delete", "items_packing_update", "inline_text_totals",
        "items_inline_insert", "items_inline_delete", "items_inline_update",
    ]
    /// What every store at version 1 or later has.
    static let requiredTables: Set<String> = [
        "blobs", "content_types", "items", "representations", "item_text", "pasteboards", "pasteboard_items",
    ]

    /// Reads (never writes) what `db` holds and decides whether it is a store of ours.
    /// - Throws: `HistoryError.foreignDatabase` for any other SQLite database.
    static func identify(_ db: Connection, path: String) throws -> Identity {
        let names = try db.rows("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
            .compactMap { $0.string("name") }
        let applicationID = Int32(truncatingIfNeeded: try db.row("PRAGMA application_id")?.int(0) ?? 0)
        let version = try Migrator.version(of: db)
        if applicationID == Self.applicationID { return Identity(version: version, isStamped: true) }
        func foreign(_ reason: String) -> HistoryError {
            HistoryError(
                .foreignDatabase,
                "\(path) is an SQLite database of another application (\(reason)), not a Pasteboard history store. "
                    + "It was left untouched; move it aside, or set PB_STORE_DIR to another directory.")
        }
        if applicationID != 0 {
            throw foreign("application_id 0x" + String(UInt32(bitPattern: applicationID), radix: 16, uppercase: true))
        }
        if names.isEmpty && version == 0 { return Identity(version: 0, isStamped: false) }  // nothing in it yet
        let strangers = names.filter { !knownNames.contains($0) && !$0.hasPrefix("item_text_") }.sorted()
        let missing = requiredTables.subtracting(names)
        guard version > 0, strangers.isEmpty, missing.isEmpty else {
            let shown = (strangers.isEmpty ? names.sorted() : strangers).prefix(4).joined(separator: ", ")
            let more = (strangers.isEmpty ? names.count : strangers.count) > 4 ? ", …" : ""
            throw foreign("tables \(shown)\(more); user_version \(version)")
        }
        return Identity(version: version, isStamped: false)
    }

    /// Writes `applicationID` into the header of a store of ours that lacks it.
    static func stamp(_ db: Connection) throws {
        try db.execute("PRAGMA application_id = \(applicationID)")
    }

    static let migrator = Migrator([
        .init(
            version: 1,
            sql: """
                CREATE TABLE blobs(
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    size INTEGER NOT NULL,
                    data BLOB,
                    refcount INTEGER NOT NULL
                );
                CREATE TABLE content_types(
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE
                );
                CREATE TABLE items(
                    id INTEGER PRIMARY KEY,
                    position INTEGER NOT NULL UNIQUE,
                    identity BLOB NOT NULL UNIQUE,
                    created REAL NOT NULL,
                    last_copied REAL NOT NULL,
                    copy_count INTEGER NOT NULL DEFAULT 1,
                    pinned INTEGER NOT NULL DEFAULT 0,
                    kind TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    text_blob INTEGER,
                    source TEXT,
                    selection TEXT,
                    expires_at REAL
                );
                CREATE INDEX items_pinned ON items(pinned) WHERE pinned;
                CREATE INDEX items_expiry ON items(expires_at) WHERE expires_at IS NOT NULL;
                CREATE TABLE representations(
                    item_id INTEGER NOT NULL,
                    ordinal INTEGER NOT NULL,
                    type_id INTEGER NOT NULL,
                    blob_id INTEGER NOT NULL,
                    PRIMARY KEY(item_id, ordinal)
                ) WITHOUT ROWID;
                CREATE INDEX representations_blob ON representations(blob_id);
                -- No positions (detail=none) and no token counts (columnsize=0): search checks each candidate's
                -- text itself and ranks by position, never by relevance. A store made before columnsize=0 keeps
                -- its counts (0.08 of its texts' size), used by nothing.
                CREATE VIRTUAL TABLE item_text USING fts5(
                    text, content='', tokenize='trigram', detail='none', columnsize=0);
                CREATE TABLE pasteboards(
                    name TEXT PRIMARY KEY,
                    change_count INTEGER NOT NULL,
                    persistent INTEGER NOT NULL,
                    owner_pid INTEGER,
                    owner_start TEXT,
                    updated REAL NOT NULL
                );
                CREATE TABLE pasteboard_items(
                    pasteboard TEXT NOT NULL,
                    item_index INTEGER NOT NULL,
                    ordinal INTEGER NOT NULL,
                    type_id INTEGER NOT NULL,
                    blob_id INTEGER NOT NULL,
                    PRIMARY KEY(pasteboard, item_index, ordinal)
                ) WITHOUT ROWID;
                CREATE INDEX pasteboard_items_blob ON pasteboard_items(blob_id);
                """),
        // Allow Paste: an item may ask before it is pasted, and every paste of an item the daemon served is logged
        // (who read it, when, and whether it was let through). Existing items keep everything and ask nothing.
        .init(
            version: 2,
            sql: """
                ALTER TABLE items ADD COLUMN ask_before_paste INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE paste_log(
                    id INTEGER PRIMARY KEY,
                    item_id INTEGER NOT NULL,
                    time REAL NOT NULL,
                    reader TEXT,
                    reader_pid INTEGER,
                    outcome TEXT NOT NULL
                );
                CREATE INDEX paste_log_item ON paste_log(item_id, time);
                """),
        // The search index may lag behind the rows: `pb import` commits its items without their index entries, and
        // they are indexed afterwards (see HistoryStore+SearchBacklog.swift). One row at most, present only while
        // items above `indexed_through` (a position) are not in `item_text`. Existing stores are fully indexed.
        .init(
            version: 3,
            sql: """
                CREATE TABLE search_backlog(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    indexed_through INTEGER NOT NULL
                );
                """),
        // The change feed (see HistoryStore+Changes.swift): one row per change, in the change's own transaction.
        // AUTOINCREMENT so that a number is never given out twice, even after every row was trimmed.
        .init(
            version: 4,
            sql: """
                CREATE TABLE changes(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    item_id INTEGER,
                    last_item_id INTEGER,
                    count INTEGER,
                    time REAL NOT NULL,
                    device TEXT,
                    detail TEXT,
                    identity BLOB
                );
                """),
        // Kinds follow the richest representation: an item with a picture is an image (ItemText.kind), so items
        // recorded before as text, HTML or a link with a picture among their types become images.
        .init(
            version: 5,
            sql: """
                UPDATE items SET kind = 'image'
                WHERE kind IN ('text', 'html', 'url', 'data') AND EXISTS (
                    SELECT 1 FROM representations r JOIN content_types t ON t.id = r.type_id
                    WHERE r.item_id = items.id AND (
                        t.identifier LIKE 'image/%' OR t.identifier IN (
                            'public.image', 'public.png', 'public.jpeg', 'com.compuserve.gif', 'com.microsoft.bmp',
                            'public.tiff', 'public.svg-image', 'com.microsoft.ico', 'public.heic', 'public.heif',
                            'public.avif', 'org.webmproject.webp')));
                """),
        // Search ignores accents: the index holds texts with their accents dropped (ItemText.indexString). Entries
        // written before hold them with accents, and a contentless index removes an entry only given the text it
        // was made of, so the index is emptied and every item becomes the search backlog
        // (HistoryStore+SearchBacklog.swift): search scans what is not indexed yet, so it stays exact meanwhile,
        // and the daemon (or `pb import`) indexes it again a slice per transaction. Constant work here, whatever
        // the store's size.
        .init(
            version: 6,
            sql: """
                INSERT INTO item_text(item_text) VALUES ('delete-all');
                DELETE FROM search_backlog;
                INSERT INTO search_backlog(id, indexed_through)
                    SELECT 1, min(position) - 1 FROM items HAVING count(*) > 0;
                """),
        // Text recognized in image items' pictures (HistoryStore+RecognizedText.swift): one row per item looked at,
        // whatever came of it (`outcome`), deleted with the item. Its text joins the item's search-index entry.
        .init(
            version: 7,
            sql: """
                CREATE TABLE recognized_text(
                    item_id INTEGER PRIMARY KEY,
                    text TEXT NOT NULL,
                    outcome TEXT NOT NULL,
                    languages TEXT NOT NULL,
                    time REAL NOT NULL
                );
                -- The image items alone, newest first: the recognizer's "what is left to read" and its progress
                -- walk these, not the whole history (ten million texts and a thousand images).
                CREATE INDEX IF NOT EXISTS items_images ON items(position) WHERE kind = 'image';
                """),
        // Totals per kind and pin, kept by triggers (HistoryStore+Retention.swift); the image index again, for a store
        // that reached version 7 before it had it.
        .init(
            version: 8,
            sql: """
                CREATE INDEX IF NOT EXISTS items_images ON items(position) WHERE kind = 'image';
                -- How many items, and how many bytes, of each kind, pinned or not: kept by the triggers below in
                -- every writer's own transaction, so that retention after a copy and `pb stats` count without
                -- reading the history (see HistoryStore+Retention.swift). Built again whole here.
                DROP TRIGGER IF EXISTS items_totals_insert;
                DROP TRIGGER IF EXISTS items_totals_delete;
                DROP TRIGGER IF EXISTS items_totals_update;
                DROP TABLE IF EXISTS item_totals;
                CREATE TABLE item_totals(
                    kind TEXT NOT NULL,
                    pinned INTEGER NOT NULL,
                    items INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    PRIMARY KEY(kind, pinned)
                ) WITHOUT ROWID;
                INSERT INTO item_totals(kind, pinned, items, bytes)
                    SELECT kind, pinned <> 0, count(*), coalesce(sum(size), 0) FROM items GROUP BY kind, pinned <> 0;
                CREATE TRIGGER items_totals_insert AFTER INSERT ON items BEGIN
                    INSERT INTO item_totals(kind, pinned, items, bytes) VALUES (new.kind, new.pinned <> 0, 1, new.size)
                        ON CONFLICT(kind, pinned) DO UPDATE SET items = items + 1, bytes = bytes + excluded.bytes;
                END;
                CREATE TRIGGER items_totals_delete AFTER DELETE ON items BEGIN
                    UPDATE item_totals SET items = items - 1, bytes = bytes - old.size
                        WHERE kind = old.kind AND pinned = (old.pinned <> 0);
                END;
                CREATE TRIGGER items_totals_update AFTER UPDATE OF kind, pinned, size ON items BEGIN
                    UPDATE item_totals SET items = items - 1, bytes = bytes - old.size
                        WHERE kind = old.kind AND pinned = (old.pinned <> 0);
                    INSERT INTO item_totals(kind, pinned, items, bytes) VALUES (new.kind, new.pinned <> 0, 1, new.size)
                        ON CONFLICT(kind, pinned) DO UPDATE SET items = items + 1, bytes = bytes + excluded.bytes;
                END;
                -- The same for payloads, in the database or in files; and the payloads in files alone, which `pb stats`
                -- checks (a handful of large ones among millions of short texts).
                DROP TRIGGER IF EXISTS blobs_totals_insert;
                DROP TRIGGER IF EXISTS blobs_totals_delete;
                DROP TRIGGER IF EXISTS blobs_totals_update;
                DROP TABLE IF EXISTS blob_totals;
                CREATE TABLE blob_totals(
                    in_file INTEGER PRIMARY KEY,
                    blobs INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                );
                INSERT INTO blob_totals(in_file, blobs, bytes)
                    SELECT data IS NULL, count(*), coalesce(sum(size), 0) FROM blobs GROUP BY data IS NULL;
                CREATE TRIGGER blobs_totals_insert AFTER INSERT ON blobs BEGIN
                    INSERT INTO blob_totals(in_file, blobs, bytes) VALUES (new.data IS NULL, 1, new.size)
                        ON CONFLICT(in_file) DO UPDATE SET blobs = blobs + 1, bytes = bytes + excluded.bytes;
                END;
                CREATE TRIGGER blobs_totals_delete AFTER DELETE ON blobs BEGIN
                    UPDATE blob_totals SET blobs = blobs - 1, bytes = bytes - old.size WHERE in_file = (old.data IS NULL);
                END;
                CREATE TRIGGER blobs_totals_update AFTER UPDATE OF data, size ON blobs BEGIN
                    UPDATE blob_totals SET blobs = blobs - 1, bytes = bytes - old.size WHERE in_file = (old.data IS NULL);
                    INSERT INTO blob_totals(in_file, blobs, bytes) VALUES (new.data IS NULL, 1, new.size)
                        ON CONFLICT(in_file) DO UPDATE SET blobs = blobs + 1, bytes = bytes + excluded.bytes;
                END;
                CREATE INDEX IF NOT EXISTS blobs_in_files ON blobs(id) WHERE data IS NULL;
                """),
        // The letters and pairs of letters of each block of 1,024 positions (HistoryStore+SearchBlocks.swift), for
        // one- and two-letter searches. The blocks that hold items already are read as before (from `since` on, every
        // entry added to the search index adds its grams). Idempotent.
        .init(
            version: 9,
            sql: """
                CREATE TABLE IF NOT EXISTS search_blocks(
                    block INTEGER PRIMARY KEY,
                    grams BLOB
                );
                CREATE TABLE IF NOT EXISTS search_blocks_since(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    block INTEGER NOT NULL
                );
                INSERT OR IGNORE INTO search_blocks_since(id, block)
                    SELECT 1, coalesce((max(position) >> 10) + 1, 0) FROM items;
                -- The search index in larger pieces (kept in its own configuration): up to 64 MB of pending entries
                -- per segment (FTS5's default is 1 MB) and 16 segments of a size before they are merged (4): an
                -- import's 3 million short texts indexed in 33 s instead of 64 s, to an index of the same size, with
                -- searches as fast. A copy's few entries never come near either bound.
                INSERT INTO item_text(item_text, rank) VALUES ('hashsize', 67108864);
                INSERT INTO item_text(item_text, rank) VALUES ('automerge', 16);
                """),
        // The index of representations by payload goes: only the payload check (`pb doctor --check`, `pb stats`)
        // asked which items hold a damaged payload, and it now reads the representations once for all of them, as
        // it reads the items' text references. It was 14 MiB of a store of a million short texts (0.11 of their
        // size), and a B-tree more for every copy to write. Idempotent.
        .init(
            version: 10,
            sql: """
                DROP INDEX IF EXISTS representations_blob;
                """),
        // Packed payloads (PayloadPacking.swift): a payload kept in the database may hold a Zstandard frame, made with
        // the dictionary `packing` names; the store's dictionaries, each deleted with the last payload packed with it.
        // AUTOINCREMENT: a dictionary's number is never given to another, so that a connection that knows a number
        // (and keeps what it unpacks with) never takes a later dictionary for it.
        // Rows written before stay as they are. Constant work, whatever the store's size; idempotent.
        .init(
            version: 11,
            columns: [.init(table: "blobs", name: "packing", definition: "INTEGER")],
            sql: """
                CREATE TABLE IF NOT EXISTS packings(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    dictionary BLOB NOT NULL,
                    created REAL NOT NULL
                );
                -- How many payloads each dictionary packed, apart from the dictionary: a row the triggers rewrite
                -- at every payload written or deleted must be small (with the 32 KiB dictionary in it, an import
                -- of a million texts spent a fifth of its time rewriting it).
                CREATE TABLE IF NOT EXISTS packing_uses(
                    packing INTEGER PRIMARY KEY,
                    uses INTEGER NOT NULL
                );
                CREATE TRIGGER IF NOT EXISTS blobs_packing_insert AFTER INSERT ON blobs WHEN new.packing IS NOT NULL BEGIN
                    UPDATE packing_uses SET uses = uses + 1 WHERE packing = new.packing;
                END;
                CREATE TRIGGER IF NOT EXISTS blobs_packing_delete AFTER DELETE ON blobs WHEN old.packing IS NOT NULL BEGIN
                    UPDATE packing_uses SET uses = uses - 1 WHERE packing = old.packing;
                    DELETE FROM packings WHERE id = old.packing
                        AND (SELECT uses FROM packing_uses WHERE packing = old.packing) <= 0;
                    DELETE FROM packing_uses WHERE packing = old.packing AND uses <= 0;
                END;
                """),
        // How many item and payload rows were ever inserted (never counted down): a reader that noted the counts
        // and the largest ids tells from them alone whether the rows above those ids are every row inserted since,
        // so that it can keep its filters of identities and payload hashes (KnownKeys.swift) without reading every
        // key again. Counted from 0 here; only differences are read. Constant work; idempotent.
        .init(
            version: 12,
            sql: """
                CREATE TABLE IF NOT EXISTS key_insertions(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    items INTEGER NOT NULL,
                    blobs INTEGER NOT NULL
                );
                INSERT OR IGNORE INTO key_insertions(id, items, blobs) VALUES (1, 0, 0);
                CREATE TRIGGER IF NOT EXISTS items_insertions AFTER INSERT ON items BEGIN
                    UPDATE key_insertions SET items = items + 1 WHERE id = 1;
                END;
                CREATE TRIGGER IF NOT EXISTS blobs_insertions AFTER INSERT ON blobs BEGIN
                    UPDATE key_insertions SET blobs = blobs + 1 WHERE id = 1;
                END;
                """),
        // The search index holds the trigrams of each text that neither start nor end with white space
        // (SearchTerms.swift), as words of FTS5's `unicode61` tokenizer (0.69× of a million short texts' size instead
        // of 0.94×). A tokenizer is chosen when the table is made, so the index is made again, empty, and
        // every item becomes the search backlog, as in version 6: search scans what is not indexed yet, so it stays
        // exact meanwhile, and the daemon (or `pb import`) indexes it again a slice per transaction. Dropping the old
        // index frees its pages (the file keeps them for the new index until a vacuum); its configuration goes with it.
        .init(
            version: 13,
            sql: """
                DROP TABLE IF EXISTS item_text;
                CREATE VIRTUAL TABLE item_text USING fts5(
                    text, content='', tokenize='unicode61', detail='none', columnsize=0);
                INSERT INTO item_text(item_text, rank) VALUES ('hashsize', 67108864);
                INSERT INTO item_text(item_text, rank) VALUES ('automerge', 16);
                DELETE FROM search_backlog;
                INSERT INTO search_backlog(id, indexed_through)
                    SELECT 1, min(position) - 1 FROM items HAVING count(*) > 0;
                """),
        // An item made of one text, the most of any history, keeps it in its own row (InlineText.swift): `text_data`
        // (packed as a payload row is: `text_packing` names the dictionary), `text_type` its content type. It has no
        // payload row, no payload hash and no representation row: 0.57× of a million short texts' size less. Its
        // identity, the digest of its one type and its text's SHA-256, is what the text is checked against when read.
        // The dictionaries count these texts among their uses, as they count payload rows. Items stored before keep
        // their rows. Constant work; idempotent.
        .init(
            version: 14,
            columns: [
                .init(table: "items", name: "text_data", definition: "BLOB"),
                .init(table: "items", name: "text_packing", definition: "INTEGER"),
                .init(table: "items", name: "text_type", definition: "INTEGER"),
            ],
            sql: """
                -- How many texts items keep in their rows, and their bytes, for `pb stats` (kept as `blob_totals`).
                CREATE TABLE IF NOT EXISTS inline_text_totals(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    texts INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                );
                INSERT OR IGNORE INTO inline_text_totals(id, texts, bytes) VALUES (1, 0, 0);
                CREATE TRIGGER IF NOT EXISTS items_inline_insert AFTER INSERT ON items
                    WHEN new.text_data IS NOT NULL BEGIN
                    UPDATE inline_text_totals SET texts = texts + 1, bytes = bytes + new.size WHERE id = 1;
                END;
                CREATE TRIGGER IF NOT EXISTS items_inline_delete AFTER DELETE ON items
                    WHEN old.text_data IS NOT NULL BEGIN
                    UPDATE inline_text_totals SET texts = texts - 1, bytes = bytes - old.size WHERE id = 1;
                END;
                CREATE TRIGGER IF NOT EXISTS items_inline_update AFTER UPDATE OF text_data, size ON items
                    WHEN old.text_data IS NOT NULL OR new.text_data IS NOT NULL BEGIN
                    UPDATE inline_text_totals SET texts = texts - (old.text_data IS NOT NULL),
                        bytes = bytes - iif(old.text_data IS NOT NULL, old.size, 0) WHERE id = 1;
                    UPDATE inline_text_totals SET texts = texts + (new.text_data IS NOT NULL),
                        bytes = bytes + iif(new.text_data IS NOT NULL, new.size, 0) WHERE id = 1;
                END;
                CREATE TRIGGER IF NOT EXISTS items_packing_insert AFTER INSERT ON items
                    WHEN new.text_packing IS NOT NULL BEGIN
                    UPDATE packing_uses SET uses = uses + 1 WHERE packing = new.text_packing;
                END;
                CREATE TRIGGER IF NOT EXISTS items_packing_delete AFTER DELETE ON items
                    WHEN old.text_packing IS NOT NULL BEGIN
                    UPDATE packing_uses SET uses = uses - 1 WHERE packing = old.text_packing;
                    DELETE FROM packings WHERE id = old.text_packing
                        AND (SELECT uses FROM packing_uses WHERE packing = old.text_packing) <= 0;
                    DELETE FROM packing_uses WHERE packing = old.text_packing AND uses <= 0;
                END;
                CREATE TRIGGER IF NOT EXISTS items_packing_update AFTER UPDATE OF text_packing ON items
                    WHEN old.text_packing IS NOT new.text_packing BEGIN
                    UPDATE packing_uses SET uses = uses + 1 WHERE packing = new.text_packing;
                    UPDATE packing_uses SET uses = uses - 1 WHERE packing = old.text_packing;
                    DELETE FROM packings WHERE id = old.text_packing
                        AND (SELECT uses FROM packing_uses WHERE packing = old.text_packing) <= 0;
                    DELETE FROM packing_uses WHERE packing = old.text_packing AND uses <= 0;
                END;
                """),
        // An item's `created` is NULL while it is its last copy's date (`last_copied`), as it is for every item
        // copied once: 8 bytes an item, 0.06× of a million short texts' size. Readers read
        // `coalesce(created, last_copied)`; every write that moves `last_copied` keeps the old date first.
        // SQLite cannot drop a NOT NULL with ALTER TABLE, so the table's definition is edited in place
        // (`replaceInTableDefinition`, the change SQLite documents for this: every stored row stays as it is).
        // Rows stored before keep their dates until `pb prune --vacuum`. Constant work; idempotent.
        .init(version: 15, sql: "", after: { db in
            _ = try db.replaceInTableDefinition(table: "items", Schema.createdNotNull, with: "created REAL,")
            // A definition written otherwise would fail every later copy on its NOT NULL: stop here instead, at
            // schema 14 (the transaction rolls back), with what to do.
            let sql = "SELECT \"notnull\" AS required FROM pragma_table_info('items') WHERE name = 'created'"
            guard try db.row(sql)?.int("required") == 0 else {
                throw HistoryError(
                    .corrupt,
                    "\(db.path): its items table defines the column created in a way this pb does not know, so the "
                        + "store was left at schema 14. Look at it with `sqlite3 \(db.path) '.schema items'`; "
                        + "`pb export` from the pb that wrote it, then `pb import` into a new store, moves the history.")
            }
        }),
    ])

    /// The definition of `items.created` before version 15.
    static let createdNotNull = "created REAL NOT NULL,"
}
