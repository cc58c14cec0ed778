/**
 * @file clock.c
 * kv_clock_read (clock.h): the user's clock or CLOCK_REALTIME.
 */
#include "clock.h"

#include <time.h>

int64_t kv_clock_read(const kv_clock *c) {
    if (c->read) return c->read(c->ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
