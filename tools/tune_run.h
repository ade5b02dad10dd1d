/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's parts inside the command (tools/cmd_tune.c runs them): the candidates'
 * compiling threads (tune_build.c) and the timing of each on the device (tune_bench.c). The
 * plan and the reports, which need no GPU, are in the library (cli/tune.h). */
#ifndef MERGEJIT_TOOLS_TUNE_RUN_H
#define MERGEJIT_TOOLS_TUNE_RUN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "mergejit.h"
#include "tune.h"
#include "tune_check.h"

/* What to sweep and how, from the command line. */
typedef struct tune_opts {
    tune_config configs[4 * 8 * 8];
    int config_count;
    int nts[8], nt_count;
    int log2_sizes[TUNE_MAX_SIZES], size_count;
    long reps, seglen;
    int quick, save, threads, device;
    const char *output, *json, *plot;
} tune_opts;

/* ---------------------------------------------------------------- building (tune_build.c) */

enum { BUILD_WAITING, BUILD_RUNNING, BUILD_DONE };

/* The points and their build states, shared by the builders, the measuring loop and the
 * checks' verdicts under lock; done is signalled whenever a point's build ends or a verdict
 * comes. Builders take points in the order of tune_schedule, and the measuring loop measures
 * them in that order too, but for points whose lane waits on a build. */
typedef struct tuner {
    tune_opts *o;
    tune_point *points;
    size_t count;
    size_t *order;  /* tune_schedule's order */
    int *build;     /* BUILD_* per point */
    size_t next;    /* the place in order of the next point a builder takes */
    size_t built, built_late; /* builds run; of them, those whose point was ruled out first */
    size_t programs;          /* NVRTC programs the builds compiled (not from the cache) */
    tune_point *timed; /* measured points waiting for their check's verdict */
    size_t measured;   /* points measured and checked */
    int building;      /* builders inside a build */
    int stopped;       /* the sweep is over: a build that ends now is for a point ruled out,
                          and its builder touches nothing here but building */
    pthread_mutex_t lock;
    pthread_cond_t done;
    int sm;
    const char *cache_dir;
} tuner;

/* The configuration of point p, in *c; returns c. */
const tune_config *tune_config_of(const tune_point *p, tune_config *c);
/* The description the tuner builds for a configuration: u32, u64, or a struct of two u64 as
 * the key; p's tile when p is not NULL. */
void tune_key_desc(const tune_config *c, const tune_point *p, mj_sort_desc *d);
/* Marks point i rejected with the first line of msg, and skips what it implies (under the
 * lock). */
void tune_reject(tuner *t, size_t i, tune_outcome why, const char *msg);
/* A compiling thread's body (pthread_create with the tuner): builds the pending points in
 * the tuner's order until none is left. */
void *tune_builder(void *arg);

/* ---------------------------------------------------------------- inputs (tune_inputs.c) */

/* One size of a configuration's input, generated on the host. */
typedef struct tune_host_input {
    size_t n, seglen;
    unsigned char *keys;  /* n keys */
    uint64_t sum;         /* tune_key_sum of the keys */
    void *offsets;        /* lbs, expand, move: the objects' offsets; remove, insert: 4-byte
                             indices; segsort: 4-byte segment offsets */
    size_t offset_count, offset_bytes; /* join: offset_count is the inner join's rows */
    unsigned char *values; /* expand: each object's value, move and reduce by key: each
                              element's */
    size_t value_bytes;
    unsigned char *mirror; /* move: where each interval is gathered from and scattered to */
} tune_host_input;

/* One input size on the device. */
typedef struct tune_inputs {
    size_t n, seglen;            /* seglen: segsort's segment length */
    void *src_keys, *src_values; /* the input as generated; sorts copy it into keys first */
    void *keys, *values;         /* the sorted (merged) result; join: a's rows, then b's */
    void *offsets;               /* segsort, segreduce: CSR offsets (uint32); lbs, expand, move:
                                    offsets; setops, reducebykey, select, join: the output count */
    void *gather, *scatter;      /* move: each interval's source and destination */
    size_t offset_count;
    uint64_t sum;                /* tune_key_sum of the input */
    /* The input as generated, kept on the host for the checks (the checked size only). */
    void *host_keys, *host_offsets, *host_values;
} tune_inputs;

/* ---------------------------------------------------------------- timing (tune_bench.c) */

/* Where the measuring thread's time went, in seconds. */
typedef struct tune_spent {
    double inputs;   /* generating and uploading each configuration's inputs */
    double create;   /* creating sorters (their kernels from the disk cache) */
    double timing;   /* the timed runs and the copies that restore their input, wall time */
    double gpu;      /* of that, the runs themselves as the GPU's events measured them */
    double readback; /* reading outputs back for the checks */
} tune_spent;

/* The measuring side: a context on the device, the inputs of the current configuration (and
 * the next one's being generated on a thread), a temporary buffer grown as candidates need,
 * and the checker that checks the outputs. */
typedef struct tune_bench {
    mj_context *ctx;
    tune_opts *o;
    tune_config current;        /* the configuration the inputs are for */
    int have_inputs;
    tune_inputs in[TUNE_MAX_SIZES];
    pthread_t preparer;         /* generating next_in for `next`, while preparing */
    int preparing;
    tune_config next;
    tune_host_input next_in[TUNE_MAX_SIZES];
    mj_status next_status;
    void *temp;
    size_t temp_bytes;
    float *times;
    tune_checker *checker;
    tune_spent spent;
} tune_bench;

/* Makes the inputs of configuration c current: generated (or taken from the thread that
 * prepared them) and uploaded when c is not the current one, after the checks of the old
 * ones have had their verdicts. Then, when next is not NULL, starts generating next's on a
 * thread. (tune_inputs.c) */
mj_status tune_use_config(tune_bench *b, const tune_config *c, const tune_config *next);
/* Frees the inputs on the device and the host, after waiting for the preparing thread.
 * (tune_inputs.c) */
void tune_inputs_release(tune_bench *b);
/* Times point p (index `point`) on every size and fills its gkeys and score; the first run's
 * output is read back and, once the timings are in p, its check queued on b->checker, whose
 * verdict decides (so p must stay where it is until then). NULL on success, else why it
 * failed, in why (p's outcome is then set by the caller, and no check is queued). */
const char *tune_measure(tune_bench *b, const tune_config *c, size_t point, tune_point *p,
                         char *why, size_t cap);
/* Mergesort's 4-way threshold for a configuration: its winning tile timed with 2-way passes
 * only and with 4-way ones at inputs of 2^TUNE_CROSS_FIRST to 2^TUNE_CROSS_LAST bytes (those
 * the configuration's inputs hold, prefixes of them), and the size from which 4-way passes
 * won (tune_merge4_threshold; 0: no crossing measured). */
#define TUNE_CROSS_FIRST 20
#define TUNE_CROSS_LAST 28
#define TUNE_CROSS_SIZES (TUNE_CROSS_LAST - TUNE_CROSS_FIRST + 1)
typedef struct tune_crossing {
    int count; /* sizes measured */
    int log2[TUNE_CROSS_SIZES];
    double gkeys2[TUNE_CROSS_SIZES], gkeys4[TUNE_CROSS_SIZES];
    int merge4_log2;
} tune_crossing;
/* Times winner's sorts for c into x on c's inputs, which must be current (b->current; the
 * largest size's output that the checked input holds is checked, both ways). NULL, or why it
 * failed (in why). */
const char *tune_crossover(tune_bench *b, const tune_config *c, const tune_point *winner,
                           tune_crossing *x, char *why, size_t cap);
/* Waits for the queued checks, then releases the inputs (tune_inputs_release) and the
 * temporary buffer. */
void tune_bench_free(tune_bench *b);

#endif
