/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's checking threads: outputs queued in slots, checked on threads of their own,
 * their verdicts handed back in the order they were queued (so that a failed check rejects a
 * point before any later point's verdict is taken, as when the checks ran in line). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "tune_check.h"

enum { SLOT_FREE, SLOT_TAKEN, SLOT_QUEUED, SLOT_CHECKING, SLOT_CHECKED };

struct tune_check_slot {
    int state;            /* SLOT_* */
    unsigned long seq;    /* queue order, while queued or later */
    unsigned char *buf;
    size_t cap;
    size_t point;
    tune_config config;
    tune_check_data data;
    const char *bad;      /* the verdict, once checked */
};

struct tune_checker {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* any slot's state, or stopping */
    pthread_t *threads;
    int nthreads, nslots;
    tune_check_slot *slots;
    unsigned long queued;   /* checks queued so far; the next one's seq */
    unsigned long handed;   /* verdicts handed back so far; the seq of the next */
    int handing;            /* a thread is in the verdict function */
    int stopping;
    tune_verdict_fn verdict;
    void *arg;
    double checking_s, waited_s;
};

double tune_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The slot in `state` with the lowest seq, or NULL (under the lock). */
static tune_check_slot *first_in(tune_checker *k, int state)
{
    tune_check_slot *best = NULL;
    for (int i = 0; i < k->nslots; i++) {
        tune_check_slot *s = &k->slots[i];
        if (s->state == state && (!best || s->seq < best->seq))
            best = s;
    }
    return best;
}

/* Hands back the verdicts that are next in queue order, one thread at a time, outside the
 * lock (the verdict function takes the caller's own locks). Under the lock. */
static void hand_back(tune_checker *k)
{
    while (!k->handing) {
        tune_check_slot *s = first_in(k, SLOT_CHECKED);
        if (!s || s->seq != k->handed)
            return;
        k->handing = 1;
        pthread_mutex_unlock(&k->lock);
        k->verdict(k->arg, s->point, s->bad);
        pthread_mutex_lock(&k->lock);
        k->handing = 0;
        k->handed++;
        s->state = SLOT_FREE;
        pthread_cond_broadcast(&k->changed);
    }
}

static void *checking_thread(void *arg)
{
    tune_checker *k = arg;
    pthread_mutex_lock(&k->lock);
    for (;;) {
        tune_check_slot *s = first_in(k, SLOT_QUEUED);
        if (!s) {
            if (k->stopping)
                break;
            pthread_cond_wait(&k->changed, &k->lock);
            continue;
        }
        s->state = SLOT_CHECKING;
        pthread_mutex_unlock(&k->lock);
        double t0 = tune_now_s();
        const char *bad = tune_check(&s->config, &s->data);
        double spent = tune_now_s() - t0;
        pthread_mutex_lock(&k->lock);
        k->checking_s += spent;
        s->bad = bad;
        s->state = SLOT_CHECKED;
        hand_back(k);
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

tune_checker *tune_checker_start(int threads, int slots, tune_verdict_fn verdict, void *arg)
{
    if (threads < 1 || slots < 1 || !verdict)
        return NULL;
    tune_checker *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->threads = calloc((size_t)threads, sizeof *k->threads);
    k->slots = calloc((size_t)slots, sizeof *k->slots);
    k->nslots = slots;
    k->verdict = verdict;
    k->arg = arg;
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->changed, NULL);
    while (k->threads && k->slots && k->nthreads < threads &&
           pthread_create(&k->threads[k->nthreads], NULL, checking_thread, k) == 0)
        k->nthreads++;
    if (k->nthreads < threads) {
        tune_checker_stop(k);
        return NULL;
    }
    return k;
}

tune_check_slot *tune_checker_take(tune_checker *k, size_t bytes, void **buffer)
{
    double t0 = tune_now_s();
    pthread_mutex_lock(&k->lock);
    tune_check_slot *s;
    while (!(s = first_in(k, SLOT_FREE)))
        pthread_cond_wait(&k->changed, &k->lock);
    k->waited_s += tune_now_s() - t0;
    s->state = SLOT_TAKEN;
    pthread_mutex_unlock(&k->lock);
    if (bytes > s->cap) { /* only this thread touches a taken slot */
        unsigned char *grown = realloc(s->buf, bytes);
        if (!grown) {
            tune_checker_give_back(k, s);
            return NULL;
        }
        s->buf = grown;
        s->cap = bytes;
    }
    *buffer = s->buf;
    return s;
}

void tune_checker_submit(tune_checker *k, tune_check_slot *s, size_t point,
                         const tune_config *c, const tune_check_data *d)
{
    pthread_mutex_lock(&k->lock);
    s->point = point;
    s->config = *c;
    s->data = *d;
    s->seq = k->queued++;
    s->state = SLOT_QUEUED;
    pthread_cond_broadcast(&k->changed);
    pthread_mutex_unlock(&k->lock);
}

void tune_checker_give_back(tune_checker *k, tune_check_slot *s)
{
    pthread_mutex_lock(&k->lock);
    s->state = SLOT_FREE;
    pthread_cond_broadcast(&k->changed);
    pthread_mutex_unlock(&k->lock);
}

void tune_checker_drain(tune_checker *k)
{
    double t0 = tune_now_s();
    pthread_mutex_lock(&k->lock);
    while (k->handed != k->queued)
        pthread_cond_wait(&k->changed, &k->lock);
    k->waited_s += tune_now_s() - t0;
    pthread_mutex_unlock(&k->lock);
}

void tune_checker_times(tune_checker *k, double *checking_s, double *waited_s)
{
    pthread_mutex_lock(&k->lock);
    *checking_s = k->checking_s;
    *waited_s = k->waited_s;
    pthread_mutex_unlock(&k->lock);
}

void tune_checker_stop(tune_checker *k)
{
    if (!k)
        return;
    if (k->nthreads > 0)
        tune_checker_drain(k);
    pthread_mutex_lock(&k->lock);
    k->stopping = 1;
    pthread_cond_broadcast(&k->changed);
    pthread_mutex_unlock(&k->lock);
    for (int i = 0; i < k->nthreads; i++)
        pthread_join(k->threads[i], NULL);
    for (int i = 0; k->slots && i < k->nslots; i++)
        free(k->slots[i].buf);
    pthread_cond_destroy(&k->changed);
    pthread_mutex_destroy(&k->lock);
    free(k->slots);
    free(k->threads);
    free(k);
}
