/**
 * @file backend.h
 * Cloud Bigtable as a backend of the api: the table of methods that
 * kvcore/api/registry.c lists for "bigtable://PROJECT/INSTANCE" locations.
 * Where this libkvcore was built without gRPC and protobuf-c, missing.c
 * provides the same table, whose open fails with KV_NOT_SUPPORTED naming
 * the packages the build lacked.
 */
#ifndef KV_BIGTABLE_BACKEND_H
#define KV_BIGTABLE_BACKEND_H

#include "hbase/backend.h"

extern const kv_backend_ops kv_bigtable_backend;

#endif
