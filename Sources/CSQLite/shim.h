#include <sqlite3.h>

/// Asks the CPU to bring the memory at `address` into the cache, without
/// waiting for it: a hint, which never faults, whatever the address.
static inline void mrq_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

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
