/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --primitive join` (cmd_demo.c hands it over after opening the device): two
 * sorted columns of n / 2 keys of --type each, drawn from n / 4 distinct values (about two of
 * each a side, so runs of duplicates join as small products), joined (--join, default outer;
 * 8-byte rows): the count, then the rows, checked row by row against a merge-join on the CPU,
 * then the row pass timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

int demo_is_join(mj_primitive primitive) { return primitive == MJ_JOIN; }

int demo_join_opts(const demo_opts *o)
{
    if (o->kind != MJ_KEY_U32 && o->kind != MJ_KEY_I32 && o->kind != MJ_KEY_U64 &&
        o->kind != MJ_KEY_I64 && o->kind != MJ_KEY_F32 && o->kind != MJ_KEY_F64)
        return cli_usage_error("demo", "join takes --type u32, i32, u64, i64, f32 or f64 (n / 4 "
                                       "distinct keys must fit)");
    if (o->value_size > 0)
        return cli_usage_error("demo", "join takes no --values");
    return CLI_OK;
}

typedef struct join_job {
    mj_sorter *s;
    mj_join_kind kind;
    void *a, *b, *a_rows, *b_rows, *count, *temp;
    size_t na, nb, capacity, temp_bytes;
} join_job;

static mj_status run_join(void *arg)
{
    join_job *j = arg;
    return mj_sorter_join(j->s, j->kind, j->a, j->na, j->b, j->nb, 8, j->a_rows, j->b_rows,
                          j->capacity, j->count, j->temp, j->temp_bytes, NULL);
}

/* Key of rank r of `range` in the column's order (increasing ranks give sorted keys). */
static void put_key(const demo_opts *o, unsigned char *dst, uint64_t r, uint64_t range)
{
    if (o->order == MJ_DESCENDING)
        r = range - 1 - r;
    int64_t s = (int64_t)r - (int64_t)(range / 2);
    switch (o->kind) {
    case MJ_KEY_U32: { uint32_t v = (uint32_t)r; memcpy(dst, &v, 4); break; }
    case MJ_KEY_I32: { int32_t v = (int32_t)s; memcpy(dst, &v, 4); break; }
    case MJ_KEY_U64: { uint64_t v = r * 0x10001ull; memcpy(dst, &v, 8); break; }
    case MJ_KEY_I64: { int64_t v = s * 0x10001; memcpy(dst, &v, 8); break; }
    case MJ_KEY_F32: { float v = (float)s * 0.25f; memcpy(dst, &v, 4); break; }
    default: { double v = (double)s * 0.25; memcpy(dst, &v, 8); break; }
    }
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* n sorted keys of ranks drawn from [0, range). */
static int make_column(const demo_opts *o, uint64_t *seed, unsigned char *keys, size_t n,
                       uint64_t range)
{
    uint64_t *r = malloc((n + 1) * sizeof *r);
    if (r == NULL)
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
    for (size_t i = 0; i < n; i++)
        r[i] = kg_splitmix(seed) % range;
    qsort(r, n, sizeof *r, cmp_u64);
    size_t ks = mj_key_kind_size(o->kind);
    for (size_t i = 0; i < n; i++)
        put_key(o, keys + i * ks, r[i], range);
    free(r);
    return CLI_OK;
}

/* The CPU merge-join (kg_less for the order): checks rows [0, count) as it goes; returns the
 * rows it makes, the mismatches in *bad and the first in *first. */
static uint64_t check_rows(const demo_opts *o, mj_join_kind kind, const unsigned char *a,
                           size_t na, const unsigned char *b, size_t nb, const uint64_t *ar,
                           const uint64_t *br, uint64_t count, size_t *bad, uint64_t *first)
{
    size_t ks = mj_key_kind_size(o->kind);
    unsigned char *matched = calloc(nb + 1, 1);
    uint64_t k = 0;
    size_t j = 0;
    *bad = 0;
#define ROW(x, y)                                                                             \
    do {                                                                                      \
        if (k < count && (ar[k] != (x) || br[k] != (y)) && (*bad)++ == 0)                     \
            *first = k;                                                                       \
        ++k;                                                                                  \
    } while (0)
    if (matched == NULL) {
        *bad = 1;
        *first = 0;
        return 0;
    }
    for (size_t i = 0; i < na; i++) {
        const unsigned char *x = a + i * ks;
        while (j < nb && kg_less(o->kind, o->order, b + j * ks, x))
            j++;
        size_t e = j;
        for (; e < nb && !kg_less(o->kind, o->order, x, b + e * ks); e++) {
            matched[e] = 1;
            ROW(i, e);
        }
        if (e == j && (kind & MJ_JOIN_LEFT))
            ROW(i, UINT64_MAX);
    }
    for (size_t e = 0; (kind & MJ_JOIN_RIGHT) && e < nb; e++)
        if (!matched[e])
            ROW(UINT64_MAX, e);
#undef ROW
    free(matched);
    return k;
}

int demo_join_run(mj_context *ctx, const demo_opts *o, size_t n)
{
    static const char *const names[] = {"inner", "left", "right", "outer"};
    size_t ks = mj_key_kind_size(o->kind);
    join_job j;
    memset(&j, 0, sizeof j);
    j.kind = MJ_JOIN_OUTER;
    j.na = n / 2;
    j.nb = n - n / 2;
    uint64_t range = n / 4 + 1, seed = o->seed, count = 0, *ar = NULL, *br = NULL;
    unsigned char *a = malloc(j.na * ks + 1), *b = malloc(j.nb * ks + 1);
    float *times = o->reps > 0 ? malloc((size_t)o->reps * sizeof *times) : NULL;
    int rc = CLI_OK, launched = 0;
    mj_status st = MJ_OK;
    if (!a || !b || (o->reps > 0 && !times)) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the host buffers");
        goto done;
    }
    if ((rc = make_column(o, &seed, a, j.na, range)) != CLI_OK ||
        (rc = make_column(o, &seed, b, j.nb, range)) != CLI_OK)
        goto done;
    printf("a: %zu keys, b: %zu, each sorted, from %llu values; %s join, 8-byte rows\n", j.na,
           j.nb, (unsigned long long)range, names[j.kind]);
    mj_sort_desc desc;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.primitive = MJ_JOIN;
    st = demo_sorter(ctx, &desc, n, &j.s, &j.temp_bytes);
    if (st == MJ_OK && !(st = mj__dev_alloc(ctx, &j.a, j.na * ks + 1)) &&
        !(st = mj__dev_alloc(ctx, &j.b, j.nb * ks + 1)) &&
        !(st = mj__dev_alloc(ctx, &j.count, 8)) &&
        !(st = mj__dev_alloc(ctx, &j.temp, j.temp_bytes)) &&
        !(st = mj__dev_upload(ctx, j.a, a, j.na * ks)) &&
        !(st = mj__dev_upload(ctx, j.b, b, j.nb * ks))) {
        launched = 1;
        st = mj_sorter_join_count(j.s, j.kind, j.a, j.na, j.b, j.nb, j.count, j.temp,
                                  j.temp_bytes, NULL);
    }
    if (st == MJ_OK && !(st = mj__dev_sync(ctx, NULL)))
        st = mj__dev_download(ctx, &count, j.count, 8);
    if (st == MJ_OK && count > SIZE_MAX / 16) {
        rc = cli_tool_error(MJ_ERR_TOO_LARGE, "%llu rows do not fit", (unsigned long long)count);
        goto done;
    }
    j.capacity = (size_t)count;
    if (st == MJ_OK) {
        ar = malloc(j.capacity * 8 + 8);
        br = malloc(j.capacity * 8 + 8);
        if (!ar || !br) {
            rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %llu rows",
                                (unsigned long long)count);
            goto done;
        }
    }
    if (st == MJ_OK && !(st = mj__dev_alloc(ctx, &j.a_rows, j.capacity * 8 + 8)) &&
        !(st = mj__dev_alloc(ctx, &j.b_rows, j.capacity * 8 + 8)) && !(st = run_join(&j)) &&
        !(st = mj__dev_sync(ctx, NULL)) &&
        !(st = mj__dev_download(ctx, ar, j.a_rows, j.capacity * 8)))
        st = mj__dev_download(ctx, br, j.b_rows, j.capacity * 8);
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        goto done;
    }
    size_t bad = 0;
    uint64_t first = 0, want = check_rows(o, j.kind, a, j.na, b, j.nb, ar, br, count, &bad,
                                          &first);
    int fail = bad > 0 || want != count;
    if (fail)
        printf("check: %llu rows, the CPU's %llu; %zu differ, the first at %llu: (%lld, %lld)\n",
               (unsigned long long)count, (unsigned long long)want, bad,
               (unsigned long long)first, first < count ? (long long)ar[first] : -2,
               first < count ? (long long)br[first] : -2);
    else
        printf("check: %llu rows match the CPU's merge-join\n", (unsigned long long)count);
    float med = 0;
    rc = demo_time_runs(ctx, o, run_join, &j, times, &med);
    if (rc == CLI_OK && o->reps > 0)
        printf("time: median %.3f ms over %ld runs (search, scans and rows): %.2f G rows/s, "
               "%.2f Gkeys/s\n", med, o->reps, med > 0 ? (double)count / (med * 1e6) : 0.0,
               med > 0 ? (double)n / (med * 1e6) : 0.0);
    if (rc == CLI_OK)
        rc = demo_verdict(fail);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *const dev[] = {j.a, j.b, j.a_rows, j.b_rows, j.count, j.temp};
    demo_release(ctx, dev, sizeof dev / sizeof *dev, j.s);
    free(a);
    free(b);
    free(ar);
    free(br);
    free(times);
    return rc;
}
