/*
 * The HBase-shaped cell operations of the flat key-value stores (LevelDB,
 * RocksDB): a cell is one entry keyed row 0x00 qualifier 0x00 ~ts, the
 * timestamp big-endian and inverted so that the newest version of a column
 * comes first, as in HBase's own key order. Built on the engine's put and
 * seek_read (engine.h); cellbench's rows and qualifiers hold no 0x00 byte.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"

#define CELL_KEY_MAX 512
#define VALUE_MAX 4096

/* Writes row 0x00 qual 0x00 into buf; its length, or 0 if too long. */
static size_t column_prefix(char *buf, const char *row, size_t row_len, const char *qual,
                            size_t qual_len) {
    if (row_len + qual_len + 2 + 8 > CELL_KEY_MAX)
        return 0;
    memcpy(buf, row, row_len);
    buf[row_len] = '\0';
    memcpy(buf + row_len + 1, qual, qual_len);
    buf[row_len + 1 + qual_len] = '\0';
    return row_len + qual_len + 2;
}

static void put_ts(char *p, int64_t ts) {
    uint64_t v = ~(uint64_t)ts;
    for (int i = 7; i >= 0; i--) {
        p[i] = (char)(v & 0xff);
        v >>= 8;
    }
}

static int64_t get_ts(const char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | (unsigned char)p[i];
    return (int64_t)~v;
}

static int too_long(engine *e) {
    snprintf(e->err, sizeof e->err, "row and qualifier too long");
    return -1;
}

static int need_seek(engine *e) {
    if (e->ops->seek_read != NULL)
        return 0;
    snprintf(e->err, sizeof e->err, "not supported by the %s engine", e->ops->name);
    return -1;
}

int cells_put(engine *e, const char *row, size_t row_len, const char *qual, size_t qual_len,
              int64_t ts, const char *value, size_t value_len) {
    char key[CELL_KEY_MAX];
    size_t n = column_prefix(key, row, row_len, qual, qual_len);
    if (n == 0)
        return too_long(e);
    if (need_seek(e) != 0)      /* cells it could not read back */
        return -1;
    put_ts(key + n, ts);
    return e->ops->put(e, key, n + 8, value, value_len);
}

typedef struct newest {
    int64_t tmin;
    bool found;
    uint64_t bytes;
    char value[VALUE_MAX];
    size_t value_len;
} newest;

static bool take_newest(void *ctx, const char *key, size_t key_len, const char *value,
                        size_t value_len) {
    newest *nw = ctx;
    if (key_len >= 8 && get_ts(key + key_len - 8) >= nw->tmin) {
        nw->found = true;
        nw->bytes += key_len + value_len;
        nw->value_len = value_len < VALUE_MAX ? value_len : VALUE_MAX;
        memcpy(nw->value, value, nw->value_len);
    }
    return false;
}

static int read_newest(engine *e, const char *row, size_t row_len, const char *qual,
                       size_t qual_len, int64_t tmin, int64_t tmax, newest *nw) {
    char key[CELL_KEY_MAX];
    size_t n = column_prefix(key, row, row_len, qual, qual_len);
    if (n == 0)
        return too_long(e);
    if (need_seek(e) != 0)
        return -1;
    put_ts(key + n, tmax > INT64_MIN ? tmax - 1 : tmax);
    nw->tmin = tmin;
    nw->found = false;
    nw->bytes = 0;
    return e->ops->seek_read(e, key, n + 8, n, 1, take_newest, nw);
}

int cells_get(engine *e, const char *row, size_t row_len, const char *qual, size_t qual_len,
              int64_t tmin, int64_t tmax, bool *found, uint64_t *bytes, char *value,
              size_t *value_len) {
    newest nw;
    if (read_newest(e, row, row_len, qual, qual_len, tmin, tmax, &nw) != 0)
        return -1;
    *found = nw.found;
    *bytes += nw.bytes;
    if (value != NULL) {
        size_t n = nw.found ? (nw.value_len < *value_len ? nw.value_len : *value_len) : 0;
        memcpy(value, nw.value, n);
        *value_len = n;
    }
    return 0;
}

typedef struct row_walk {
    size_t row_len;
    char prev[CELL_KEY_MAX];     /* the last column seen */
    size_t prev_len;
    uint64_t cells, bytes;
} row_walk;

static bool count_newest(void *ctx, const char *key, size_t key_len, const char *value,
                         size_t value_len) {
    row_walk *w = ctx;
    (void)value;
    if (key_len < w->row_len + 10)
        return true;
    size_t col = key_len - 8;    /* row 0x00 qual 0x00 */
    if (col == w->prev_len && memcmp(key, w->prev, col) == 0)
        return true;             /* an older version */
    if (col <= sizeof w->prev) {
        memcpy(w->prev, key, col);
        w->prev_len = col;
    }
    w->cells++;
    w->bytes += key_len + value_len;
    return true;
}

int cells_scan_row(engine *e, const char *row, size_t row_len, uint64_t *cells, uint64_t *bytes) {
    char key[CELL_KEY_MAX];
    if (row_len + 1 > CELL_KEY_MAX)
        return too_long(e);
    if (need_seek(e) != 0)
        return -1;
    memcpy(key, row, row_len);
    key[row_len] = '\0';
    row_walk w = {.row_len = row_len};
    if (e->ops->seek_read(e, key, row_len + 1, row_len + 1, 0, count_newest, &w) != 0)
        return -1;
    *cells = w.cells;
    *bytes = w.bytes;
    return 0;
}

int cells_check_and_put(engine *e, const char *row, size_t row_len, const char *qual,
                        size_t qual_len, const char *expected, size_t expected_len, int64_t ts,
                        const char *value, size_t value_len, bool *applied) {
    newest nw;
    if (read_newest(e, row, row_len, qual, qual_len, INT64_MIN, INT64_MAX, &nw) != 0)
        return -1;
    *applied = expected == NULL ? !nw.found
                                : nw.found && nw.value_len == expected_len &&
                                      memcmp(nw.value, expected, expected_len) == 0;
    if (!*applied)
        return 0;
    return cells_put(e, row, row_len, qual, qual_len, ts, value, value_len);
}
