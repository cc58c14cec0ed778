/**
 * @file testhold.h
 * A hold point for env wrappers in tests: once armed, the next call that
 * reaches test_hold_here waits there until the test releases it (or a
 * deadlock guard of some seconds passes, which the test then reports), so
 * that a test can act while a store's background step is stopped at a
 * known place.
 */
#ifndef CELLFS_TESTHOLD_H
#define CELLFS_TESTHOLD_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

typedef struct test_hold {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool armed, holding, released, timed_out;
} test_hold;

static inline void test_hold_init(test_hold *h) {
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->armed = h->holding = h->released = h->timed_out = false;
}

static inline void test_hold_destroy(test_hold *h) {
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
}

static inline void test_hold_arm(test_hold *h) {
    pthread_mutex_lock(&h->mu);
    h->armed = true;
    pthread_mutex_unlock(&h->mu);
}

/* Called by the wrapped env where it may stop: waits there once after
   test_hold_arm, when stop (the wrapper's test of the call) is true,
   until test_hold_release or guard_s seconds. */
static inline void test_hold_here(test_hold *h, bool stop, int guard_s) {
    pthread_mutex_lock(&h->mu);
    if (h->armed && stop) {
        h->armed = false;
        h->holding = true;
        pthread_cond_broadcast(&h->cv);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += guard_s;
        while (!h->released && !h->timed_out)
            if (pthread_cond_timedwait(&h->cv, &h->mu, &until) != 0) h->timed_out = true;
        h->holding = false;
    }
    pthread_mutex_unlock(&h->mu);
}

/* Waits until a call is held (or the guard let it go). */
static inline void test_hold_wait_holding(test_hold *h) {
    pthread_mutex_lock(&h->mu);
    while (!h->holding && !h->timed_out) pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

/* Lets the held call go on; false when the guard had already let it go
   (the test did not release it in time: a hang, reported). */
static inline bool test_hold_release(test_hold *h) {
    pthread_mutex_lock(&h->mu);
    bool in_time = !h->timed_out;
    h->released = true;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return in_time;
}

#endif
