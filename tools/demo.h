/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo`'s host side (demo_host.c), used by cmd_demo.c: the options, the input it
 * generates, the CPU reference it checks against and the report of a mismatch. */
#ifndef MERGEJIT_TOOLS_DEMO_H
#define MERGEJIT_TOOLS_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "mergejit.h"

typedef struct demo_opts {
    mj_primitive primitive;
    uint64_t seglen;
    mj_key_kind kind;
    uint64_t n;
    size_t value_size;
    mj_order order;
    int device;
    int sm;
    long reps;
    uint64_t seed;
    int gpus; /* --gpus: 0 for the one-GPU demo */
    int json; /* --json */
} demo_opts;

/* The host side of a run: the input, the result read back, the reference permutation and
 * the timings. */
typedef struct demo_host {
    unsigned char *keys_in, *keys_out, *values_in, *values_out;
    uint64_t *perm;
    float *times;
} demo_host;

/* Allocates the host buffers and generates the primitive's input. CLI_OK, or CLI_FAILURE
 * after printing why. */
int demo_make_host(const demo_opts *o, size_t n, demo_host *h);
void demo_free_host(demo_host *h);

/* The CPU stable result: perm[i] is the input index of output i. Segmented sorts sort each
 * segment of --seglen alone. */
mj_status demo_reference(const demo_opts *o, const unsigned char *keys, size_t n,
                         uint64_t *perm);

/* Reduce and scan: 1 for those primitives. */
int demo_is_scan(mj_primitive primitive);

/* Reduce and scan (integer keys, a + b wrapping in the key's width): the exclusive scan of the
 * n keys followed by their total, n + 1 keys in out. */
void demo_scan_reference(const demo_opts *o, const unsigned char *keys, size_t n,
                         unsigned char *out);

/* Checks got (reduce: the sum; scan: the exclusive scan and its total) against
 * demo_scan_reference of keys and prints the verdict. CLI_OK with *pass, or CLI_FAILURE after
 * printing why. */
int demo_check_scan(const demo_opts *o, size_t n, const unsigned char *keys,
                    const unsigned char *got, int *pass);

/* Load-balancing search, interval expand and move (demo_lbs.c): 1 for those primitives;
 * their option rules (i32 or i64, values for expand and move only; CLI_OK or a usage error
 * printed); the offsets of n items over `objects` objects of random counts 0 to 15 (about 8
 * each: offsets j * 8 + 0..7, clamped to n), as ks-byte integers; and the whole run of lbs or
 * expand on ctx's device: input, check, timing, verdict (CLI_OK on PASS). */
int demo_is_lbs(mj_primitive primitive);
int demo_lbs_opts(const demo_opts *o);
void demo_lbs_offsets(uint64_t *seed, size_t n, size_t objects, size_t ks, unsigned char *off);
int demo_lbs_run(mj_context *ctx, const demo_opts *o, size_t n);

/* Sorted search (demo_search.c): 1 for that primitive, and the whole run on ctx's device
 * (keys only), as demo_lbs_run. */
int demo_is_search(mj_primitive primitive);
int demo_search_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Relational join (demo_join.c): 1 for that primitive; its option rules (4- or 8-byte integer
 * or float keys, no values; CLI_OK or a usage error printed); and the whole run on ctx's
 * device: two sorted columns of n / 2 keys from n / 4 values, outer-joined, checked row by row
 * against a CPU merge-join, timed (CLI_OK on PASS). */
int demo_is_join(mj_primitive primitive);
int demo_join_opts(const demo_opts *o);
int demo_join_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Bulk remove and bulk insert (demo_bulk.c): 1 for those primitives; and the whole run on
 * ctx's device (any key type, moved as bytes, with --values): input, check, timing, verdict
 * (CLI_OK on PASS). */
int demo_is_bulk(mj_primitive primitive);
int demo_bulk_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Set operations (demo_setops.c): 1 for that primitive; and the whole run on ctx's device
 * (any built-in --type, --values B): the four operations over the two sorted halves of the
 * keys, each checked against the CPU and timed; CLI_OK on PASS. */
int demo_is_setops(mj_primitive primitive);
int demo_setops_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Select (demo_select.c): 1 for that primitive; and the whole run on ctx's device (any
 * built-in --type, --values B): a selection and unique over keys in runs, each checked against
 * the CPU and timed; CLI_OK on PASS. */
int demo_is_select(mj_primitive primitive);
int demo_select_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Segmented reduction (demo_segreduce.c): 1 for that primitive; and the whole run on ctx's
 * device (integer --type, no values): n keys in segments of random lengths 0 to 2 x --seglen,
 * each summed (wrapping), checked against the CPU, timed; CLI_OK on PASS. */
int demo_is_segreduce(mj_primitive primitive);
int demo_segreduce_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Reduce by key (demo_reduce_by_key.c): 1 for that primitive; and the whole run on ctx's
 * device (any built-in --type, 4-byte values: --values 0 or 4): keys in runs of 1 to 7 copies,
 * each run's first key and the sum of its values, checked against the CPU and timed; CLI_OK on
 * PASS. */
int demo_is_reduce_by_key(mj_primitive primitive);
int demo_reduce_by_key_run(mj_context *ctx, const demo_opts *o, size_t n);
/* Interval move (demo_move.c): n items in n / 8 + 1 intervals of random counts, each
 * gathered from a random place in `in` and scattered to a random permutation of the
 * intervals in `out`, checked against the CPU, timed; CLI_OK on PASS. */
int demo_move_run(mj_context *ctx, const demo_opts *o, size_t n);

/* Mergesort across --gpus GPUs over NCCL (demo_multi.c): a context, a communicator and a
 * thread a rank; the result checked against the CPU, the runs timed; CLI_OK on PASS. */
int demo_multi_run(const demo_opts *o, size_t n);

/* Times run(job) o->reps times on the device (mj__dev_time) into times (o->reps entries) and
 * sets *median to their median in ms (0 with no reps): CLI_OK, or the status's error
 * printed. For the merge-path family's demos, whose runs leave their input as it was. */
int demo_time_runs(mj_context *ctx, const demo_opts *o, mj_status (*run)(void *job), void *job,
                   float *times, float *median);

/* The sorter of a merge-path family demo for desc, its build and again lines printed
 * (cli_print_build, cli_print_again), and the temporary bytes it needs for n elements. */
mj_status demo_sorter(mj_context *ctx, const mj_sort_desc *desc, size_t n, mj_sorter **s,
                      size_t *temp_bytes);
/* Prints the verdict, FAIL or PASS; returns CLI_FAILURE or CLI_OK. */
int demo_verdict(int failed);
/* The end of such a demo, once the device is done with them: frees the n device buffers that
 * are not NULL and destroys s (may be NULL). */
void demo_release(mj_context *ctx, void *const *dev, size_t n, mj_sorter *s);

/* A mergesort's device side, for demo_print_passes: the sorter, the keys and values (sorted
 * in place; values NULL without) and the temporary storage. */
typedef struct demo_sort_buffers {
    mj_sorter *sorter;
    void *keys, *values, *temp;
    size_t temp_bytes;
} demo_sort_buffers;
/* Mergesort's passes (demo_passes.c): a device-to-device copy of the keys and values timed
 * --reps times (into the temporary storage, h->times for the timings), the input uploaded
 * again, one profiled sort (mj_sorter_sort_profiled), and one line: the passes, their launches
 * and time, each kind's bandwidth beside the copy's. CLI_OK, or CLI_FAILURE after printing
 * why. */
int demo_print_passes(mj_context *ctx, const demo_opts *o, size_t n, const demo_sort_buffers *b,
                      const demo_host *h);

/* --json (demo_json.c): what the demo notes as it runs (the device, or the target without one;
 * the first sorter's build; each timed median in ms; the verdicts, PASS only when all pass),
 * and, between begin and end, its own lines sent to stderr; end prints one JSON object on
 * stdout. begin returns the saved stdout for end (-1: nothing was redirected). */
void demo_note_device(const char *name, int sm, int gpu);
void demo_note_build(const mj_sorter *s);
void demo_note_time(double median_ms);
void demo_note_verdict(int pass);
int demo_json_begin(void);
void demo_json_end(int saved, const demo_opts *o, size_t n, int rc);

/* Prints where the result first differs from the reference, and how many positions do. */
void demo_report_mismatch(const demo_opts *o, size_t key_size, const unsigned char *keys_in,
                          const unsigned char *keys_out, const unsigned char *values_out,
                          const uint64_t *perm, size_t bad, size_t first);

#endif
