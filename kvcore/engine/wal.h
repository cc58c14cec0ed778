/**
 * @file wal.h
 * The write-ahead log: a file of checksummed records, each the payload of
 * one batch of row mutations (the payload's layout belongs to the store;
 * this module only frames it). Format: doc/log_format.md.
 * The writer is used by one thread at a time (the store's write leader);
 * the reader by recovery.
 */
#ifndef KV_WAL_H
#define KV_WAL_H

#include "util/env.h"

typedef struct kv_wal_writer kv_wal_writer;
typedef struct kv_wal_reader kv_wal_reader;

/* Creates (truncating) the log file at path. */
kv_status kv_wal_writer_open(kv_wal_writer **out, kv_env *env, const char *path, char *err, size_t errlen);
/* Appends one record (len may be 0..2^32-1 bytes) with a single append
   call to the env, so a record is either whole in the file or a torn tail. */
kv_status kv_wal_append(kv_wal_writer *w, const void *data, size_t len, char *err, size_t errlen);
kv_status kv_wal_sync(kv_wal_writer *w, char *err, size_t errlen);
/* Bytes written so far; may be called while another thread appends. */
uint64_t kv_wal_size(const kv_wal_writer *w);
/* Whether an append failed (the log then takes no more records). */
bool kv_wal_failed(const kv_wal_writer *w);
/* Closes (without sync); NULL is a no-op. */
kv_status kv_wal_writer_close(kv_wal_writer *w, char *err, size_t errlen);

kv_status kv_wal_reader_open(kv_wal_reader **out, kv_env *env, const char *path, char *err, size_t errlen);
/* Reads the next record: KV_OK with *data (valid until the next call) and
   *len; KV_END at the end of the log (and at every later call).
   A KV_CORRUPT is returned again by every later call. A torn record at the tail (the
   process died mid-append: short header or short payload at end of file)
   is the end of the log, not an error. A bad checksum or impossible length
   that is followed by more data is KV_CORRUPT, with err naming the file and
   offset. */
kv_status kv_wal_read(kv_wal_reader *r, const uint8_t **data, size_t *len, char *err, size_t errlen);
/* Offset just after the last good record (for truncating a torn tail). */
uint64_t kv_wal_reader_offset(const kv_wal_reader *r);
/* After KV_END: the bytes after the last good record that were read as a
   torn tail and dropped (0 for a clean end, and for a log whose header was
   torn: it never held a record). */
uint64_t kv_wal_reader_dropped(const kv_wal_reader *r);
void kv_wal_reader_close(kv_wal_reader *r);

#endif
