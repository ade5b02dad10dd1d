/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo`'s host side: the primitive's input from random keys, the CPU stable sort the
 * result is checked against, the report of a mismatch, and for the merge-path family's demos
 * their sorter, timed runs, verdict and release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "devmem.h"

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
mj_status demo_reference(const demo_opts *o, const unsigned char *keys, size_t n,
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

int demo_is_scan(mj_primitive primitive)
{
    return primitive == MJ_REDUCE || primitive == MJ_SCAN;
}

/* Integer keys as little-endian unsigned words of key_size bytes: sums wrap as the GPU's do. */
static uint64_t get_word(const unsigned char *p, size_t key_size)
{
    uint64_t x = 0;
    for (size_t b = 0; b < key_size; b++)
        x |= (uint64_t)p[b] << (8 * b);
    return x;
}

static void put_word(unsigned char *p, size_t key_size, uint64_t x)
{
    for (size_t b = 0; b < key_size; b++)
        p[b] = (unsigned char)(x >> (8 * b));
}

void demo_scan_reference(const demo_opts *o, const unsigned char *keys, size_t n,
                         unsigned char *out)
{
    size_t ks = mj_key_kind_size(o->kind);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        put_word(out + i * ks, ks, sum);
        sum += get_word(keys + i * ks, ks);
    }
    put_word(out + n * ks, ks, sum);
}

int demo_check_scan(const demo_opts *o, size_t n, const unsigned char *keys,
                    const unsigned char *got, int *pass)
{
    size_t ks = mj_key_kind_size(o->kind), at = o->primitive == MJ_SCAN ? 0 : n;
    size_t count = o->primitive == MJ_SCAN ? n + 1 : 1;
    unsigned char *want = malloc((n + 1) * ks);
    if (want == NULL)
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate the reference of %zu keys",
                              n);
    demo_scan_reference(o, keys, n, want);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < count; i++)
        if (memcmp(got + i * ks, want + (at + i) * ks, ks) != 0 && bad++ == 0)
            first = i;
    *pass = bad == 0;
    if (*pass)
        printf("check: the %s of %zu keys matches the CPU's\n",
               o->primitive == MJ_SCAN ? "exclusive scan and total" : "sum", n);
    else {
        char g[64], w[64];
        printf("check: %zu of %zu results differ from the CPU's; first at %zu%s: got %s, "
               "expected %s\n", bad, count, first, at + first == n ? " (the total)" : "",
               kg_format_key(o->kind, got + first * ks, g, sizeof g),
               kg_format_key(o->kind, want + (at + first) * ks, w, sizeof w));
    }
    free(want);
    return CLI_OK;
}

/* The index a demo value holds in its first bytes (truncated below 8 bytes). */
static uint64_t value_index(const unsigned char *v, size_t value_size)
{
    uint64_t x = 0;
    for (size_t b = 0; b < value_size && b < 8; b++)
        x |= (uint64_t)v[b] << (8 * b);
    return x;
}

void demo_report_mismatch(const demo_opts *o, size_t key_size, const unsigned char *keys_in,
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

/* Allocates the host buffers and generates the primitive's input. CLI_OK, or CLI_FAILURE
 * after printing why. */
int demo_make_host(const demo_opts *o, size_t n, demo_host *h)
{
    size_t key_bytes = n * mj_key_kind_size(o->kind), value_bytes = n * o->value_size;
    h->keys_in = malloc(key_bytes);
    /* A scan's output is followed by its total. */
    size_t total_bytes = demo_is_scan(o->primitive) ? mj_key_kind_size(o->kind) : 0;
    h->keys_out = malloc(key_bytes + total_bytes);
    h->perm = malloc(n * sizeof *h->perm);
    if (o->value_size > 0) {
        h->values_in = malloc(value_bytes);
        h->values_out = malloc(value_bytes);
    }
    h->times = malloc((o->reps > 0 ? (size_t)o->reps : 1) * sizeof *h->times);
    if (h->keys_in == NULL || h->keys_out == NULL || h->perm == NULL || h->times == NULL ||
        (o->value_size > 0 && (h->values_in == NULL || h->values_out == NULL)))
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate host buffers for %zu keys",
                              n);
    kg_fill_keys(o->kind, h->keys_in, n, o->seed);
    mj_status st = prepare_input(o, h->keys_in, n, h->keys_out, h->perm);
    if (st != MJ_OK)
        return cli_tool_error(st, "preparing the input of %zu keys failed", n);
    if (o->value_size > 0)
        kg_fill_values(h->values_in, o->value_size, n);
    return CLI_OK;
}

void demo_free_host(demo_host *h)
{
    free(h->keys_in);
    free(h->keys_out);
    free(h->values_in);
    free(h->values_out);
    free(h->perm);
    free(h->times);
}

int demo_time_runs(mj_context *ctx, const demo_opts *o, mj_status (*run)(void *job), void *job,
                   float *times, float *median)
{
    *median = 0;
    for (long r = 0; r < o->reps; r++) {
        mj_status st = mj__dev_time(ctx, run, job, &times[r]);
        if (st != MJ_OK)
            return cli_status_error(ctx, st);
    }
    if (o->reps > 0) {
        cli_sort_floats(times, (size_t)o->reps);
        *median = times[o->reps / 2];
        demo_note_time(*median);
    }
    return CLI_OK;
}

mj_status demo_sorter(mj_context *ctx, const mj_sort_desc *desc, size_t n, mj_sorter **s,
                      size_t *temp_bytes)
{
    mj_status st = mj_sorter_create(ctx, desc, s);
    if (st == MJ_OK) {
        cli_print_build(*s);
        demo_note_build(*s);
        cli_print_again(ctx, desc);
    }
    if (st == MJ_OK)
        st = mj_sorter_temp_size(*s, n, 0, temp_bytes);
    return st;
}

int demo_verdict(int failed)
{
    demo_note_verdict(!failed);
    printf("%s\n", failed ? "FAIL" : "PASS");
    return failed ? CLI_FAILURE : CLI_OK;
}

void demo_release(mj_context *ctx, void *const *dev, size_t n, mj_sorter *s)
{
    for (size_t i = 0; i < n; i++)
        if (dev[i])
            (void)mj__dev_free(ctx, dev[i]);
    mj_sorter_destroy(s);
}
