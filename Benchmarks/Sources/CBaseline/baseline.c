#include "CBaseline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

// MARK: - Data

static const char *FIRST_NAMES[] = {
    "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Margaret", "Dennis", "Frances", "Ken",
    "Radia", "Niklaus", "Karen", "John", "Sophie", "Tony", "Hedy", "Leslie", "Shafi", "Butler",
    "Adele", "Robin", "Mary", "Charles", "Jean", "Peter", "Lynn", "Fernando", "Anita", "Guido",
    "Bjarne", "Joan", "Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Heidi", "Ivan",
};
static const char *LAST_NAMES[] = {
    "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Ritchie", "Allen", "Thompson",
    "Perlman", "Wirth", "Sparck", "McCarthy", "Wilson", "Hoare", "Lamarr", "Lamport", "Goldwasser", "Lampson",
    "Goldberg", "Milner", "Shaw", "Babbage", "Sammet", "Naur", "Conway", "Corbato", "Borg", "Rossum",
    "Stroustrup", "Clarke", "Smith", "Stone", "Sutherland", "Simon", "Scott", "Sussman", "Steele", "Stallman",
};
static const char *CITIES[] = {
    "London", "Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Dublin", "Vienna", "Prague", "Warsaw",
    "Oslo", "Stockholm", "Helsinki", "Copenhagen", "Amsterdam", "Brussels", "Zurich", "Athens", "Budapest", "Riga",
};
static const char *DEPARTMENTS[] = {
    "Engineering", "Research", "Sales", "Marketing", "Support", "Finance", "Legal", "Operations",
    "Design", "Security", "Infrastructure", "Data", "Mobile", "Web", "Quality", "People",
    "Facilities", "Procurement", "Training", "Strategy",
};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void bench_person_make(uint64_t seed, int64_t index, bench_person *out) {
    uint64_t state = seed * 0x100000001B3ULL ^ (uint64_t)index;
    const char *first = FIRST_NAMES[splitmix64(&state) % COUNT(FIRST_NAMES)];
    const char *last = LAST_NAMES[splitmix64(&state) % COUNT(LAST_NAMES)];
    memset(out, 0, sizeof *out);
    out->id = index + 1;
    snprintf(out->firstName, sizeof out->firstName, "%s", first);
    snprintf(out->lastName, sizeof out->lastName, "%s", last);
    // Long enough (> 15 bytes) that Swift must allocate it, as real emails do.
    snprintf(out->email, sizeof out->email, "%s.%s%lld@example.com", first, last, (long long)(index + 1));
    for (char *c = out->email; *c; c++) if (*c >= 'A' && *c <= 'Z') *c += 'a' - 'A';
    snprintf(out->city, sizeof out->city, "%s", CITIES[splitmix64(&state) % COUNT(CITIES)]);
    out->age = (int16_t)(splitmix64(&state) % 90);
    out->score = (double)(splitmix64(&state) % 1000000) / 1000.0;
    out->balance = (double)(int64_t)(splitmix64(&state) % 2000000 - 1000000) / 100.0;
    out->createdAt = 400000000.0 + (double)(splitmix64(&state) % 400000000);
    out->active = (int32_t)(splitmix64(&state) % 4 != 0);
    out->department = (int32_t)(splitmix64(&state) % COUNT(DEPARTMENTS));
}

int32_t bench_department_count(void) { return COUNT(DEPARTMENTS); }
const char *bench_department_name(int32_t index) { return DEPARTMENTS[index]; }

int64_t bench_checksum_row(int64_t id, int64_t firstNameLength, int64_t lastNameLength, int64_t emailLength,
                           int64_t cityLength, int64_t age, double score, double balance, double createdAt,
                           int64_t active) {
    return id * 31 + firstNameLength + lastNameLength * 3 + emailLength * 5 + cityLength * 7 + age * 11
        + (int64_t)(score * 1000.0) + (int64_t)(balance * 100.0) + (int64_t)createdAt + active * 13;
}

// MARK: - SQLite helpers

static char last_error[512];
const char *bench_c_last_error(void) { return last_error; }

static int fail(sqlite3 *db, int rc, const char *what) {
    snprintf(last_error, sizeof last_error, "%s: %s (%d)", what, db ? sqlite3_errmsg(db) : "", rc);
    return rc ? rc : 1;
}

// The same flags mrq's Database uses.
static int open_db(const char *path, sqlite3 **db) {
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) return fail(*db, rc, "open");
    return SQLITE_OK;
}

#define CHECK(expr, what) do { int rc_ = (expr); if (rc_ != SQLITE_OK && rc_ != SQLITE_DONE && rc_ != SQLITE_ROW) { int r_ = fail(db, rc_, what); sqlite3_close_v2(db); return r_; } } while (0)

// MARK: - a. insert

static const char *INSERT_SQL =
    "INSERT INTO \"Person\" (_pk, _opt, \"id\", \"firstName\", \"lastName\", \"email\", \"age\", \"score\", "
    "\"balance\", \"city\", \"createdAt\", \"active\") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

static int insert_rows(sqlite3 *db, sqlite3_stmt *stmt, const bench_person *people, int64_t count, int64_t firstPK) {
    for (int64_t i = 0; i < count; i++) {
        const bench_person *p = &people[i];
        sqlite3_bind_int64(stmt, 1, firstPK + i);
        sqlite3_bind_int64(stmt, 2, 1);
        sqlite3_bind_int64(stmt, 3, p->id);
        sqlite3_bind_text(stmt, 4, p->firstName, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 5, p->lastName, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 6, p->email, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 7, p->age);
        sqlite3_bind_double(stmt, 8, p->score);
        sqlite3_bind_double(stmt, 9, p->balance);
        sqlite3_bind_text(stmt, 10, p->city, -1, SQLITE_STATIC);
        sqlite3_bind_double(stmt, 11, p->createdAt);
        sqlite3_bind_int64(stmt, 12, p->active ? 1 : 0);
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE) return fail(db, rc, "insert");
        sqlite3_reset(stmt);
    }
    return SQLITE_OK;
}

int bench_c_insert(const char *path, const bench_person *people, int64_t count, int64_t firstPK) {
    sqlite3 *db = NULL;
    if (open_db(path, &db) != SQLITE_OK) return 1;
    sqlite3_stmt *stmt = NULL;
    CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), "begin");
    CHECK(sqlite3_prepare_v2(db, INSERT_SQL, -1, &stmt, NULL), "prepare");
    int rc = insert_rows(db, stmt, people, count, firstPK);
    sqlite3_finalize(stmt);
    if (rc != SQLITE_OK) { sqlite3_close_v2(db); return rc; }
    CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit");
    sqlite3_close_v2(db);
    return SQLITE_OK;
}

int bench_c_fill(const char *path, uint64_t seed, int64_t count) {
    const int64_t chunk = 100000;
    bench_person *people = malloc(sizeof(bench_person) * chunk);
    sqlite3 *db = NULL;
    if (open_db(path, &db) != SQLITE_OK) { free(people); return 1; }
    sqlite3_stmt *stmt = NULL;
    CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), "begin");
    CHECK(sqlite3_prepare_v2(db, INSERT_SQL, -1, &stmt, NULL), "prepare");
    for (int64_t start = 0; start < count; start += chunk) {
        int64_t n = count - start < chunk ? count - start : chunk;
        for (int64_t i = 0; i < n; i++) bench_person_make(seed, start + i, &people[i]);
        int rc = insert_rows(db, stmt, people, n, start + 1);
        if (rc != SQLITE_OK) { sqlite3_finalize(stmt); sqlite3_close_v2(db); free(people); return rc; }
    }
    sqlite3_finalize(stmt);
    free(people);
    CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit");
    CHECK(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL), "checkpoint");
    sqlite3_close_v2(db);
    return SQLITE_OK;
}

// MARK: - b, c, g. reading

typedef struct {
    int64_t pk, id;
    char *firstName, *lastName, *email, *city;
    int64_t age;
    double score, balance, createdAt;
    int64_t active;
} person_row;

static char *copy_text(sqlite3_stmt *stmt, int column, int64_t *length) {
    const unsigned char *text = sqlite3_column_text(stmt, column);
    int n = sqlite3_column_bytes(stmt, column);
    char *copy = malloc((size_t)n + 1);
    memcpy(copy, text, (size_t)n);
    copy[n] = 0;
    *length = n;
    return copy;
}

// The select list mrq's store uses: _pk, the entity code, _opt, then every column.
#define SELECT_LIST "t._pk, NULL, t._opt, t.\"id\", t.\"firstName\", t.\"lastName\", t.\"email\", t.\"age\", " \
    "t.\"score\", t.\"balance\", t.\"city\", t.\"createdAt\", t.\"active\""

static int read_rows(sqlite3 *db, sqlite3_stmt *stmt, bench_result *result, int keep) {
    size_t capacity = 1024, count = 0;
    person_row *rows = keep ? malloc(sizeof(person_row) * capacity) : NULL;
    int64_t checksum = 0;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        person_row row;
        int64_t l1, l2, l3, l4;
        row.pk = sqlite3_column_int64(stmt, 0);
        row.id = sqlite3_column_int64(stmt, 3);
        row.firstName = copy_text(stmt, 4, &l1);
        row.lastName = copy_text(stmt, 5, &l2);
        row.email = copy_text(stmt, 6, &l3);
        row.age = sqlite3_column_int64(stmt, 7);
        row.score = sqlite3_column_double(stmt, 8);
        row.balance = sqlite3_column_double(stmt, 9);
        row.city = copy_text(stmt, 10, &l4);
        row.createdAt = sqlite3_column_double(stmt, 11);
        row.active = sqlite3_column_int64(stmt, 12);
        checksum += bench_checksum_row(row.id, l1, l2, l3, l4, row.age, row.score, row.balance, row.createdAt, row.active);
        if (keep) {
            if (count == capacity) { capacity *= 2; rows = realloc(rows, sizeof(person_row) * capacity); }
            rows[count] = row;
        } else {
            free(row.firstName); free(row.lastName); free(row.email); free(row.city);
        }
        count++;
    }
    if (keep) {
        for (size_t i = 0; i < count; i++) {
            free(rows[i].firstName); free(rows[i].lastName); free(rows[i].email); free(rows[i].city);
        }
        free(rows);
    }
    if (rc != SQLITE_DONE) return fail(db, rc, "step");
    result->rows = (int64_t)count;
    result->checksum = checksum;
    return SQLITE_OK;
}

static int query(const char *path, const char *sql, int bindFilter, int keep, bench_result *result) {
    sqlite3 *db = NULL;
    if (open_db(path, &db) != SQLITE_OK) return 1;
    sqlite3_stmt *stmt = NULL;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), "prepare");
    if (bindFilter) {
        sqlite3_bind_int64(stmt, 1, 18);
        sqlite3_bind_text(stmt, 2, "S", -1, SQLITE_STATIC);
    }
    int rc = read_rows(db, stmt, result, keep);
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    return rc;
}

int bench_c_fetch(const char *path, bench_result *result) {
    return query(path, "SELECT " SELECT_LIST " FROM \"Person\" t", 0, 1, result);
}

int bench_c_filter(const char *path, bench_result *result) {
    return query(path,
                 "SELECT " SELECT_LIST " FROM \"Person\" t WHERE t.\"age\" > ?1 AND (length(?2) > 0 AND "
                 "substr(t.\"lastName\", 1, length(?2)) = ?2) ORDER BY t.\"lastName\" DESC, t.\"firstName\", t._pk",
                 1, 1, result);
}

// MARK: - p. parallel reads

typedef struct {
    const char *path;
    int32_t task, fetches;
    int rc;
    bench_result result;
} city_job;

static void *city_reads(void *argument) {
    city_job *job = argument;
    sqlite3 *db = NULL;
    if ((job->rc = open_db(job->path, &db)) != SQLITE_OK) return NULL;
    // Eight connections opening at once may find another one building
    // the WAL's index: wait for it, as mrq's connections do.
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *stmt = NULL;
    job->rc = sqlite3_prepare_v2(db,
        "SELECT " SELECT_LIST " FROM \"Person\" t WHERE t.\"city\" IS ?1 AND t.\"age\" BETWEEN ?2 AND ?3 "
        "ORDER BY t.\"lastName\", t.\"firstName\", t._pk", -1, &stmt, NULL);
    if (job->rc != SQLITE_OK) job->rc = fail(db, job->rc, "prepare");
    static const int CITY_TASKS = 8;   // the cities mrq's tasks ask for, in its order
    for (int32_t f = 0; f < job->fetches && job->rc == SQLITE_OK; f++) {
        bench_result one = {0};
        sqlite3_bind_text(stmt, 1, CITIES[job->task % CITY_TASKS], -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 2, 30);
        sqlite3_bind_int64(stmt, 3, 39);
        job->rc = read_rows(db, stmt, &one, 1);
        sqlite3_reset(stmt);
        job->result.rows += one.rows;
        job->result.checksum += one.checksum;
    }
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    return NULL;
}

int bench_c_city_reads(const char *path, int32_t threads, int32_t fetches, bench_result *result) {
    city_job jobs[64];
    pthread_t ids[64];
    if (threads < 1 || threads > 64) return 1;
    for (int32_t t = 0; t < threads; t++) {
        jobs[t] = (city_job){ .path = path, .task = t, .fetches = fetches, .rc = SQLITE_OK };
        if (pthread_create(&ids[t], NULL, city_reads, &jobs[t]) != 0) {
            for (int32_t u = 0; u < t; u++) pthread_join(ids[u], NULL);
            return 1;
        }
    }
    result->rows = 0;
    result->checksum = 0;
    int rc = SQLITE_OK;
    for (int32_t t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        if (jobs[t].rc != SQLITE_OK) rc = jobs[t].rc;
        result->rows += jobs[t].result.rows;
        result->checksum += jobs[t].result.checksum;
    }
    return rc;
}

int bench_c_scan(const char *path, bench_result *result) {
    return query(path, "SELECT " SELECT_LIST " FROM \"Person\" t ORDER BY t._pk", 0, 0, result);
}

// MARK: - d. import

int bench_c_import(const char *path, const bench_person *people, int64_t count) {
    sqlite3 *db = NULL;
    if (open_db(path, &db) != SQLITE_OK) return 1;
    sqlite3_stmt *dept = NULL, *stmt = NULL;
    CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), "begin");
    CHECK(sqlite3_prepare_v2(db, "INSERT INTO \"Department\" (_pk, _opt, \"name\") VALUES (?, 1, ?)", -1, &dept, NULL), "prepare");
    for (int32_t d = 0; d < bench_department_count(); d++) {
        sqlite3_bind_int64(dept, 1, d + 1);
        sqlite3_bind_text(dept, 2, DEPARTMENTS[d], -1, SQLITE_STATIC);
        if (sqlite3_step(dept) != SQLITE_DONE) { sqlite3_finalize(dept); return fail(db, 1, "insert department"); }
        sqlite3_reset(dept);
    }
    sqlite3_finalize(dept);
    CHECK(sqlite3_prepare_v2(db,
        "INSERT INTO \"Person\" (_pk, _opt, \"personID\", \"firstName\", \"lastName\", \"email\", \"age\", \"score\", "
        "\"balance\", \"city\", \"createdAt\", \"active\", \"department\") VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        -1, &stmt, NULL), "prepare");
    for (int64_t i = 0; i < count; i++) {
        const bench_person *p = &people[i];
        sqlite3_bind_int64(stmt, 1, i + 1);
        sqlite3_bind_int64(stmt, 2, p->id);
        sqlite3_bind_text(stmt, 3, p->firstName, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 4, p->lastName, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 5, p->email, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 6, p->age);
        sqlite3_bind_double(stmt, 7, p->score);
        sqlite3_bind_double(stmt, 8, p->balance);
        sqlite3_bind_text(stmt, 9, p->city, -1, SQLITE_STATIC);
        sqlite3_bind_double(stmt, 10, p->createdAt);
        sqlite3_bind_int64(stmt, 11, p->active ? 1 : 0);
        sqlite3_bind_int64(stmt, 12, p->department + 1);
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE) { sqlite3_finalize(stmt); int r = fail(db, rc, "insert"); sqlite3_close_v2(db); return r; }
        sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), "commit");
    sqlite3_close_v2(db);
    return SQLITE_OK;
}

// MARK: - n, o. a count and a first object, on an open store

void *bench_c_open(const char *path) {
    sqlite3 *db = NULL;
    return open_db(path, &db) == SQLITE_OK ? db : NULL;
}

void bench_c_close(void *db) { sqlite3_close_v2(db); }

int bench_c_count_adults(void *handle, int64_t minAge, bench_result *result) {
    sqlite3 *db = handle;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM \"Person\" t WHERE t.\"age\" >= ?1", -1, &stmt, NULL);
    if (rc != SQLITE_OK) return fail(db, rc, "prepare");
    sqlite3_bind_int64(stmt, 1, minAge);
    rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) { sqlite3_finalize(stmt); return fail(db, rc, "step"); }
    result->rows = sqlite3_column_int64(stmt, 0);
    result->checksum = result->rows;
    sqlite3_finalize(stmt);
    return SQLITE_OK;
}

int bench_c_first_adult(void *handle, int64_t minAge, bench_result *result) {
    sqlite3 *db = handle;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT " SELECT_LIST " FROM \"Person\" t WHERE t.\"age\" >= ?1 "
                                "ORDER BY t.\"score\" DESC, t._pk LIMIT 1", -1, &stmt, NULL);
    if (rc != SQLITE_OK) return fail(db, rc, "prepare");
    sqlite3_bind_int64(stmt, 1, minAge);
    rc = read_rows(db, stmt, result, 1);
    sqlite3_finalize(stmt);
    return rc;
}

// MARK: - w. every entity's count of a real store

int bench_c_counts(const char *path, const char *const *statements, int64_t count, bench_result *result) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) { int r = fail(db, rc, "open"); sqlite3_close_v2(db); return r; }
    result->rows = 0;
    result->checksum = 0;
    for (int64_t i = 0; i < count; i++) {
        sqlite3_stmt *stmt = NULL;
        CHECK(sqlite3_prepare_v2(db, statements[i], -1, &stmt, NULL), "prepare");
        rc = sqlite3_step(stmt);
        if (rc != SQLITE_ROW) { sqlite3_finalize(stmt); int r = fail(db, rc, "step"); sqlite3_close_v2(db); return r; }
        result->checksum += sqlite3_column_int64(stmt, 0);
        result->rows += 1;
        sqlite3_finalize(stmt);
    }
    sqlite3_close_v2(db);
    return SQLITE_OK;
}

// MARK: - Instruction counts

__attribute__((noinline)) void bench_measure(void (*body)(void *), void *context) {
    body(context);
    // Keeps this a real call frame (no tail call), so callgrind sees the
    // whole of body inside it.
    __asm__ volatile("" ::: "memory");
}
