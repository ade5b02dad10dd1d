/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel cache under contention (store/cache.h): processes and threads storing one key
 * while another reads it see a miss or one whole payload, never a mix, and leave one entry and
 * no temporary file. CPU only. */
#include <check.h>

#include "cache_support.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- concurrency */

#define ROUNDS 200
#define N_THREADS 8
#define N_PAYLOADS N_THREADS

struct shared {
    const char *dir;
    uint8_t key[32];
    uint8_t *payload[N_PAYLOADS];
    size_t size[N_PAYLOADS];
};

static void shared_init(struct shared *s, const char *dir)
{
    s->dir = dir;
    key_of(s->key, "contended");
    for (int i = 0; i < N_PAYLOADS; i++) {
        s->size[i] = 3000 + 1777 * (size_t)i; /* distinct sizes and bytes per writer */
        s->payload[i] = make_payload(s->size[i], 100 + (unsigned)i);
    }
}

static void shared_free(struct shared *s)
{
    for (int i = 0; i < N_PAYLOADS; i++)
        free(s->payload[i]);
}

/* One load; returns 0 for a miss or a hit on one of the payloads, -1 otherwise. */
static int load_one(const struct shared *s, int *hit)
{
    void *data = NULL;
    size_t size = 0;
    char err[512];
    mj_cache_result r = mj__cache_load(s->dir, s->key, &data, &size, NULL, err, sizeof err);
    if (r == MJ_CACHE_MISS)
        return 0;
    if (r != MJ_CACHE_HIT) {
        fprintf(stderr, "concurrent load gave %d: %s\n", (int)r, err);
        return -1;
    }
    int ok = 0;
    for (int i = 0; i < N_PAYLOADS; i++)
        ok |= size == s->size[i] && memcmp(data, s->payload[i], size) == 0;
    free(data);
    *hit += ok;
    return ok ? 0 : -1;
}

static int store_rounds(const struct shared *s, int which)
{
    char err[512];
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = s->size[which];
        if (mj__cache_store(s->dir, s->key, s->payload[which], n, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "concurrent store failed: %s\n", err);
            return -1;
        }
    }
    return 0;
}

static void assert_one_entry(const struct shared *s)
{
    int all, temps;
    count_names(s->dir, &all, &temps);
    ck_assert_int_eq(temps, 0);
    ck_assert_int_eq(all, 1);
    char path[PATH_MAX + 80];
    entry_file(path, sizeof path, s->dir, s->key);
    ck_assert(path_exists(path));
    int hits = 0;
    ck_assert_int_eq(load_one(s, &hits), 0);
    ck_assert_int_eq(hits, 1);
}

START_TEST(concurrent_processes)
{
    char dir[PATH_MAX];
    make_tmpdir(dir, sizeof dir);
    struct shared s;
    shared_init(&s, dir);
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        ck_assert_int_ge(pid[i], 0);
        if (pid[i] == 0)
            _exit(store_rounds(&s, i) == 0 ? 0 : 1);
    }
    /* Read while both writers run. */
    int running = 2, bad = 0, hits = 0, loads = 0;
    while (running > 0) {
        bad += load_one(&s, &hits) != 0;
        loads++;
        for (int i = 0; i < 2; i++) {
            int status;
            if (pid[i] > 0 && waitpid(pid[i], &status, WNOHANG) == pid[i]) {
                ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                              "writer process %d failed", i);
                pid[i] = 0;
                running--;
            }
        }
    }
    ck_assert_int_eq(bad, 0);
    ck_assert_int_gt(loads, 0);
    assert_one_entry(&s);
    shared_free(&s);
}
END_TEST

struct writer {
    const struct shared *s;
    int which;
    int rc;
};

static atomic_int g_writers_left;

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    w->rc = store_rounds(w->s, w->which);
    atomic_fetch_sub(&g_writers_left, 1);
    return NULL;
}

struct reader {
    const struct shared *s;
    int bad, hits, loads;
};

static void *reader_main(void *arg)
{
    struct reader *r = arg;
    do {
        r->bad += load_one(r->s, &r->hits) != 0;
        r->loads++;
    } while (atomic_load(&g_writers_left) > 0);
    return NULL;
}

START_TEST(concurrent_threads)
{
    char dir[PATH_MAX];
    make_tmpdir(dir, sizeof dir);
    struct shared s;
    shared_init(&s, dir);
    atomic_store(&g_writers_left, N_THREADS);
    struct writer w[N_THREADS];
    pthread_t wt[N_THREADS], rt;
    struct reader r = {&s, 0, 0, 0};
    ck_assert_int_eq(pthread_create(&rt, NULL, reader_main, &r), 0);
    for (int i = 0; i < N_THREADS; i++) {
        w[i] = (struct writer){&s, i, -1};
        ck_assert_int_eq(pthread_create(&wt[i], NULL, writer_main, &w[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        ck_assert_int_eq(pthread_join(wt[i], NULL), 0);
        ck_assert_msg(w[i].rc == 0, "writer thread %d failed", i);
    }
    ck_assert_int_eq(pthread_join(rt, NULL), 0);
    ck_assert_int_eq(r.bad, 0);
    ck_assert_int_gt(r.loads, 0);
    assert_one_entry(&s);
    shared_free(&s);
}
END_TEST

static Suite *cache_concurrency_suite(void)
{
    Suite *s = suite_create("cache_concurrency");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, concurrent_processes);
    tcase_add_test(tc, concurrent_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_cache_suite(cache_concurrency_suite());
}
