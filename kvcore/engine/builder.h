/**
 * @file builder.h
 * Building a family's sorted file from an iterator (builder.c), with the
 * retention rules of a flush or compaction applied by the matcher.
 */
#ifndef KV_ENGINE_BUILDER_H
#define KV_ENGINE_BUILDER_H

#include "engine_i.h"
#include "fileset.h"
#include "matcher.h"
#include "table/iter.h"

/* Writes the entries of it that a matcher in @p mode keeps into a new
   sorted file of the family described by desc, and opens it.
   *out is NULL when nothing was kept (no file is left behind).
   @p bloom_keys, when not 0, bounds the distinct bloom keys the output can
   hold (a compaction: the sum over its inputs), so that the filter is
   built in place at that size instead of from every key's hash kept
   until the end (kv_sst_writer_expect_bloom_keys); 0 (a flush) sizes it
   exactly.
   Errors: KV_IO, KV_NO_SPACE, KV_CORRUPT (a malformed key or a damaged
   input), KV_NO_MEMORY; a failed file is removed. */
kv_status kv_build_family_file(kv_engine *s, const kv_family_desc *desc, kv_iter *it,
                               kv_match_mode mode, uint64_t bloom_keys, kv_sstfile **out);

#endif
