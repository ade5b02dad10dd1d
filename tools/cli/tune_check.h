/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's result checks, on the host: what each primitive's run must have written, checked
 * against its input (tune_check.c), and the threads that run those checks beside the GPU's
 * timing, handing their verdicts back in the order the checks were queued (tune_checker.c).
 * No device: the measuring side (tools/tune_bench.c) reads the output back and queues it. */
#ifndef MERGEJIT_TOOLS_TUNE_CHECK_H
#define MERGEJIT_TOOLS_TUNE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "tune.h"

/* ---------------------------------------------------------------- keys (tune_check.c) */

/* Key i of a buffer of key_size-byte keys (4: u32, 8: u64, 16: the struct of two u64, hi
 * first): its first word and its second (0 for one-word keys). */
void tune_key_words(const unsigned char *keys, size_t key_size, size_t i, uint64_t *hi,
                    uint64_t *lo);
/* Stores hi (truncated to 32 bits for 4-byte keys) and, for 16-byte keys, lo as key i. */
void tune_set_key(unsigned char *keys, size_t key_size, size_t i, uint64_t hi, uint64_t lo);
/* A sum over every word of the keys that a sort keeps (a weighted sum, so that swapping the
 * words of one key changes it). */
uint64_t tune_key_sum(const unsigned char *keys, size_t key_size, size_t n);

/* ---------------------------------------------------------------- checks (tune_check.c) */

/* The load-balancing family (lbs, expand, move), and bulk remove and insert: primitives whose
 * inputs carry offsets or indices beside the keys. */
int tune_is_lbs(mj_primitive p);
int tune_is_bulk(mj_primitive p);
/* Set operations, reduce by key, select and join: primitives that write the count of their
 * outputs to the device (the tuner's inputs hold it in `offsets`; it is read back before the
 * outputs). */
int tune_has_count(mj_primitive p);
/* The rows of the inner join of the two halves of n keys (the tuner's join input: the first
 * n / 2 keys and the rest, each sorted), counted on the host. */
size_t tune_join_rows(const unsigned char *keys, size_t key_size, size_t n);

/* The input of a run, as generated on the host, and its output as read back. */
typedef struct tune_check_data {
    size_t n;              /* input elements */
    size_t seglen;         /* segmented sorts: segment length */
    const void *keys;      /* the input keys (n of key_size); not read by sorts and merges */
    const void *offsets;   /* lbs, expand, move: the objects' offsets (key_size each); bulk
                              remove and insert: the 4-byte indices; the segmented reduce:
                              4-byte CSR offsets (offset_count = segments + 1) */
    size_t offset_count;   /* join: the rows the host counted (tune_join_rows) */
    uint64_t sum;          /* tune_key_sum of the input keys: sorts and merges keep it */
    const void *out;       /* the output, as tune_check_output describes it */
    size_t out_count;      /* setops: the union's count, reduce by key: the runs', select:
                              the kept, join: the rows, as read back */
    const void *values;    /* reduce by key: the input values (n of value_size) */
} tune_check_data;

/* What a check reads of a run's output: `*from_values` 1 for the run's values, 0 for its keys
 * (or the indices that search writes there, or join's rows: offset_count of a's, then as many
 * of b's), and the bytes (returned) from their start. For setops, reduce by key and select,
 * out_count is the count as read back; other primitives ignore it. */
size_t tune_check_output(const tune_config *c, size_t n, size_t offset_count, size_t out_count,
                         int *from_values);

/* Checks a run of configuration c: sorts (within each segment) and merges ordered and with the
 * input's keys (their sum); reduce and scan against sums of the input (words wrapping at the
 * key's width); lbs, expand and move against the offsets; search's lower bounds by binary
 * search; remove and insert element by element; setops' union and its count, and join's rows
 * and their count, by a walk over both halves. NULL when right, else what is wrong, in words. */
const char *tune_check(const tune_config *c, const tune_check_data *d);

/* ---------------------------------------------------------------- threads (tune_checker.c) */

/* Seconds on the monotonic clock: the sweep's time accounting. */
double tune_now_s(void);

/* Threads that run tune_check on queued outputs while the caller goes on, each output in a
 * slot of its own (a host buffer kept and grown from one check to the next). One thread, the
 * producer, takes slots, fills and queues them; verdicts go to `verdict`, one at a time, in
 * the order the checks were queued, on a checking thread, with no lock of the checker held. */
typedef struct tune_checker tune_checker;
typedef struct tune_check_slot tune_check_slot;
typedef void (*tune_verdict_fn)(void *arg, size_t point, const char *bad);

/* threads >= 1 checking threads and slots >= 1 buffers. NULL when they cannot be had (host
 * memory, a thread that does not start). */
tune_checker *tune_checker_start(int threads, int slots, tune_verdict_fn verdict, void *arg);
/* A free slot with a buffer of at least `bytes` in *buffer, waiting while every slot is
 * queued or being checked; NULL when host memory for the buffer ran out (no slot taken). */
tune_check_slot *tune_checker_take(tune_checker *k, size_t bytes, void **buffer);
/* Queues the check of point `point` on d (d->out in the slot's buffer; d and c are copied,
 * what they point to must stay until the verdict). */
void tune_checker_submit(tune_checker *k, tune_check_slot *s, size_t point,
                         const tune_config *c, const tune_check_data *d);
/* Hands a slot back unqueued (its output could not be read). */
void tune_checker_give_back(tune_checker *k, tune_check_slot *s);
/* Waits until every queued check has had its verdict. */
void tune_checker_drain(tune_checker *k);
/* Seconds the checking threads spent checking (summed over them), and seconds the producer
 * waited, in take and drain, for them. */
void tune_checker_times(tune_checker *k, double *checking_s, double *waited_s);
/* Drains, stops the threads and frees the checker. NULL is accepted. */
void tune_checker_stop(tune_checker *k);

#endif
