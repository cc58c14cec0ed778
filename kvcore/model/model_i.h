/**
 * @file model_i.h
 * The reference model's data (a backend of the api, reached by the
 * location "model:"): a small in-memory store written straight from HBase's
 * rules (SPEC §1), to compare the local engine with. It shares no code with
 * the engine's matcher, memstore or read path, and stays simple rather
 * than fast: lists of physical entries, searched linearly.
 *
 * Each family keeps physical layers as HBase does, because results depend
 * on them: a "memstore" layer that keeps every write, and "files" made by
 * flushes (at most VERSIONS live versions per column, markers kept) and
 * merged by compactions (they take every file, so they drop markers and
 * what they mask, as HBase's all-files compactions; major ones flush
 * first). A read looks at every layer at once.
 *
 * Thread safety: one mutex (mu) guards the whole model; every method takes
 * it. Scans copy their rows at open, so they need no lock afterwards.
 */
#ifndef KV_MODEL_I_H
#define KV_MODEL_I_H

#include "hbase/backend.h"
#include "hbase/table_attrs.h"
#include "util/clock.h"

#include <pthread.h>

/* One physical cell or delete marker. */
typedef struct m_entry {
    uint8_t *row;
    size_t row_len;
    uint8_t *qual;              /* "" for family markers */
    size_t qual_len;
    int64_t ts;
    kv_cell_type type;
    uint64_t seq;               /* write order: larger is later */
    uint8_t *value;
    size_t value_len;
} m_entry;

/* A layer: the memstore or one file. Entries in no particular order. */
typedef struct m_layer {
    size_t n, cap;
    m_entry *e;
} m_layer;

typedef struct m_family {
    kv_family_desc desc;
    m_layer mem;
    size_t nfiles;
    m_layer *files;             /* flushed and compacted layers */
} m_family;

typedef struct m_table {
    char ns[KV_NAME_MAX + 1];
    char name[KV_NAME_MAX + 1];
    bool enabled;
    size_t nfams;
    m_family *fams;             /* sorted by name */
    kv_tattrs attrs;            /* table attributes */
} m_table;

typedef struct m_namespace {
    char name[KV_NAME_MAX + 1];
    size_t nprops;
    kv_property *props;
} m_namespace;

typedef struct model {
    pthread_mutex_t mu;
    kv_report *report;
    kv_clock clock;
    size_t max_value_size;
    size_t nns;
    m_namespace *ns;
    size_t ntables;
    m_table **tables;
    uint64_t seq;               /* last sequence given to an entry */
    int64_t floor;              /* implicit timestamps never go below */
    uint64_t flushes, compactions;
} model;

/* ---- catalog.c ---- */
m_table *m_find_table(model *m, const char *name);
m_family *m_find_family(m_table *t, const char *name);
/* The table for a read or a write: KV_NOT_FOUND, KV_DISABLED with a
   message, else KV_OK. */
kv_status m_usable_table(model *m, const char *name, m_table **out);
/* The table for a write: as m_usable_table, and KV_READ_ONLY when its
   READONLY attribute is true. */
kv_status m_writable_table(model *m, const char *name, m_table **out);
kv_status m_table_set_attributes(model *m, const char *table, const kv_property *attrs, size_t n);
void m_free_catalog(model *m);
kv_status m_namespace_create(model *m, const char *name);
kv_status m_namespace_drop(model *m, const char *name);
kv_status m_namespace_set_property(model *m, const char *name, const char *key, const char *value);
kv_status m_namespace_list(model *m, char ***names);
kv_status m_namespace_describe(model *m, const char *name, kv_property **props, size_t *count);
kv_status m_table_create(model *m, const char *table, const kv_family_desc *f, size_t n);
kv_status m_table_list(model *m, const char *ns, char ***names);
kv_status m_table_describe(model *m, const char *table, kv_table_desc **out);
kv_status m_table_alter_family(model *m, const char *table, const kv_family_desc *f);
kv_status m_table_delete_family(model *m, const char *table, const char *family);
kv_status m_table_set_enabled(model *m, const char *table, bool enabled);
kv_status m_table_drop(model *m, const char *table);
kv_status m_table_truncate(model *m, const char *table);

/* ---- layers.c: physical layers and the rules shared by reads ---- */
/* Whether a put at ts is older than the family's TTL at now. */
bool m_expired(const kv_family_desc *d, int64_t ts, int64_t now);
/* Whether marker masks put (same row assumed): DeleteFamily <= ts,
   DeleteFamilyVersion == ts, DeleteColumn <= ts and Delete == ts of its
   column; with NEW_VERSION_BEHAVIOR only puts written before it. */
bool m_masks(const kv_family_desc *d, const m_entry *marker, const m_entry *put);
kv_status m_layer_add(m_layer *l, const m_entry *e);   /* copies the bytes */
void m_layer_clear(m_layer *l);
void m_family_clear(m_family *f);
/* Writes every family's memstore as a new file (flush). */
kv_status m_flush_all(model *m, int64_t now);
/* Merges every file of each family of t (NULL: every table) into one,
   dropping markers and what they mask; major first flushes. */
kv_status m_compact(model *m, m_table *t, bool major, int64_t now);

/* ---- visible.c: the read rules ---- */
/* The read options that decide which cells of one family a read sees. */
typedef struct m_read {
    int32_t versions;           /* per column */
    int64_t tmin, tmax;         /* [tmin, tmax) */
    bool raw;
    bool filtered;              /* not raw: the family's VERSIONS are offered
                                   to the filter, which caps at versions */
    size_t nquals;              /* 0: every column */
    const kv_column *quals;     /* the family's selected columns */
    int64_t now;
} m_read;
/* Appends to *out (an array of entries pointing into the layers, grown
   with realloc) the cells of row in family f that the read returns, in
   cell order. */
kv_status m_visible(const m_family *f, const uint8_t *row, size_t row_len, const m_read *r,
                    m_entry **out, size_t *n, size_t *cap);

/* ---- write.c ---- */
int64_t m_now(model *m);
kv_status m_mutate(model *m, const char *table, kv_mutation *const *ms, size_t n,
                   kv_status *statuses);
kv_status m_read_modify_write(model *m, const char *table, const kv_rmw *op, kv_buf *result);
kv_status m_check_and_mutate(model *m, const char *table, const kv_check *check,
                             const kv_mutation *mu, bool *applied);
/* The newest visible version of one cell (default read options). */
kv_status m_newest(model *m, m_table *t, const void *row, size_t row_len, const char *family,
                   const void *q, size_t qlen, const m_entry **out);

/* ---- scan.c ---- */
typedef struct m_scan m_scan;
kv_status m_scan_open(model *m, const char *table, const kv_read_options *ro, m_scan **out);
kv_status m_scan_next(m_scan *sc, const kv_result **row);
void m_scan_close(m_scan *sc);

/* Records a failure message; returns status. */
#define m_fail(m, st, ...) kv_backend_fail((m)->report, (st), __VA_ARGS__)

/* memcmp order of byte strings, shorter first on a common prefix. */
int m_bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
