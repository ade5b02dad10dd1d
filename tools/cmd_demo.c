/* `mergejit demo`: run a primitive (mergesort, merge, segmented or locality sort) on random
 * keys on the GPU, check the result against a CPU stable sort, time it. Without a GPU it builds
 * the sorter in a compile-only context and reports the JIT cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devmem.h"

#define CMD "demo"

static const char usage[] =
    "Usage: mergejit demo [options]\n"
    "\n"
    "Sorts random keys on the GPU, checks the result against a CPU stable sort in the same\n"
    "order, then times --reps sorts and prints the median and the throughput. Prints PASS or\n"
    "FAIL (exit status 1). Without a GPU (no driver or no device) it says so on one line,\n"
    "builds the sorter for --sm in a compile-only context and reports what the JIT cost.\n"
    "\n"
    "Options:\n"
    "  --primitive P mergesort (default); merge: the two halves of the keys, each sorted on\n"
    "                the CPU first, merged into one; segsort: segments of --seglen keys, each\n"
    "                sorted alone (given as head indices); locality: sorted keys of which 1%\n"
    "                are swapped with a key at most 1000 places away\n"
    "  --seglen L    segment length for segsort (default 1000)\n"
    "  --type T      key type: u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64 (default u32).\n"
    "                Float keys include NaNs, -0.0, +0.0 and infinities; f16 and bf16 keys\n"
    "                are random 16-bit patterns\n"
    "  --n N         number of keys (default 16777216); e.g. 1000000, 1e6, 2^24, 16M, 1G\n"
    "                (K, M, G are binary)\n"
    "  --values B    bytes of value per key: 0 for keys only (default), up to 64. Each value\n"
    "                holds its key's original index (B >= 4 for an exact stability check)\n"
    "  --order O     asc or desc (default asc). Floats: NaNs last in both orders, -0 before\n"
    "                +0 ascending\n"
    "  --device N    CUDA device ordinal (default 0)\n"
    "  --sm SM       target when no GPU is found: 90, sm_90 or 9.0 (default 90)\n"
    "  --reps R      timed sorts (default 5; 0 skips timing)\n"
    "  --seed S      random seed, decimal or 0x hex (default 1)\n"
    "  -h, --help    show this help\n";

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
} demo_opts;

static int set_primitive(void *opts, const char *v)
{
    demo_opts *o = opts;
    o->primitive = mj_primitive_parse(v);
    if (o->primitive == MJ_PRIMITIVE_COUNT)
        return cli_usage_error(CMD, "unknown primitive '%s' (mergesort, merge, segsort or "
                                    "locality)", v);
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

static int set_order(void *opts, const char *v)
{
    demo_opts *o = opts;
    if (cli_parse_order(v, &o->order) != 0)
        return cli_usage_error(CMD, "bad order '%s' (asc or desc)", v);
    return CLI_OK;
}

static int set_device(void *opts, const char *v)
{
    demo_opts *o = opts;
    long l;
    if (cli_parse_int(v, 0, 1 << 20, &l) != 0)
        return cli_usage_error(CMD, "bad device ordinal '%s'", v);
    o->device = (int)l;
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
    CLI_OPT_PARSED("--order", set_order),
    CLI_OPT_PARSED("--device", set_device),
    CLI_OPT_PARSED("--sm", set_sm),
    CLI_OPT_PARSED("--reps", set_reps),
    CLI_OPT_PARSED("--seed", set_seed),
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
    fill_desc(o, &desc);
    st = mj_sorter_create(ctx, &desc, &sorter);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    cli_print_build(sorter);

done:
    mj_sorter_destroy(sorter);
    mj_context_destroy(ctx);
    return rc;
}

/* One timed sort, for mj_dev_time. */
typedef struct sort_job {
    mj_primitive primitive;
    mj_sorter *sorter;
    void *keys, *values, *temp;
    void *out_keys, *out_values; /* merge: the output (keys holds a, then b) */
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
    default:
        return mj_sorter_sort(j->sorter, j->keys, j->values, j->n, j->temp, j->temp_bytes, NULL);
    }
}

/* keys[0, n) in the order of perm. */
static void permute(unsigned char *keys, size_t key_size, const uint64_t *perm, size_t n,
                    unsigned char *scratch)
{
    for (size_t i = 0; i < n; i++)
        memcpy(scratch + i * key_size, keys + perm[i] * key_size, key_size);
    memcpy(keys, scratch, n * key_size);
}

/* The primitive's input from random keys: merge sorts each half, locality sorts all and then
 * disturbs 1% of the keys locally. keys_out and perm serve as scratch. */
static mj_status prepare_input(const demo_opts *o, unsigned char *keys, size_t n,
                               unsigned char *scratch, uint64_t *perm)
{
    size_t ks = mj_key_kind_size(o->kind), na = n / 2;
    mj_status st = MJ_OK;
    if (o->primitive == MJ_MERGE) {
        if ((st = kg_reference_sort(o->kind, o->order, keys, na, perm)) != MJ_OK)
            return st;
        permute(keys, ks, perm, na, scratch);
        if ((st = kg_reference_sort(o->kind, o->order, keys + na * ks, n - na, perm)) != MJ_OK)
            return st;
        permute(keys + na * ks, ks, perm, n - na, scratch);
    } else if (o->primitive == MJ_LOCALITY_SORT) {
        if ((st = kg_reference_sort(o->kind, o->order, keys, n, perm)) != MJ_OK)
            return st;
        permute(keys, ks, perm, n, scratch);
        uint64_t s = o->seed;
        for (size_t k = 0; k < n / 100; k++) {
            size_t i = (size_t)(kg_splitmix(&s) % n), j = i + (size_t)(kg_splitmix(&s) % 1000);
            if (j >= n)
                j = n - 1;
            memcpy(scratch, keys + i * ks, ks);
            memcpy(keys + i * ks, keys + j * ks, ks);
            memcpy(keys + j * ks, scratch, ks);
        }
    }
    return st;
}

/* The CPU stable result: perm[i] is the input index of output i. Segmented sorts sort each
 * segment of --seglen alone. */
static mj_status reference(const demo_opts *o, const unsigned char *keys, size_t n,
                           uint64_t *perm)
{
    if (o->primitive != MJ_SEGMENTED_SORT)
        return kg_reference_sort(o->kind, o->order, keys, n, perm);
    uint8_t *heads = calloc(n, 1);
    if (heads == NULL)
        return MJ_ERR_HOST_MEMORY;
    for (size_t at = 0; at < n; at += (size_t)o->seglen)
        heads[at] = 1;
    mj_status st = kg_reference_segmented_sort(o->kind, o->order, keys, n, heads, perm);
    free(heads);
    return st;
}

/* The index a demo value holds in its first bytes (truncated below 8 bytes). */
static uint64_t value_index(const unsigned char *v, size_t value_size)
{
    uint64_t x = 0;
    for (size_t b = 0; b < value_size && b < 8; b++)
        x |= (uint64_t)v[b] << (8 * b);
    return x;
}

static void report_mismatch(const demo_opts *o, size_t key_size, const unsigned char *keys_in,
                            const unsigned char *keys_out, const unsigned char *values_out,
                            const uint64_t *perm, size_t bad, size_t first)
{
    char got[64], want[64];
    size_t from = (size_t)perm[first];
    printf("check: %zu of %llu positions differ from the CPU stable sort; first at %zu:\n", bad,
           (unsigned long long)o->n, first);
    printf("  got key %s", kg_format_key(o->kind, keys_out + first * key_size, got, sizeof got));
    if (o->value_size > 0)
        printf(" from index %llu",
               (unsigned long long)value_index(values_out + first * o->value_size, o->value_size));
    printf("\n  expected key %s",
           kg_format_key(o->kind, keys_in + from * key_size, want, sizeof want));
    if (o->value_size > 0)
        printf(" from index %zu", from);
    printf("\n");
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

    size_t key_size = mj_key_kind_size(o.kind);
    if (o.n > SIZE_MAX / 64) /* value bytes, permutation and reference sort buffers */
        return cli_tool_error(MJ_ERR_TOO_LARGE, "%llu keys do not fit in this machine's memory",
                              (unsigned long long)o.n);
    size_t n = (size_t)o.n;

    printf("mergejit demo: %s of %zu %s keys", mj_primitive_name(o.primitive), n,
           mj_key_kind_name(o.kind));
    if (o.value_size > 0)
        printf(" with %zu-byte values", o.value_size);
    printf(", %s, seed %llu\n", o.order == MJ_DESCENDING ? "descending" : "ascending",
           (unsigned long long)o.seed);

    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_context_options_init(&opts);
    opts.device = o.device;
    mj_status st = mj_context_create(&opts, &ctx);
    if (st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE) {
        printf("no GPU found (%s: ", mj_status_name(st));
        cli_put_one_line(stdout, mj_context_last_error(ctx));
        printf("); building for sm_%d without running\n", o.sm);
        mj_context_destroy(ctx);
        fflush(stdout);
        return compile_only(&o);
    }
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        mj_context_destroy(ctx);
        return rc;
    }
    printf("device %d: %s, sm_%d\n", o.device, mj_context_device_name(ctx),
           mj_context_target_sm(ctx));

    /* Everything below is released at `done`. */
    mj_sort_desc desc;
    sort_job job;
    size_t bad, first;
    mj_sorter *sorter = NULL;
    unsigned char *keys_in = NULL, *keys_out = NULL, *values_in = NULL, *values_out = NULL;
    uint64_t *perm = NULL;
    float *times = NULL;
    void *d_keys = NULL, *d_values = NULL, *d_temp = NULL;
    void *d_out_keys = NULL, *d_out_values = NULL, *d_heads = NULL;
    size_t key_bytes = n * key_size, value_bytes = n * o.value_size, temp_bytes = 0;
    int launched = 0, pass = 0;
    rc = CLI_FAILURE;

    keys_in = malloc(key_bytes);
    keys_out = malloc(key_bytes);
    perm = malloc(n * sizeof *perm);
    if (o.value_size > 0) {
        values_in = malloc(value_bytes);
        values_out = malloc(value_bytes);
    }
    times = malloc((o.reps > 0 ? (size_t)o.reps : 1) * sizeof *times);
    if (keys_in == NULL || keys_out == NULL || perm == NULL || times == NULL ||
        (o.value_size > 0 && (values_in == NULL || values_out == NULL))) {
        cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate host buffers for %zu keys", n);
        goto done;
    }
    kg_fill_keys(o.kind, keys_in, n, o.seed);
    if ((st = prepare_input(&o, keys_in, n, keys_out, perm)) != MJ_OK) {
        cli_tool_error(st, "preparing the input of %zu keys failed", n);
        goto done;
    }
    if (o.value_size > 0)
        kg_fill_values(values_in, o.value_size, n);

    fill_desc(&o, &desc);
    if ((st = mj_sorter_create(ctx, &desc, &sorter)) != MJ_OK)
        goto fail;
    cli_print_build(sorter);

    if ((st = mj_dev_alloc(ctx, &d_keys, key_bytes)) != MJ_OK)
        goto fail;
    if (o.value_size > 0 && (st = mj_dev_alloc(ctx, &d_values, value_bytes)) != MJ_OK)
        goto fail;
    if ((st = mj_sorter_temp_size(sorter, n, 0, &temp_bytes)) != MJ_OK)
        goto fail;
    if (temp_bytes > 0 && (st = mj_dev_alloc(ctx, &d_temp, temp_bytes)) != MJ_OK)
        goto fail;
    if ((st = mj_dev_upload(ctx, d_keys, keys_in, key_bytes)) != MJ_OK)
        goto fail;
    if (o.value_size > 0 && (st = mj_dev_upload(ctx, d_values, values_in, value_bytes)) != MJ_OK)
        goto fail;
    memset(&job, 0, sizeof job);
    if (o.primitive == MJ_MERGE) { /* the merge writes elsewhere */
        if ((st = mj_dev_alloc(ctx, &d_out_keys, key_bytes)) != MJ_OK)
            goto fail;
        if (o.value_size > 0 && (st = mj_dev_alloc(ctx, &d_out_values, value_bytes)) != MJ_OK)
            goto fail;
    }
    if (o.primitive == MJ_SEGMENTED_SORT) { /* segments as 8-byte head indices */
        size_t count = (n + (size_t)o.seglen - 1) / (size_t)o.seglen;
        uint64_t *heads = malloc(count * sizeof *heads);
        if (heads == NULL) {
            cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %zu segment heads", count);
            goto done;
        }
        for (size_t i = 0; i < count; i++)
            heads[i] = i * o.seglen;
        st = mj_dev_alloc(ctx, &d_heads, count * sizeof *heads);
        if (st == MJ_OK)
            st = mj_dev_upload(ctx, d_heads, heads, count * sizeof *heads);
        free(heads);
        if (st != MJ_OK)
            goto fail;
        job.segments.kind = MJ_SEGMENTS_HEADS;
        job.segments.data = d_heads;
        job.segments.count = count;
        job.segments.index_size = 8;
        printf("segments: %zu of %llu keys\n", count, (unsigned long long)o.seglen);
    }

    /* One run, checked. */
    job.primitive = o.primitive;
    job.out_keys = o.primitive == MJ_MERGE ? d_out_keys : d_keys;
    job.out_values = o.primitive == MJ_MERGE ? d_out_values : d_values;
    job.key_size = key_size;
    job.value_size = o.value_size;
    job.sorter = sorter;
    job.keys = d_keys;
    job.values = d_values;
    job.temp = d_temp;
    job.n = n;
    job.temp_bytes = temp_bytes;
    launched = 1;
    if ((st = run_sort(&job)) != MJ_OK)
        goto fail;
    if ((st = mj_dev_sync(ctx, NULL)) != MJ_OK)
        goto fail;
    if ((st = mj_dev_download(ctx, keys_out, job.out_keys, key_bytes)) != MJ_OK)
        goto fail;
    if (o.value_size > 0 &&
        (st = mj_dev_download(ctx, values_out, job.out_values, value_bytes)) != MJ_OK)
        goto fail;

    if ((st = reference(&o, keys_in, n, perm)) != MJ_OK) {
        cli_tool_error(st, "the CPU reference sort of %zu keys failed", n);
        goto done;
    }
    bad = kg_compare(key_size, o.value_size, keys_in, values_in, keys_out, values_out,
                     perm, n, &first);
    pass = bad == 0;
    if (pass)
        printf("check: %zu keys%s match the CPU stable sort\n", n,
               o.value_size > 0 ? " and values" : "");
    else
        report_mismatch(&o, key_size, keys_in, keys_out, values_out, perm, bad, first);

    /* Timed sorts, each on freshly uploaded unsorted data (the uploads are not timed). */
    if (o.reps > 0) {
        for (long r = 0; r < o.reps; r++) {
            if ((st = mj_dev_upload(ctx, d_keys, keys_in, key_bytes)) != MJ_OK)
                goto fail;
            if (o.value_size > 0 &&
                (st = mj_dev_upload(ctx, d_values, values_in, value_bytes)) != MJ_OK)
                goto fail;
            if ((st = mj_dev_time(ctx, run_sort, &job, &times[r])) != MJ_OK)
                goto fail;
        }
        cli_sort_floats(times, (size_t)o.reps);
        size_t mid = (size_t)o.reps / 2;
        double median = o.reps % 2 ? times[mid] : 0.5 * ((double)times[mid - 1] + times[mid]);
        printf("time: median %.3f ms over %ld sort%s (min %.3f, max %.3f): %.2f Gkeys/s\n",
               median, o.reps, o.reps == 1 ? "" : "s", times[0], times[o.reps - 1],
               median > 0 ? (double)n / (median * 1e6) : 0.0);
    }

    printf("%s\n", pass ? "PASS" : "FAIL");
    rc = pass ? CLI_OK : CLI_FAILURE;
    goto done;

fail:
    rc = cli_status_error(ctx, st);
done:
    if (launched)
        (void)mj_dev_sync(ctx, NULL);
    if (d_temp != NULL)
        (void)mj_dev_free(ctx, d_temp);
    if (d_out_keys != NULL)
        (void)mj_dev_free(ctx, d_out_keys);
    if (d_out_values != NULL)
        (void)mj_dev_free(ctx, d_out_values);
    if (d_heads != NULL)
        (void)mj_dev_free(ctx, d_heads);
    if (d_values != NULL)
        (void)mj_dev_free(ctx, d_values);
    if (d_keys != NULL)
        (void)mj_dev_free(ctx, d_keys);
    mj_sorter_destroy(sorter);
    mj_context_destroy(ctx);
    free(keys_in);
    free(keys_out);
    free(values_in);
    free(values_out);
    free(perm);
    free(times);
    return rc;
}
