/**
 * @file recovery.h
 * Recovery at open (recovery.c): replaying the write-ahead logs that the
 * manifest does not cover into memstores, and, for a writer, making the
 * replayed cells durable in sorted files so that the old logs can go.
 */
#ifndef KV_ENGINE_RECOVERY_H
#define KV_ENGINE_RECOVERY_H

#include "engine_i.h"

/* After the manifest is loaded: sets the last sequence from the files,
   then replays every log at or above log_number, in order, into the
   memstores (reads only; a read-only open stops here). *logs gets every
   log number found (malloc'd, sorted) for kv_recovery_finish.
   Errors: KV_CORRUPT (an undecodable record, a damaged log), KV_IO. */
kv_status kv_recovery_replay(kv_engine *s, uint64_t **logs, size_t *nlogs);
/* A writer's second step, with the background threads running: starts a
   fresh log, writes what was replayed to sorted files (or, when nothing
   was, records the new log in the manifest) and removes the old logs. */
kv_status kv_recovery_finish(kv_engine *s, const uint64_t *logs, size_t nlogs);

/* True if a family of the catalog (s may be NULL: none) lists sorted file
   @p number. */
bool kv_recovery_names_file(const kv_engine *s, uint64_t number);

#endif
