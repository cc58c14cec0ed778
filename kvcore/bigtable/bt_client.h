/**
 * @file bt_client.h
 * A client of one Cloud Bigtable instance: the handle that owns the data
 * and admin channels, and the admin and single-row data calls. Batched
 * writes are in bt_write.h, streaming reads in bt_read.h. This is the
 * internal API that the backend (backend.c and its modules) calls; it
 * speaks Bigtable table ids and bt_map's storage-neutral operations, never
 * kvcore types.
 *
 * Endpoints: with BIGTABLE_EMULATOR_HOST (or options.emulator_host) set,
 * both channels go in plaintext to that address, as Google's clients do;
 * otherwise TLS with Application Default Credentials to
 * bigtable.googleapis.com:443 and bigtableadmin.googleapis.com:443.
 *
 * Retries: calls that are idempotent (admin reads, MutateRow with explicit
 * timestamps, deletes, table deletes) are retried on UNAVAILABLE,
 * DEADLINE_EXCEEDED and ABORTED with exponential backoff, up to
 * max_attempts. ReadModifyWrite (increment, append) and CheckAndMutate are
 * never retried: a lost reply leaves their outcome unknown, and the caller
 * gets BT_UNAVAILABLE or BT_DEADLINE saying so.
 *
 * Thread safety: a bt_client may be used from any number of threads at
 * once; it is immutable after bt_client_open.
 */
#ifndef CELLFS_BT_CLIENT_H
#define CELLFS_BT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_map.h"
#include "bt_row.h"
#include "bt_status.h"
#include "bt_transport.h"

#define BT_DATA_ENDPOINT "bigtable.googleapis.com:443"
#define BT_ADMIN_ENDPOINT "bigtableadmin.googleapis.com:443"

typedef struct bt_client_options {
    const char *project;          /* required */
    const char *instance;         /* required */
    const char *emulator_host;    /* NULL: $BIGTABLE_EMULATOR_HOST; "" forces real endpoints */
    const char *data_endpoint;    /* NULL: BT_DATA_ENDPOINT */
    const char *admin_endpoint;   /* NULL: BT_ADMIN_ENDPOINT */
    int64_t timeout_ms;           /* deadline of one unary call; 0: 30000 */
    int64_t stream_timeout_ms;    /* deadline of one ReadRows/MutateRows stream; 0: 300000 */
    int max_attempts;             /* tries of idempotent calls; 0: 5 */
    int64_t backoff_ms;           /* first retry delay, doubled each time; 0: 20 */
} bt_client_options;

#define BT_CLIENT_OPTIONS_INIT { .project = NULL }

typedef struct bt_client bt_client;

/**
 * Opens a client of projects/@p opts->project/instances/@p opts->instance.
 * Makes no call: a wrong address or instance shows on the first call.
 * Returns NULL with @p st set (BT_INVALID for a missing or malformed
 * project or instance, BT_ERROR for missing credentials).
 */
bt_client *bt_client_open(const bt_client_options *opts, bt_status *st);

/** Closes @p c (NULL is a no-op). No call may be in progress. */
void bt_client_close(bt_client *c);

/** "projects/P/instances/I". */
const char *bt_client_instance(const bt_client *c);

/** True when the client talks to an emulator (plaintext). */
bool bt_client_is_emulator(const bt_client *c);

/** Writes "projects/P/instances/I/tables/ID" into @p out. */
bt_code bt_client_table_name(const bt_client *c, const char *table_id, char *out, size_t cap,
                             bt_status *st);

/* ---- what bt_write.c and bt_read.c share with this file ---- */

/** The data channel and the retry settings. */
bt_channel *bt_client_data(const bt_client *c);
const bt_client_options *bt_client_opts(const bt_client *c);
/** Sleeps before try @p attempt (1 = the first retry). */
void bt_client_backoff(const bt_client *c, int attempt);

/* ---- admin ---- */

/** Creates table @p table_id with @p n families (GC rules from bt_map).
 *  Errors: BT_ALREADY_EXISTS, BT_INVALID, BT_UNSUPPORTED (attributes that
 *  cannot be expressed), transport failures. */
bt_code bt_create_table(bt_client *c, const char *table_id, const bt_family_rules *families,
                        size_t n, bt_status *st);

/** A table's families as bt_get_table returns them. */
typedef struct bt_schema {
    bt_family_rules *families;    /* names owned by the schema */
    size_t nfamilies;
} bt_schema;

/** Frees what @p s holds (not @p s). */
void bt_schema_clear(bt_schema *s);

/** Reads the families of @p table_id, sorted by name. BT_NOT_FOUND when
 *  the table does not exist; BT_UNSUPPORTED when a family's GC rule has
 *  no HBase equivalent (the schema is still filled in, that family with
 *  max_versions and ttl_seconds 0). */
bt_code bt_get_table(bt_client *c, const char *table_id, bt_schema *out, bt_status *st);

/** Lists the instance's table ids (all pages), sorted; free each and the
 *  array with free(). */
bt_code bt_list_tables(bt_client *c, char ***ids, size_t *n, bt_status *st);

/** Deletes @p table_id and its data. BT_NOT_FOUND when absent. */
bt_code bt_delete_table(bt_client *c, const char *table_id, bt_status *st);

typedef enum bt_family_change_kind { BT_FAMILY_CREATE, BT_FAMILY_UPDATE, BT_FAMILY_DROP } bt_family_change_kind;

typedef struct bt_family_change {
    bt_family_change_kind kind;
    bt_family_rules rules;        /* name always; the rest for create/update */
} bt_family_change;

/** Applies @p n family changes atomically (one ModifyColumnFamilies). */
bt_code bt_modify_families(bt_client *c, const char *table_id, const bt_family_change *changes,
                           size_t n, bt_status *st);

/** Deletes every row starting with @p prefix, or every row of the table
 *  when @p prefix is NULL (HBase's truncate). */
bt_code bt_drop_rows(bt_client *c, const char *table_id, const void *prefix, size_t prefix_len,
                     bt_status *st);

/* ---- single-row data calls ---- */

/** Applies one row's mutation atomically (MutateRow); retried, since
 *  every timestamp is explicit (@p now_ms stamps puts without one). */
bt_code bt_mutate_row(bt_client *c, const char *table_id, const void *row, size_t row_len,
                      const bt_hop *ops, size_t n, int64_t now_ms, bt_status *st);

/** Adds @p delta to an 8-byte big-endian counter; *@p result receives the
 *  new value. BT_INVALID when the current value is not 8 bytes. Never
 *  retried. */
bt_code bt_increment(bt_client *c, const char *table_id, const void *row, size_t row_len,
                     const char *family, const void *qualifier, size_t qualifier_len,
                     int64_t delta, int64_t *result, bt_status *st);

/** Appends @p data to a cell; *@p result receives the new value (malloc'd,
 *  free() it; may be NULL to ignore). Never retried. */
bt_code bt_append(bt_client *c, const char *table_id, const void *row, size_t row_len,
                  const char *family, const void *qualifier, size_t qualifier_len,
                  const void *data, size_t data_len, void **result, size_t *result_len,
                  bt_status *st);

/** Check-and-mutate (see bt_map_check_and_mutate); *@p applied tells
 *  whether @p ops were applied. Never retried. */
bt_code bt_check_and_mutate(bt_client *c, const char *table_id, const void *row,
                            size_t row_len, const bt_check *check, const bt_hop *ops, size_t n,
                            int64_t now_ms, bool *applied, bt_status *st);

/** Applies @p ops to the row unless one of @p places holds a cell newer
 *  than its bound (bt_map_mutate_unless_newer); *@p applied says which.
 *  Never retried: a lost reply leaves the outcome unknown. */
bt_code bt_mutate_row_unless_newer(bt_client *c, const char *table_id, const void *row,
                                   size_t row_len, const bt_newer *places, size_t np,
                                   const bt_hop *ops, size_t n, int64_t now_ms, bool *applied,
                                   bt_status *st);

/** A sample of row keys that split the table into pieces of about equal
 *  size (for parallel scans); free each key and the arrays with free(). */
bt_code bt_sample_row_keys(bt_client *c, const char *table_id, uint8_t ***keys,
                           size_t **key_lens, int64_t **offsets, size_t *n, bt_status *st);

#endif
