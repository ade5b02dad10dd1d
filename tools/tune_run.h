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

/* The points and their build states, shared by the builders and the measuring loop under
 * lock; done is signalled whenever a point's build ends. */
typedef struct tuner {
    tune_opts *o;
    tune_point *points;
    size_t count;
    int *build;     /* BUILD_* per point */
    size_t next;    /* the next point a builder takes */
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
 * order until none is left. */
void *tune_builder(void *arg);

/* ---------------------------------------------------------------- timing (tune_bench.c) */

/* One input size on the device. */
typedef struct tune_inputs {
    size_t n, seglen;            /* seglen: segsort's segment length */
    void *src_keys, *src_values; /* the input as generated; sorts copy it into keys first */
    void *keys, *values;         /* the sorted (merged) result */
    void *offsets;               /* segsort: CSR offsets (uint32); lbs, expand, move: offsets */
    void *gather, *scatter;      /* move: each interval's source and destination */
    size_t offset_count;
    uint64_t sum;                /* key_sum of the input */
} tune_inputs;

/* The measuring side: a context on the device, the inputs of the current configuration and a
 * temporary buffer grown as candidates need. */
typedef struct tune_bench {
    mj_context *ctx;
    tune_opts *o;
    tune_config current;        /* the configuration the inputs are for */
    int have_inputs;
    tune_inputs in[TUNE_MAX_SIZES];
    void *temp;
    size_t temp_bytes;
    float *times;
} tune_bench;

/* Makes the inputs of configuration c current (generated and uploaded when it changes). */
mj_status tune_use_config(tune_bench *b, const tune_config *c);
/* Times point p on every size and fills its gkeys and score; NULL on success, else why it
 * failed, in why (p's outcome is then set by the caller). */
const char *tune_measure(tune_bench *b, const tune_config *c, tune_point *p, char *why,
                         size_t cap);
/* Releases the inputs and the temporary buffer. */
void tune_bench_free(tune_bench *b);

#endif
