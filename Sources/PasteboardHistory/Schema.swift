import SQLiteSupport

/// The store's schema, as numbered migrations.
enum Schema {
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
                CREATE VIRTUAL TABLE item_text USING fts5(text, content='', tokenize='trigram', detail='none');
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
                """)
    ])
}
