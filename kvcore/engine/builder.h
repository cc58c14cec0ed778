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
   Errors: KV_IO, KV_NO_SPACE, KV_CORRUPT (a malformed key or a damaged
   input), KV_NO_MEMORY; a failed file is removed. */
kv_status kv_build_family_file(kv_engine *s, const kv_family_desc *desc, kv_iter *it,
                               kv_match_mode mode, kv_sstfile **out);

#endif
