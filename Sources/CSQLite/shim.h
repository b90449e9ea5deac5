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
