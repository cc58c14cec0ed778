/**
 * @file registry.h
 * Which backend serves a store location (registry.c).
 */
#ifndef KV_API_REGISTRY_H
#define KV_API_REGISTRY_H

#include "hbase/backend.h"

/* The backend for location: directory paths are the local engine's,
   "model:..." the model's, "bigtable://..." Cloud Bigtable's. NULL with a
   message in err when no backend of this build serves it
   (KV_NOT_SUPPORTED). */
const kv_backend_ops *kv_backend_for(const char *location, char *err, size_t errlen);

#endif
