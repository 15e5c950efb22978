#ifndef PASTEBOARD_CSQLITE_SHIM_H
#define PASTEBOARD_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind helpers that copy the bytes at once.
static inline int pb_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int pb_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

static inline void pb_sqlite3_result_blob_transient(sqlite3_context *context, const void *bytes, int length) {
    sqlite3_result_blob(context, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_config is variadic; Swift cannot call it directly.
static inline int pb_sqlite3_config_serialized(void) {
    return sqlite3_config(SQLITE_CONFIG_SERIALIZED);
}

// sqlite3_db_config is variadic too. Defensive mode: `on` 1 or 0 sets it, -1 leaves it; returns what it is then.
static inline int pb_sqlite3_db_config_defensive(sqlite3 *db, int on) {
    int now = -1;
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, &now);
    return now;
}

#endif
