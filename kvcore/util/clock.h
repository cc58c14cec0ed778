/**
 * @file clock.h
 * The clock of a store in milliseconds since the epoch: the user's
 * (kv_store_options.clock_ms, so that tests control TTL and implicit
 * timestamps) or the real-time clock. A leaf module.
 */
#ifndef KV_UTIL_CLOCK_H
#define KV_UTIL_CLOCK_H

#include <stdint.h>

typedef struct kv_clock {
    int64_t (*read)(void *ctx);   /* NULL = CLOCK_REALTIME */
    void *ctx;
} kv_clock;

/* The clock's time now; any thread. */
int64_t kv_clock_read(const kv_clock *c);

#endif
