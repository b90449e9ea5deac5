#include <sqlite3.h>

/// Keeps the connection from checkpointing the write-ahead log into the
/// database when it closes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`, a variadic
/// call Swift cannot make): a session that only read leaves a log it
/// found, and the file, as they were.
static inline int mrq_keep_wal_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

/// Turns off SQLite's double-quoted string literal misfeature in DML
/// (`SQLITE_DBCONFIG_DQS_DML`, a variadic call Swift cannot make): a quoted
/// identifier that names no column is then an error, not the string of its
/// own name written into every row.
static inline int mrq_strict_quoted_identifiers(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
}

/// Closes what a store file's own schema, or a name read from it, could
/// make SQLite do beyond the statements mrq writes (variadic calls Swift
/// cannot make): defensive mode (no writes to the schema or to shadow
/// tables, no `PRAGMA writable_schema`), an untrusted schema (a view or
/// trigger of the file may call only functions marked innocuous, never
/// `load_extension` or one of mrq's own), no views at all (mrq reads
/// tables, and a view can be a query that never ends), no extension
/// loading, and no database attached (`ATTACH` could create a file).
/// Returns the first failing result code, or `SQLITE_OK`.
static inline int mrq_harden_connection(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    return rc;
}

#if defined(__ELF__)
// Only in a SQLite built with SQLITE_ENABLE_COLUMN_METADATA (Debian's,
// Apple's, Homebrew's and most others are): referenced weakly, so a
// library without it still links and mrq asks with a query instead.
#pragma weak sqlite3_table_column_metadata
#endif

/// Whether `table` of the main database has a column `column` (SQLite
/// compares both names without regard to ASCII case, as it resolves them in
/// a statement), answered from the schema SQLite holds in memory: 1 yes,
/// 0 no, -1 when it cannot say so (a library built without column metadata,
/// or the schema could not be read): the caller then asks with a query.
/// `PRAGMA table_info` costs a statement and some 1 µs a column; opening a
/// Core Data store checks each column its model maps, hundreds of them.
static inline int mrq_table_has_column(sqlite3 *db, const char *table, const char *column) {
#if defined(__ELF__)
    if (!sqlite3_table_column_metadata) return -1;
#endif
    int rc = sqlite3_table_column_metadata(db, "main", table, column, 0, 0, 0, 0, 0);
    if (rc == SQLITE_OK) return 1;
    return rc == SQLITE_ERROR ? 0 : -1;
}

/// Whether the main database has a table `table` (not a view; SQLite
/// compares the name without regard to ASCII case), from the schema in
/// memory as `mrq_table_has_column` answers: 1, 0, or -1 for "ask with a
/// query". A query on `sqlite_master` reads every row of the schema.
static inline int mrq_table_exists(sqlite3 *db, const char *table) {
    return mrq_table_has_column(db, table, 0);
}
