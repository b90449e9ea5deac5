#ifndef MRQ_BENCH_CBASELINE_H
#define MRQ_BENCH_CBASELINE_H

#include <stdint.h>

/// One generated person: fixed-size buffers, so the C baseline binds and
/// the Swift implementations copy exactly the same bytes.
typedef struct {
    int64_t id;
    char firstName[16];
    char lastName[24];
    char email[64];
    char city[24];
    int16_t age;
    double score;
    double balance;
    /// Seconds since 2001-01-01 (how mrq stores dates).
    double createdAt;
    int32_t active;
    /// 0-based index into bench_department_name.
    int32_t department;
} bench_person;

/// Person `index` (0-based) of the data set seeded with `seed`: a pure
/// function of both, so any subset is reproducible.
void bench_person_make(uint64_t seed, int64_t index, bench_person *out);

int32_t bench_department_count(void);
const char *bench_department_name(int32_t index);

/// What a workload read, so every implementation can be checked against
/// the baseline (and the reads cannot be optimised away).
typedef struct {
    int64_t rows;
    int64_t checksum;
} bench_result;

/// Adds one row's values to a checksum (the same rule in C and Swift).
int64_t bench_checksum_row(int64_t id, int64_t firstNameLength, int64_t lastNameLength, int64_t emailLength,
                           int64_t cityLength, int64_t age, double score, double balance, double createdAt,
                           int64_t active);

/// a. Inserts `count` people into the mrq-layout table "Person" of the
/// store at `path`, primary keys from `firstPK`, in one transaction with
/// one prepared statement. Returns 0 or an SQLite error code.
int bench_c_insert(const char *path, const bench_person *people, int64_t count, int64_t firstPK);

/// Fills a store with `count` generated people, in chunks (fixtures).
int bench_c_fill(const char *path, uint64_t seed, int64_t count);

/// b. Steps every row and reads every column into malloc'd structs.
int bench_c_fetch(const char *path, bench_result *result);

/// c. `age > 18 AND lastName BEGINSWITH 'S'` ordered by lastName DESC,
/// firstName, in the SQL mrq generates for it, read into structs.
int bench_c_filter(const char *path, bench_result *result);

/// p. `threads` threads at once, each on its own connection, each running
/// `fetches` times the query mrq's task of the same number runs (a city,
/// ages 30–39, by last and first name), reading every row into structs:
/// how far SQLite itself scales on this machine.
int bench_c_city_reads(const char *path, int32_t threads, int32_t fetches, bench_result *result);

/// d. Inserts the departments, then `count` people pointing at them, into
/// the import model's layout, in one transaction.
int bench_c_import(const char *path, const bench_person *people, int64_t count);

/// g. Steps every row reading every column, keeping nothing.
int bench_c_scan(const char *path, bench_result *result);

/// n, o. The store at `path`, opened as the other workloads open it, for
/// queries timed without the open; NULL on failure.
void *bench_c_open(const char *path);
void bench_c_close(void *db);

/// n. `COUNT(*)` of the people aged `minAge` or more, in the SQL mrq
/// generates; the count as rows and checksum.
int bench_c_count_adults(void *db, int64_t minAge, bench_result *result);

/// o. The first of them by score, highest first (ties by key), read into
/// a struct.
int bench_c_first_adult(void *db, int64_t minAge, bench_result *result);

/// w. Opens the store at `path` read-only, runs each of the `count`
/// statements (one `SELECT count(*) …` an entity) and closes it: rows is
/// the number of statements, checksum the sum of the counts.
int bench_c_counts(const char *path, const char *const *statements, int64_t count, bench_result *result);

/// The SQLite error message of the last failed call, or "".
const char *bench_c_last_error(void);

// MARK: - PostgreSQL (libpq), on tables mrq made

/// A libpq connection (a PGconn), or NULL with bench_pg_last_error set.
void *bench_pg_connect(const char *conninfo);
void bench_pg_close(void *conn);

/// Runs SQL with no parameters (setup between timed runs).
int bench_pg_exec(void *conn, const char *sql);

/// pg-insert: `count` people into "Person", keys from `firstPK`, by one
/// binary COPY in one transaction.
int bench_pg_insert(void *conn, const bench_person *people, int64_t count, int64_t firstPK);

/// pg-import: the departments, then the people pointing at them, into
/// the import model's tables, by binary COPY in one transaction.
int bench_pg_import(void *conn, const bench_person *people, int64_t count);

/// pg-fetch: every row and column in binary, read into structs.
int bench_pg_fetch(void *conn, bench_result *result);

/// pg-filter: `age > 18 AND lastName BEGINSWITH 'S'` ordered by lastName
/// DESC, firstName, as a C programmer writes it.
int bench_pg_filter(void *conn, bench_result *result);

/// The row (a "Person" key, 1...rows) writer `writer` changes in its
/// update `update`: the writers' rows overlap.
int64_t bench_writer_row(int32_t writer, int32_t update, int64_t rows);

/// pg-writers: `writers` threads, each on its own connection, each adding
/// 1 to the score of `updates` rows by read, then UPDATE … WHERE _pk AND
/// _opt (optimistic locking), again on a conflict; `conflicts` counts the
/// retries.
int bench_pg_writers(const char *conninfo, int32_t writers, int32_t updates, int64_t rows, int64_t *conflicts);

/// The sum of every "Person" score.
int bench_pg_score_sum(void *conn, double *sum);

/// The libpq error message of the last failed bench_pg_ call, or "".
const char *bench_pg_last_error(void);

/// Calls `body(context)`: the one region `make bench-instructions` counts,
/// by name (callgrind's --toggle-collect=bench_measure), so setup and
/// teardown around it stay out of the count.
void bench_measure(void (*body)(void *), void *context);

#endif
