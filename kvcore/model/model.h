/**
 * @file model.h
 * The reference model as a backend of the api (backend.c): the table of
 * methods that kvcore/api/registry.c lists for "model:" locations.
 */
#ifndef KV_MODEL_H
#define KV_MODEL_H

#include "hbase/backend.h"

extern const kv_backend_ops kv_model_backend;

#endif
