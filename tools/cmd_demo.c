/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo`: run a primitive (mergesort, merge, segmented or locality sort, reduce, scan;
 * lbs and expand in demo_lbs.c, search in demo_search.c, remove and insert in demo_bulk.c,
 * set operations in demo_setops.c, select in demo_select.c, segmented reduction in
 * demo_segreduce.c, move in demo_move.c) on random keys on the GPU, check the result against
 * the CPU's, time it.
 * Without a GPU it builds
 * the sorter in a compile-only context and reports the JIT cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

#define CMD "demo"

static const char usage[] =
    "Usage: mergejit demo [options]\n"
    "\n"
    "Sorts random keys on the GPU, checks the result against a CPU stable sort in the same\n"
    "order, then times --reps sorts and prints the median and the throughput. A mergesort\n"
    "then sorts once more, timed pass by pass, for a 'passes:' line: the passes (e.g.\n"
    "bs+11x2: the blocksort, then 11 2-way merge passes; 4-way ones read x4), their launches\n"
    "and summed time, and each kind's bandwidth (bytes read and written / time) beside a\n"
    "device-to-device copy of the keys and values. Prints PASS or FAIL (exit status 1).\n"
    "Without a GPU (no driver or no device) it says so on one line, builds the sorter for\n"
    "--sm in a compile-only context and reports what the JIT cost.\n"
    "\n"
    "Options:\n"
    "  --primitive P mergesort (default); merge: the two halves of the keys, each sorted on\n"
    "                the CPU first, merged into one; segsort: segments of --seglen keys, each\n"
    "                sorted alone (given as head indices); locality: sorted keys of which 1%\n"
    "                are swapped with a key at most 1000 places away; reduce and scan:\n"
    "                the sum (a + b, wrapping) of integer keys, and their exclusive scan\n"
    "                with its total, checked against the CPU's; lbs and expand (--type i32\n"
    "                or i64): random counts of n / 8 objects, each item's object and rank,\n"
    "                or (--values B) its object's value; search: the two halves of the\n"
    "                keys, each sorted on the CPU, searched in one another (every output);\n"
    "                remove: a random quarter of the keys (and values) taken out; insert:\n"
    "                n / 4 of them put into the rest at random positions (any --type, moved\n"
    "                as bytes); move (i32 or i64, --values B):\n"
    "                n / 8 intervals of random counts, each gathered from a random place\n"
    "                and scattered to a random permutation of the intervals; join (u32,\n"
    "                i32, u64, i64, f32, f64): two sorted columns of n / 2 keys from n / 4\n"
    "                values, outer-joined, checked row by row against a CPU merge-join;\n"
    "                setops: the\n"
    "                intersection, union, difference and symmetric difference of the two\n"
    "                halves of the keys (about half of b copied from a), each sorted on\n"
    "                the CPU (any --type, --values B); select: keys in runs,\n"
    "                those with an even low bit (floats: above zero) kept, then the first\n"
    "                of each run (unique), each checked against the CPU (any --type,\n"
    "                --values B); segreduce: segments of random lengths 0 to 2 x\n"
    "                --seglen, each summed (a + b, wrapping; integer keys); reducebykey:\n"
    "                keys in runs of 1 to 7 copies (mean 4), each run's first key and the\n"
    "                sum of its 4-byte values, checked against the CPU (any --type,\n"
    "                --values 0 or 4)\n"
    "  --seglen L    segment length for segsort, mean length for segreduce (default 1000)\n"
    "  --type T      key type: u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64 (default u32).\n"
    "                Float keys include NaNs, -0.0, +0.0 and infinities; f16 and bf16 keys\n"
    "                are random 16-bit patterns\n"
    "  --n N         number of keys (default 16777216); e.g. 1000000, 1e6, 2^24, 16M, 1G\n"
    "                (K, M, G are binary)\n"
    "  --values B    bytes of value per key: 0 for keys only (default), up to 64. Each value\n"
    "                holds its key's original index (B >= 4 for an exact stability check)\n"
    "  --order O     asc or desc (default asc). Floats: NaNs last in both orders (ordered by\n"
    "                their bits), -0 before +0 ascending\n"
    "  --device N    CUDA device ordinal (default 0)\n"
    "  --gpus N      mergesort across GPUs 0 .. N-1 over NCCL, one thread a rank: the\n"
    "                keys cut into N shards in order, sorted with mj_multi_sort, checked,\n"
    "                the ranks' counts and the slowest rank's time printed. NCCL is\n"
    "                opened at run time: MERGEJIT_NCCL=<path> names the library\n"
    "  --sm SM       target when no GPU is found: 90, sm_90 or 9.0 (default 90)\n"
    "  --reps R      timed sorts (default 5; 0 skips timing and the passes line)\n"
    "  --seed S      random seed, decimal or 0x hex (default 1)\n"
    "  --json        the demo's lines on stderr, and on stdout one JSON object: the options,\n"
    "                gpu, device, sm, build (source, ms, nt, vt of the demo's sorter),\n"
    "                median_ms (each timed run's median), gkeys_per_s (the first one's),\n"
    "                result (PASS, FAIL, built: no GPU, or error) and exit (the status)\n"
    "  -h, --help    show this help\n";

static int set_primitive(void *opts, const char *v)
{
    demo_opts *o = opts;
    o->primitive = mj_primitive_parse(v);
    if (o->primitive == MJ_PRIMITIVE_COUNT)
        return cli_usage_error(CMD, "unknown primitive '%s' (%s)", v, cli_primitive_names());
    return CLI_OK;
}

static int set_seglen(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_size(v, &o->seglen) != 0 || o->seglen == 0)
        return cli_usage_error(CMD, "bad segment length '%s'", v);
    return CLI_OK;
}

static int set_type(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_builtin_kind(v, &o->kind) != 0)
        return cli_usage_error(CMD, "unknown key type '%s' (use one of: %s)", v,
                               cli_builtin_kind_list());
    return CLI_OK;
}

static int set_n(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_size(v, &o->n) != 0 || o->n == 0)
        return cli_usage_error(CMD, "bad count '%s' (e.g. 16777216, 1e6, 2^24, 16M)", v);
    return CLI_OK;
}

static int set_values(void *opts, const char *v)
{
    demo_opts *o = opts;
    long l;
    if (cli_parse_int(v, 0, 64, &l) != 0)
        return cli_usage_error(CMD, "bad value size '%s' (bytes per value, 0..64)", v);
    o->value_size = (size_t)l;
    return CLI_OK;
}

static int set_sm(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_sm(v, &o->sm) != 0)
        return cli_usage_error(CMD, "bad target '%s' (e.g. 90, sm_90 or 9.0)", v);
    return CLI_OK;
}

static int set_reps(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_int(v, 0, 1000000, &o->reps) != 0)
        return cli_usage_error(CMD, "bad repetition count '%s'", v);
    return CLI_OK;
}

static int set_gpus(void *opts, const char *v)
{
    demo_opts *o = opts;
    long l;
    if (cli_parse_int(v, 1, 64, &l) != 0)
        return cli_usage_error(CMD, "bad GPU count '%s' (1..64)", v);
    o->gpus = (int)l;
    return CLI_OK;
}

static int set_seed(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_u64(v, &o->seed) != 0)
        return cli_usage_error(CMD, "bad seed '%s'", v);
    return CLI_OK;
}

static const cli_option options[] = {
    CLI_OPT_PARSED("--primitive", set_primitive),
    CLI_OPT_PARSED("--seglen", set_seglen),
    CLI_OPT_PARSED("--type", set_type),
    CLI_OPT_PARSED("--n", set_n),
    CLI_OPT_PARSED("--values", set_values),
    CLI_OPT_ORDER(demo_opts, order),
    CLI_OPT_DEVICE(demo_opts, device),
    CLI_OPT_PARSED("--gpus", set_gpus),
    CLI_OPT_PARSED("--sm", set_sm),
    CLI_OPT_PARSED("--reps", set_reps),
    CLI_OPT_PARSED("--seed", set_seed),
    CLI_OPT_FLAG("--json", demo_opts, json),
    CLI_OPT_END,
};

static const cli_syntax syntax = {CMD, options, NULL, 0, 0};

static int parse_opts(int argc, char **argv, demo_opts *o)
{
    *o = (demo_opts){.primitive = MJ_MERGESORT, .seglen = 1000, .kind = MJ_KEY_U32,
                     .n = (uint64_t)1 << 24, .order = MJ_ASCENDING, .sm = 90, .reps = 5,
                     .seed = 1};
    return cli_parse_args(&syntax, argc, argv, o);
}

static void fill_desc(const demo_opts *o, mj_sort_desc *desc)
{
    mj_sort_desc_init(desc, o->kind, o->order);
    desc->primitive = o->primitive;
    desc->value_size = o->value_size;
    if (demo_is_reduce_by_key(o->primitive)) { /* its demo sums 4-byte values */
        desc->value_size = 4;
        desc->value_type = "unsigned";
    }
}

/* No GPU: build the sorter for the target in a compile-only context and report the JIT cost. */
static int compile_only(const demo_opts *o)
{
    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_sorter *sorter = NULL;
    mj_sort_desc desc;
    mj_status st;
    int rc = CLI_OK;

    mj_context_options_init(&opts);
    opts.flags |= MJ_CONTEXT_COMPILE_ONLY;
    opts.target_sm = o->sm;
    opts.device = o->device;
    st = mj_context_create(&opts, &ctx);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    printf("target: sm_%d (compile only)\n", mj_context_target_sm(ctx));
    demo_note_device(NULL, mj_context_target_sm(ctx), 0);
    fill_desc(o, &desc);
    st = mj_sorter_create(ctx, &desc, &sorter);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    cli_print_build(sorter);
    demo_note_build(sorter);
    cli_print_again(ctx, &desc);

done:
    mj_sorter_destroy(sorter);
    mj_context_destroy(ctx);
    return rc;
}

/* One timed sort, for mj__dev_time. */
typedef struct sort_job {
    mj_primitive primitive;
    mj_sorter *sorter;
    void *keys, *values, *temp;
    void *out_keys, *out_values; /* merge: the output (keys holds a, then b); reduce and
                                    scan: the result, then (scan) the total */
    size_t n, temp_bytes, key_size, value_size;
    mj_segments segments;        /* segsort */
} sort_job;

static mj_status run_sort(void *arg)
{
    sort_job *j = arg;
    size_t na = j->n / 2;
    switch (j->primitive) {
    case MJ_MERGE:
        return mj_sorter_merge(j->sorter, j->keys, j->values, na,
                               (char *)j->keys + na * j->key_size,
                               j->values ? (char *)j->values + na * j->value_size : NULL,
                               j->n - na, j->out_keys, j->out_values, j->temp, j->temp_bytes,
                               NULL);
    case MJ_SEGMENTED_SORT:
        return mj_sorter_segmented_sort(j->sorter, j->keys, j->values, j->n, &j->segments,
                                        j->temp, j->temp_bytes, NULL);
    case MJ_REDUCE:
        return mj_sorter_reduce(j->sorter, j->keys, j->n, j->out_keys, j->temp, j->temp_bytes,
                                NULL);
    case MJ_SCAN:
        return mj_sorter_scan(j->sorter, j->keys, j->n, j->out_keys, MJ_SCAN_EXCLUSIVE,
                              (char *)j->out_keys + j->n * j->key_size, j->temp, j->temp_bytes,
                              NULL);
    default:
        return mj_sorter_sort(j->sorter, j->keys, j->values, j->n, j->temp, j->temp_bytes, NULL);
    }
}

static void print_header(const demo_opts *o, size_t n)
{
    printf("mergejit demo: %s of %zu %s keys", mj_primitive_name(o->primitive), n,
           mj_key_kind_name(o->kind));
    if (o->value_size > 0)
        printf(" with %zu-byte values", o->value_size);
    if (demo_is_scan(o->primitive))
        printf(", a + b%s, seed %llu\n", o->primitive == MJ_SCAN ? " exclusive" : "",
               (unsigned long long)o->seed);
    else
        printf(", %s, seed %llu\n", o->order == MJ_DESCENDING ? "descending" : "ascending",
               (unsigned long long)o->seed);
}

/* A context on the device. Without a GPU it says so, builds in a compile-only context and
 * returns NULL with *rc from that; NULL with *rc after printing why on any other failure. */
static mj_context *open_device(const demo_opts *o, int *rc)
{
    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_context_options_init(&opts);
    opts.device = o->device;
    mj_status st = mj_context_create(&opts, &ctx);
    if (st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE) {
        printf("no GPU found (%s: ", mj_status_name(st));
        cli_put_one_line(stdout, mj_context_last_error(ctx));
        printf("); building for sm_%d without running\n", o->sm);
        mj_context_destroy(ctx);
        fflush(stdout);
        *rc = compile_only(o);
        return NULL;
    }
    if (st != MJ_OK) {
        *rc = cli_status_error(ctx, st);
        mj_context_destroy(ctx);
        return NULL;
    }
    printf("device %d: %s, sm_%d\n", o->device, mj_context_device_name(ctx),
           mj_context_target_sm(ctx));
    demo_note_device(mj_context_device_name(ctx), mj_context_target_sm(ctx), 1);
    return ctx;
}

/* The device side: the input (sorted in place), the merge's output, the temporary storage
 * and segsort's head indices. */
typedef struct demo_dev {
    void *keys, *values, *temp, *out_keys, *out_values, *heads;
} demo_dev;

/* Segments of --seglen keys as 8-byte head indices on the device, into job. CLI_OK, or
 * CLI_FAILURE after printing why. */
static int upload_segments(mj_context *ctx, const demo_opts *o, size_t n, demo_dev *d,
                           sort_job *job)
{
    size_t count = (n + (size_t)o->seglen - 1) / (size_t)o->seglen;
    uint64_t *heads = malloc(count * sizeof *heads);
    if (heads == NULL)
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %zu segment heads", count);
    for (size_t i = 0; i < count; i++)
        heads[i] = i * o->seglen;
    mj_status st = mj__dev_alloc(ctx, &d->heads, count * sizeof *heads);
    if (st == MJ_OK)
        st = mj__dev_upload(ctx, d->heads, heads, count * sizeof *heads);
    free(heads);
    if (st != MJ_OK)
        return cli_status_error(ctx, st);
    job->segments.kind = MJ_SEGMENTS_HEADS;
    job->segments.data = d->heads;
    job->segments.count = count;
    job->segments.index_size = 8;
    printf("segments: %zu of %llu keys\n", count, (unsigned long long)o->seglen);
    return CLI_OK;
}

/* Allocates the device buffers, uploads the input and describes the run in job. CLI_OK, or
 * CLI_FAILURE after printing why. */
static int setup_device(mj_context *ctx, const demo_opts *o, size_t n, mj_sorter *sorter,
                        const demo_host *h, demo_dev *d, sort_job *job)
{
    size_t key_size = mj_key_kind_size(o->kind), key_bytes = n * key_size;
    size_t value_bytes = n * o->value_size, temp_bytes = 0;
    mj_status st;
    if ((st = mj__dev_alloc(ctx, &d->keys, key_bytes)) != MJ_OK)
        goto fail;
    if (o->value_size > 0 && (st = mj__dev_alloc(ctx, &d->values, value_bytes)) != MJ_OK)
        goto fail;
    if ((st = mj_sorter_temp_size(sorter, n, 0, &temp_bytes)) != MJ_OK)
        goto fail;
    if (temp_bytes > 0 && (st = mj__dev_alloc(ctx, &d->temp, temp_bytes)) != MJ_OK)
        goto fail;
    if ((st = mj__dev_upload(ctx, d->keys, h->keys_in, key_bytes)) != MJ_OK)
        goto fail;
    if (o->value_size > 0 &&
        (st = mj__dev_upload(ctx, d->values, h->values_in, value_bytes)) != MJ_OK)
        goto fail;
    memset(job, 0, sizeof *job);
    if (o->primitive == MJ_MERGE || demo_is_scan(o->primitive)) { /* these write elsewhere */
        size_t out_bytes = o->primitive == MJ_REDUCE ? key_size
                           : o->primitive == MJ_SCAN ? key_bytes + key_size : key_bytes;
        if ((st = mj__dev_alloc(ctx, &d->out_keys, out_bytes)) != MJ_OK)
            goto fail;
        if (o->value_size > 0 &&
            (st = mj__dev_alloc(ctx, &d->out_values, value_bytes)) != MJ_OK)
            goto fail;
    }
    if (o->primitive == MJ_SEGMENTED_SORT) {
        int rc = upload_segments(ctx, o, n, d, job);
        if (rc != CLI_OK)
            return rc;
    }
    job->primitive = o->primitive;
    job->out_keys = d->out_keys != NULL ? d->out_keys : d->keys;
    job->out_values = o->primitive == MJ_MERGE ? d->out_values : d->values;
    job->key_size = key_size;
    job->value_size = o->value_size;
    job->sorter = sorter;
    job->keys = d->keys;
    job->values = d->values;
    job->temp = d->temp;
    job->n = n;
    job->temp_bytes = temp_bytes;
    return CLI_OK;

fail:
    return cli_status_error(ctx, st);
}

static void free_device(mj_context *ctx, demo_dev *d)
{
    void *const bufs[] = {d->temp, d->out_keys, d->out_values, d->heads, d->values, d->keys};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i] != NULL)
            (void)mj__dev_free(ctx, bufs[i]);
}

/* Reduce and scan: the result read back and checked against the CPU's wrapping sums. */
static int check_scan(mj_context *ctx, const demo_opts *o, size_t n, sort_job *job,
                      demo_host *h, int *pass)
{
    size_t count = o->primitive == MJ_SCAN ? n + 1 : 1; /* the scan and its total, or the sum */
    mj_status st = mj__dev_download(ctx, h->keys_out, job->out_keys, count * job->key_size);
    if (st != MJ_OK)
        return cli_status_error(ctx, st);
    return demo_check_scan(o, n, h->keys_in, h->keys_out, pass);
}

/* One run, read back and checked against the CPU stable sort; prints the check. CLI_OK with
 * *pass, or CLI_FAILURE after printing why. */
static int run_checked(mj_context *ctx, const demo_opts *o, size_t n, sort_job *job,
                       demo_host *h, int *pass)
{
    size_t key_size = job->key_size, key_bytes = n * key_size, value_bytes = n * o->value_size;
    size_t bad, first;
    mj_status st;
    if ((st = run_sort(job)) != MJ_OK || (st = mj__dev_sync(ctx, NULL)) != MJ_OK)
        return cli_status_error(ctx, st);
    if (demo_is_scan(o->primitive))
        return check_scan(ctx, o, n, job, h, pass);
    if ((st = mj__dev_download(ctx, h->keys_out, job->out_keys, key_bytes)) != MJ_OK)
        return cli_status_error(ctx, st);
    if (o->value_size > 0 &&
        (st = mj__dev_download(ctx, h->values_out, job->out_values, value_bytes)) != MJ_OK)
        return cli_status_error(ctx, st);

    if ((st = demo_reference(o, h->keys_in, n, h->perm)) != MJ_OK)
        return cli_tool_error(st, "the CPU reference sort of %zu keys failed", n);
    bad = kg_compare(key_size, o->value_size, h->keys_in, h->values_in, h->keys_out,
                     h->values_out, h->perm, n, &first);
    *pass = bad == 0;
    if (*pass)
        printf("check: %zu keys%s match the CPU stable sort\n", n,
               o->value_size > 0 ? " and values" : "");
    else
        demo_report_mismatch(o, key_size, h->keys_in, h->keys_out, h->values_out, h->perm, bad,
                             first);
    return CLI_OK;
}

/* --reps timed sorts, each on freshly uploaded unsorted data (the uploads are not timed);
 * prints the median and the throughput. CLI_OK, or CLI_FAILURE after printing why. */
static int time_runs(mj_context *ctx, const demo_opts *o, size_t n, sort_job *job,
                     demo_host *h)
{
    size_t key_bytes = n * job->key_size, value_bytes = n * o->value_size;
    float *times = h->times;
    for (long r = 0; r < o->reps; r++) {
        mj_status st;
        if ((st = mj__dev_upload(ctx, job->keys, h->keys_in, key_bytes)) != MJ_OK ||
            (o->value_size > 0 &&
             (st = mj__dev_upload(ctx, job->values, h->values_in, value_bytes)) != MJ_OK) ||
            (st = mj__dev_time(ctx, run_sort, job, &times[r])) != MJ_OK)
            return cli_status_error(ctx, st);
    }
    cli_sort_floats(times, (size_t)o->reps);
    size_t mid = (size_t)o->reps / 2;
    double median = o->reps % 2 ? times[mid] : 0.5 * ((double)times[mid - 1] + times[mid]);
    demo_note_time(median);
    printf("time: median %.3f ms over %ld sort%s (min %.3f, max %.3f): %.2f Gkeys/s\n",
           median, o->reps, o->reps == 1 ? "" : "s", times[0], times[o->reps - 1],
           median > 0 ? (double)n / (median * 1e6) : 0.0);
    return CLI_OK;
}

/* The demo of parsed options o (its lines on stdout). */
static int run_demo(demo_opts o)
{
    int rc;
    if ((demo_is_scan(o.primitive) || demo_is_segreduce(o.primitive)) &&
        (o.kind > MJ_KEY_I64 || o.value_size > 0))
        return cli_usage_error(CMD, "%s takes integer key types and no values (the demo "
                                    "checks exact sums)", mj_primitive_name(o.primitive));
    if (demo_is_lbs(o.primitive) && (rc = demo_lbs_opts(&o)) != CLI_OK)
        return rc;
    if (demo_is_search(o.primitive) && o.value_size > 0)
        return cli_usage_error(CMD, "search takes no --values");
    if (demo_is_join(o.primitive) && (rc = demo_join_opts(&o)) != CLI_OK)
        return rc;
    if (demo_is_reduce_by_key(o.primitive) && o.value_size != 0 && o.value_size != 4)
        return cli_usage_error(CMD, "reducebykey sums 4-byte values: --values 0 or 4, not %zu",
                               o.value_size);
    if (o.n > SIZE_MAX / 64) /* value bytes, permutation and reference sort buffers */
        return cli_tool_error(MJ_ERR_TOO_LARGE, "%llu keys do not fit in this machine's memory",
                              (unsigned long long)o.n);
    size_t n = (size_t)o.n;
    if (o.gpus) {
        if (o.primitive != MJ_MERGESORT)
            return cli_usage_error(CMD, "--gpus sorts (mergesort) only, not %s",
                                   mj_primitive_name(o.primitive));
        return demo_multi_run(&o, n);
    }
    print_header(&o, n);
    mj_context *ctx = open_device(&o, &rc);
    if (ctx == NULL)
        return rc;
    /* The merge-path family's demos run whole in their own files. */
    int (*family)(mj_context *, const demo_opts *, size_t) =
        o.primitive == MJ_INTERVAL_MOVE ? demo_move_run
        : demo_is_lbs(o.primitive)      ? demo_lbs_run
        : demo_is_search(o.primitive)   ? demo_search_run
        : demo_is_bulk(o.primitive)     ? demo_bulk_run
        : demo_is_join(o.primitive)     ? demo_join_run
        : demo_is_setops(o.primitive)   ? demo_setops_run
        : demo_is_select(o.primitive)   ? demo_select_run
        : demo_is_segreduce(o.primitive) ? demo_segreduce_run
        : demo_is_reduce_by_key(o.primitive) ? demo_reduce_by_key_run
                                        : NULL;
    if (family) {
        rc = family(ctx, &o, n);
        mj_context_destroy(ctx);
        return rc;
    }

    /* Everything below is released at the end, whichever step failed. */
    demo_host h = {NULL, NULL, NULL, NULL, NULL, NULL};
    demo_dev d = {NULL, NULL, NULL, NULL, NULL, NULL};
    sort_job job;
    mj_sorter *sorter = NULL;
    mj_sort_desc desc;
    int launched = 0, pass = 0;
    rc = demo_make_host(&o, n, &h);
    if (rc == CLI_OK) {
        fill_desc(&o, &desc);
        mj_status st = mj_sorter_create(ctx, &desc, &sorter);
        if (st != MJ_OK)
            rc = cli_status_error(ctx, st);
        else {
            cli_print_build(sorter);
            demo_note_build(sorter);
        }
    }
    if (rc == CLI_OK)
        cli_print_again(ctx, &desc);
    if (rc == CLI_OK)
        rc = setup_device(ctx, &o, n, sorter, &h, &d, &job);
    if (rc == CLI_OK) {
        launched = 1;
        rc = run_checked(ctx, &o, n, &job, &h, &pass);
    }
    if (rc == CLI_OK && o.reps > 0)
        rc = time_runs(ctx, &o, n, &job, &h);
    if (rc == CLI_OK && o.reps > 0 && o.primitive == MJ_MERGESORT) {
        demo_sort_buffers b = {sorter, d.keys, d.values, d.temp, job.temp_bytes};
        rc = demo_print_passes(ctx, &o, n, &b, &h);
    }
    if (rc == CLI_OK)
        rc = demo_verdict(!pass);
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    free_device(ctx, &d);
    mj_sorter_destroy(sorter);
    mj_context_destroy(ctx);
    demo_free_host(&h);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    demo_opts o;
    int rc;

    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if ((rc = parse_opts(argc, argv, &o)) != CLI_OK)
        return rc;
    if (!o.json)
        return run_demo(o);
    int saved = demo_json_begin();
    rc = run_demo(o);
    demo_json_end(saved, &o, (size_t)o.n, rc);
    return rc;
}
