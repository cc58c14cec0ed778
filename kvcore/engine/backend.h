/**
 * @file backend.h
 * The local LSM engine as a backend of the api (backend.c): the table of
 * methods that kvcore/api/registry.c lists for directory paths.
 */
#ifndef KV_ENGINE_BACKEND_H
#define KV_ENGINE_BACKEND_H

#include "hbase/backend.h"

extern const kv_backend_ops kv_engine_backend;

#endif
