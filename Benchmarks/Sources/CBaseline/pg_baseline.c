// The raw libpq C baseline of the PostgreSQL workloads: what a C
// programmer writes against mrq's tables, binary COPY in and binary
// results out.
#include "CBaseline.h"

#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char pg_error[512];
const char *bench_pg_last_error(void) { return pg_error; }

static int pg_fail(PGconn *conn, PGresult *res, const char *what) {
    snprintf(pg_error, sizeof pg_error, "%s: %s", what,
             res ? PQresultErrorMessage(res) : conn ? PQerrorMessage(conn) : "no connection");
    if (res) PQclear(res);
    return 1;
}

void *bench_pg_connect(const char *conninfo) {
    PGconn *conn = PQconnectdb(conninfo);
    if (PQstatus(conn) != CONNECTION_OK) {
        pg_fail(conn, NULL, "connect");
        PQfinish(conn);
        return NULL;
    }
    return conn;
}

void bench_pg_close(void *conn) { PQfinish(conn); }

int bench_pg_exec(void *handle, const char *sql) {
    PGconn *conn = handle;
    PGresult *res = PQexec(conn, sql);
    ExecStatusType status = PQresultStatus(res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return pg_fail(conn, res, sql);
    PQclear(res);
    return 0;
}

// MARK: - Binary COPY

typedef struct {
    char *data;
    size_t length, capacity;
} buffer;

static void put(buffer *b, const void *bytes, size_t n) {
    if (b->length + n > b->capacity) {
        while (b->length + n > b->capacity) b->capacity = b->capacity ? b->capacity * 2 : 1 << 20;
        b->data = realloc(b->data, b->capacity);
    }
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
}

static void put16(buffer *b, int16_t v) { uint16_t x = htobe16((uint16_t)v); put(b, &x, 2); }
static void put32(buffer *b, int32_t v) { uint32_t x = htobe32((uint32_t)v); put(b, &x, 4); }
static void field64(buffer *b, int64_t v) { uint64_t x = htobe64((uint64_t)v); put32(b, 8); put(b, &x, 8); }
static void field16(buffer *b, int16_t v) { put32(b, 2); put16(b, v); }
static void fieldDouble(buffer *b, double d) { int64_t v; memcpy(&v, &d, 8); field64(b, v); }
static void fieldText(buffer *b, const char *s) { size_t n = strlen(s); put32(b, (int32_t)n); put(b, s, n); }
static void fieldBool(buffer *b, int v) { char c = v ? 1 : 0; put32(b, 1); put(b, &c, 1); }
// Seconds since 2001-01-01 as a timestamptz: microseconds since 2000-01-01.
static void fieldDate(buffer *b, double seconds) {
    double us = (seconds + 31622400.0) * 1e6;
    field64(b, (int64_t)(us < 0 ? us - 0.5 : us + 0.5));
}

static void header(buffer *b) {
    put(b, "PGCOPY\n\377\r\n\0", 11);
    put32(b, 0);
    put32(b, 0);
}

static void person_fields(buffer *b, const bench_person *p) {
    field64(b, p->id);
    fieldText(b, p->firstName);
    fieldText(b, p->lastName);
    fieldText(b, p->email);
    field16(b, p->age);
    fieldDouble(b, p->score);
    fieldDouble(b, p->balance);
    fieldText(b, p->city);
    fieldDate(b, p->createdAt);
    fieldBool(b, p->active);
}

static int copy_in(PGconn *conn, const char *sql, buffer *b) {
    put16(b, -1);
    PGresult *res = PQexec(conn, sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) return pg_fail(conn, res, sql);
    PQclear(res);
    for (size_t offset = 0; offset < b->length; offset += 1 << 20) {
        size_t n = b->length - offset < (1 << 20) ? b->length - offset : (1 << 20);
        if (PQputCopyData(conn, b->data + offset, (int)n) != 1) return pg_fail(conn, NULL, "copy data");
    }
    if (PQputCopyEnd(conn, NULL) != 1) return pg_fail(conn, NULL, "copy end");
    int rc = 0;
    while ((res = PQgetResult(conn))) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK) rc = pg_fail(conn, res, sql);
        else PQclear(res);
    }
    return rc;
}

int bench_pg_insert(void *handle, const bench_person *people, int64_t count, int64_t firstPK) {
    PGconn *conn = handle;
    buffer b = {0};
    header(&b);
    for (int64_t i = 0; i < count; i++) {
        put16(&b, 12);
        field64(&b, firstPK + i);
        field64(&b, 1);
        person_fields(&b, &people[i]);
    }
    int rc = bench_pg_exec(conn, "BEGIN");
    if (!rc) rc = copy_in(conn,
        "COPY \"Person\" (_pk, _opt, \"id\", \"firstName\", \"lastName\", \"email\", \"age\", \"score\", "
        "\"balance\", \"city\", \"createdAt\", \"active\") FROM STDIN (FORMAT binary)", &b);
    rc = rc ? (bench_pg_exec(conn, "ROLLBACK"), rc) : bench_pg_exec(conn, "COMMIT");
    free(b.data);
    return rc;
}

int bench_pg_import(void *handle, const bench_person *people, int64_t count) {
    PGconn *conn = handle;
    buffer d = {0}, b = {0};
    header(&d);
    for (int32_t i = 0; i < bench_department_count(); i++) {
        put16(&d, 3);
        field64(&d, i + 1);
        field64(&d, 1);
        fieldText(&d, bench_department_name(i));
    }
    header(&b);
    for (int64_t i = 0; i < count; i++) {
        put16(&b, 13);
        field64(&b, i + 1);
        field64(&b, 1);
        person_fields(&b, &people[i]);
        field64(&b, people[i].department + 1);
    }
    int rc = bench_pg_exec(conn, "BEGIN");
    if (!rc) rc = copy_in(conn, "COPY \"Department\" (_pk, _opt, \"name\") FROM STDIN (FORMAT binary)", &d);
    if (!rc) rc = copy_in(conn,
        "COPY \"Person\" (_pk, _opt, \"personID\", \"firstName\", \"lastName\", \"email\", \"age\", \"score\", "
        "\"balance\", \"city\", \"createdAt\", \"active\", \"department\") FROM STDIN (FORMAT binary)", &b);
    rc = rc ? (bench_pg_exec(conn, "ROLLBACK"), rc) : bench_pg_exec(conn, "COMMIT");
    free(d.data);
    free(b.data);
    return rc;
}

// MARK: - Reading

static int64_t get64(const PGresult *res, int row, int column) {
    uint64_t x;
    memcpy(&x, PQgetvalue(res, row, column), 8);
    return (int64_t)be64toh(x);
}

static double getDouble(const PGresult *res, int row, int column) {
    int64_t v = get64(res, row, column);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static char *getText(const PGresult *res, int row, int column, int64_t *length) {
    int n = PQgetlength(res, row, column);
    char *s = malloc((size_t)n + 1);
    memcpy(s, PQgetvalue(res, row, column), (size_t)n);
    s[n] = 0;
    *length = n;
    return s;
}

typedef struct {
    int64_t pk, opt, id, age, active;
    char *firstName, *lastName, *email, *city;
    double score, balance, createdAt;
} pg_person;

#define PG_SELECT_LIST "t._pk, t._opt, t.\"id\", t.\"firstName\", t.\"lastName\", t.\"email\", t.\"age\", " \
    "t.\"score\", t.\"balance\", t.\"city\", t.\"createdAt\", t.\"active\""

static int pg_query(PGconn *conn, const char *sql, int filter, bench_result *result) {
    const char *values[2] = {"18", "S%"};
    PGresult *res = PQexecParams(conn, sql, filter ? 2 : 0, NULL, filter ? values : NULL, NULL, NULL, 1);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) return pg_fail(conn, res, "query");
    int count = PQntuples(res);
    pg_person *rows = malloc(sizeof(pg_person) * (size_t)(count ? count : 1));
    int64_t checksum = 0;
    for (int i = 0; i < count; i++) {
        pg_person *p = &rows[i];
        int64_t l1, l2, l3, l4;
        p->pk = get64(res, i, 0);
        p->opt = get64(res, i, 1);
        p->id = get64(res, i, 2);
        p->firstName = getText(res, i, 3, &l1);
        p->lastName = getText(res, i, 4, &l2);
        p->email = getText(res, i, 5, &l3);
        uint16_t age;
        memcpy(&age, PQgetvalue(res, i, 6), 2);
        p->age = (int16_t)be16toh(age);
        p->score = getDouble(res, i, 7);
        p->balance = getDouble(res, i, 8);
        p->city = getText(res, i, 9, &l4);
        p->createdAt = (double)get64(res, i, 10) / 1e6 - 31622400.0;
        p->active = *PQgetvalue(res, i, 11) != 0;
        checksum += bench_checksum_row(p->id, l1, l2, l3, l4, p->age, p->score, p->balance, p->createdAt, p->active);
    }
    PQclear(res);
    for (int i = 0; i < count; i++) {
        free(rows[i].firstName); free(rows[i].lastName); free(rows[i].email); free(rows[i].city);
    }
    free(rows);
    result->rows = count;
    result->checksum = checksum;
    return 0;
}

int bench_pg_fetch(void *conn, bench_result *result) {
    return pg_query(conn, "SELECT " PG_SELECT_LIST " FROM \"Person\" t", 0, result);
}

int bench_pg_filter(void *conn, bench_result *result) {
    return pg_query(conn, "SELECT " PG_SELECT_LIST " FROM \"Person\" t WHERE t.\"age\" > $1 AND t.\"lastName\" LIKE $2 "
                    "ORDER BY t.\"lastName\" DESC, t.\"firstName\", t._pk", 1, result);
}

// MARK: - Concurrent writers

typedef struct {
    const char *conninfo;
    int writer, updates;
    int64_t rows, conflicts;
    int rc;
} writer_job;

static void *write_rows(void *argument) {
    writer_job *job = argument;
    PGconn *conn = bench_pg_connect(job->conninfo);
    if (!conn) { job->rc = 1; return NULL; }
    const char *select = "SELECT _opt, \"score\" FROM \"Person\" WHERE _pk = $1::bigint";
    const char *update = "UPDATE \"Person\" SET \"score\" = $1::float8, _opt = $2::bigint + 1 WHERE _pk = $3::bigint AND _opt = $2::bigint";
    PGresult *res = PQprepare(conn, "s", select, 0, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) { job->rc = pg_fail(conn, res, "prepare"); PQfinish(conn); return NULL; }
    PQclear(res);
    res = PQprepare(conn, "u", update, 0, NULL);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) { job->rc = pg_fail(conn, res, "prepare"); PQfinish(conn); return NULL; }
    PQclear(res);
    for (int i = 0; i < job->updates; i++) {
        int64_t pk = bench_writer_row(job->writer, i, job->rows);
        char pkText[24], optText[24], scoreText[40];
        snprintf(pkText, sizeof pkText, "%lld", (long long)pk);
        for (;;) {
            const char *key[1] = {pkText};
            res = PQexecPrepared(conn, "s", 1, key, NULL, NULL, 1);
            if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) { job->rc = pg_fail(conn, res, "select"); PQfinish(conn); return NULL; }
            snprintf(optText, sizeof optText, "%lld", (long long)get64(res, 0, 0));
            snprintf(scoreText, sizeof scoreText, "%.17g", getDouble(res, 0, 1) + 1);
            PQclear(res);
            const char *values[3] = {scoreText, optText, pkText};
            res = PQexecPrepared(conn, "u", 3, values, NULL, NULL, 1);
            if (PQresultStatus(res) != PGRES_COMMAND_OK) { job->rc = pg_fail(conn, res, "update"); PQfinish(conn); return NULL; }
            int changed = atoi(PQcmdTuples(res));
            PQclear(res);
            if (changed == 1) break;
            job->conflicts++;
        }
    }
    PQfinish(conn);
    return NULL;
}

int64_t bench_writer_row(int32_t writer, int32_t update, int64_t rows) {
    return 1 + ((int64_t)writer * 7 + (int64_t)update * 13) % rows;
}

int bench_pg_writers(const char *conninfo, int32_t writers, int32_t updates, int64_t rows, int64_t *conflicts) {
    pthread_t threads[64];
    writer_job jobs[64];
    if (writers > 64) return pg_fail(NULL, NULL, "at most 64 writers");
    for (int w = 0; w < writers; w++) {
        jobs[w] = (writer_job){conninfo, w, updates, rows, 0, 0};
        pthread_create(&threads[w], NULL, write_rows, &jobs[w]);
    }
    int rc = 0;
    *conflicts = 0;
    for (int w = 0; w < writers; w++) {
        pthread_join(threads[w], NULL);
        rc = rc ? rc : jobs[w].rc;
        *conflicts += jobs[w].conflicts;
    }
    return rc;
}

int bench_pg_score_sum(void *conn, double *sum) {
    PGresult *res = PQexec(conn, "SELECT coalesce(sum(\"score\"), 0)::float8::text FROM \"Person\"");
    if (PQresultStatus(res) != PGRES_TUPLES_OK) return pg_fail(conn, res, "sum");
    *sum = atof(PQgetvalue(res, 0, 0));
    PQclear(res);
    return 0;
}
