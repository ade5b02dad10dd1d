/* SPDX-License-Identifier: Apache-2.0 */
/* The autotuner's pieces that need no GPU: the candidate plan (tune_plan.c), the measured
 * points and their reports (tune_report.c, tune_svg.c). The command and its device side are
 * tools/cmd_tune.c and tools/tune_run.h. Uses the public API only. */
#ifndef MERGEJIT_TOOLS_TUNE_H
#define MERGEJIT_TOOLS_TUNE_H

#include <stddef.h>
#include <stdio.h>

#include "mergejit.h"

#define TUNE_MAX_SIZES 4

/* What happened to one candidate tile. */
typedef enum tune_outcome {
    TUNE_PENDING = 0,   /* not built or measured yet */
    TUNE_MEASURED,      /* built, ran, output checked, timed: gkeys filled */
    TUNE_SPILLS,        /* ptxas reported spill stores or loads: rejected before timing */
    TUNE_INVALID,       /* the shape is not valid for the primitive (mj_tile_check's reason) */
    TUNE_BUILD_FAILED,  /* NVRTC or the loader refused it */
    TUNE_RUN_FAILED,    /* it did not launch or produced a wrong result */
    TUNE_SKIPPED        /* not tried: a smaller VT of the same NT already spilled or failed */
} tune_outcome;

/* "measured", "spills", "invalid", "build-failed", "run-failed", "skipped", "pending". */
const char *tune_outcome_name(tune_outcome o);

/* One candidate: a (primitive, key size, value size) configuration and a tile. */
typedef struct tune_point {
    mj_primitive primitive;
    size_t key_size, value_size;
    int nt, vt, bs_nt;
    int is_default;          /* the built-in default shape for this configuration */
    tune_outcome outcome;
    int registers;           /* ptxas's largest register count; -1 unknown */
    long spill_bytes;        /* ptxas's spill bytes; -1 unknown */
    double gkeys[TUNE_MAX_SIZES]; /* throughput per input size, Gkeys/s (0: not measured) */
    double score;            /* geometric mean of gkeys over the sizes (0: not measured) */
    char note[160];          /* why it was rejected, for people */
} tune_point;

/* One configuration the tuner sweeps. */
typedef struct tune_config {
    mj_primitive primitive;
    size_t key_size, value_size;
} tune_config;

/* The candidate tiles of one configuration, in the order they are built and measured: for
 * each NT in nts (ascending), odd VT from 1 up while mj_tile_check accepts the shape (a quick
 * plan: only the odd VT within 4 of the default's), the blocksort at twice NT where that
 * shape is accepted, else at NT. The default tile `def` is marked, and appended when the
 * sweep does not contain it. Writes at most cap points to out (when out is not NULL) and
 * returns how many the plan has. */
size_t tune_plan(const tune_config *cfg, const int *nts, int nt_count, int quick,
                 const mj_tile *def, tune_point *out, size_t cap);

/* After points[i] was rejected (spills, build or run failure): marks the later points of the
 * same configuration and NT with a larger VT skipped, since they need at least as many
 * registers and as much shared memory. The default point is never skipped. Returns how many
 * it marked. */
size_t tune_skip_after(tune_point *points, size_t count, size_t i);

/* The order in which the tuner builds and measures the points (indices into points, written
 * to order): configurations as planned, and within one, the lanes (points of one NT, in plan
 * order) taken in turn, the first point of each lane, then the second of each, and so on. A
 * spill found at some VT then rules out the rest of its lane while only the few points of that
 * lane already started are compiling, not a lane's whole tail; and the lanes' cheap small
 * tiles come first. A point still comes after every point of its lane planned before it, as
 * tune_skip_after needs. */
void tune_schedule(const tune_point *points, size_t count, size_t *order);

/* Mergesort's 4-way threshold (mj_tile.merge4_log2) from its winner's timings with 2-way
 * passes only (g2) and with 4-way passes (g4, Gkeys/s) at inputs of 2^log2[i] bytes of keys and
 * values, ascending: the least size from which 4-way passes were faster there and at every
 * larger size measured; 0 when they were not faster at the largest (no crossing measured: the
 * built-in rule stays) or nothing was measured. */
int tune_merge4_threshold(const int *log2, const double *g2, const double *g4, int count);

/* The facts of one tuning run, for the reports. */
typedef struct tune_run_info {
    const char *device;      /* device name */
    int sm;
    int size_count;
    int log2_sizes[TUNE_MAX_SIZES]; /* input sizes as powers of two, e.g. 24 and 26 */
    int reps;                /* timed runs per point (median taken) */
    int quick;               /* 1 for a --quick sweep */
    const char *version;     /* mj_version() */
} tune_run_info;

/* Writes every point as JSON: {"device":..., "sm":..., "sizes":[...], "reps":...,
 * "points":[{"primitive":"mergesort","key_size":4,"value_size":0,"nt":256,"vt":23,
 * "bs_nt":512,"default":true,"outcome":"measured","registers":40,"spill_bytes":0,
 * "gkeys":[20.1,21.3],"score":20.7,"note":""}, ...]}. Returns 0, or -1 after printing why. */
int tune_write_json(const char *path, const tune_run_info *info, const tune_point *points,
                    size_t count);

/* Draws the sweep as one SVG: a panel per configuration (primitive, key size, value size),
 * throughput (score) against VT, one line per NT, the default shape and the winner marked.
 * Returns 0, or -1 after printing why. */
int tune_write_svg(const char *path, const tune_run_info *info, const tune_point *points,
                   size_t count);

/* A progress line on `f` when it is a terminal: "[#####     ] 41/120 points, ETA 3m05s  what",
 * redrawn in place; on other streams nothing. done == total ends the line. */
void tune_progress(FILE *f, size_t done, size_t total, double elapsed_s, const char *what);

#endif
