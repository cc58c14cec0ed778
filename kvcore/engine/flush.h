/**
 * @file flush.h
 * Memstore switch and flush (flush.c), and the flush thread.
 */
#ifndef KV_ENGINE_FLUSH_H
#define KV_ENGINE_FLUSH_H

#include "engine_i.h"
#include "wal.h"

/* Creates log file @p number, durably named in the directory. */
kv_status kv_open_new_log(kv_engine *s, uint64_t number, kv_wal_writer **out);
/* Opens a new log and moves every non-empty memstore to imm, for the
   flush thread (mu held on entry and on return, by the write leader). mu
   is released while the new log is created and its directory entry
   synced, so that readers and the background threads do not wait for
   that I/O; only the write leader switches logs and memstores, so nothing
   this call reads or changes moves meanwhile. */
kv_status kv_switch_memstores(kv_engine *s);
/* Starts / stops the flush thread (stop: a no-op if not started). */
kv_status kv_flush_start(kv_engine *s);
void kv_flush_stop(kv_engine *s);

#endif
