/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit sort`: sort a binary file of keys (and, optionally, a file of values) on the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devmem.h"

#define CMD "sort"

static const char usage[] =
    "Usage: mergejit sort --type T [options] IN OUT [VALUES_OUT]\n"
    "\n"
    "Sorts the raw binary keys of file IN on the GPU, stably, and writes them to OUT. With\n"
    "--values, the values of FILE move with their keys and are written to VALUES_OUT.\n"
    "Keys are in the machine's byte order; f16 and bf16 keys are 16-bit patterns. Outputs are\n"
    "written to a temporary file and renamed into place; IN and FILE are never modified.\n"
    "\n"
    "Options:\n"
    "  --type T          key type (required): u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64.\n"
    "                    Custom key types are not offered here: they need CUDA source (see\n"
    "                    mj_sort_desc in mergejit.h)\n"
    "  --order O         asc or desc (default asc). Floats: NaNs last in both orders\n"
    "                    (ordered by their bits), -0 before +0 ascending\n"
    "  --values FILE     values in key order, --value-size bytes each (FILE's size must be\n"
    "                    that times the number of keys); needs VALUES_OUT\n"
    "  --value-size B    bytes per value, 1..64 (with --values)\n"
    "  --segments FILE   segmented sort: FILE holds the segments' first indices as 8-byte\n"
    "                    integers in the machine's byte order, in any order (repeats are empty\n"
    "                    segments; index 0 always begins one); each segment is sorted alone\n"
    "  --device N        CUDA device ordinal (default 0)\n"
    "  --verify          check the result against a CPU stable sort before writing anything\n"
    "  -h, --help        show this help\n";

typedef struct sort_opts {
    mj_key_kind kind; /* MJ_KEY_CUSTOM: no --type */
    mj_order order;
    const char *values_in;
    const char *segments;
    size_t value_size;
    int device;
    int verify;
    const char *in, *out, *values_out;
    cli_operands operands; /* IN OUT [VALUES_OUT], as given */
} sort_opts;

static int set_value_size(void *opts, const char *v)
{
    sort_opts *o = opts;
    long l;
    if (cli_parse_int(v, 1, 64, &l) != 0)
        return cli_usage_error(CMD, "bad value size '%s' (bytes per value, 1..64)", v);
    o->value_size = (size_t)l;
    return CLI_OK;
}

static const cli_option options[] = {
    CLI_OPT_FLAG("--verify", sort_opts, verify),
    CLI_OPT_TYPE(sort_opts, kind),
    CLI_OPT_ORDER(sort_opts, order),
    CLI_OPT_STRING("--values", NULL, sort_opts, values_in),
    CLI_OPT_STRING("--segments", NULL, sort_opts, segments),
    CLI_OPT_PARSED("--value-size", set_value_size),
    CLI_OPT_DEVICE(sort_opts, device),
    CLI_OPT_END_OPERANDS(sort_opts, operands),
};

static const cli_syntax syntax = {CMD, options, NULL, 1, 0};

static int parse_opts(int argc, char **argv, sort_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kind = MJ_KEY_CUSTOM;
    o->order = MJ_ASCENDING;
    int rc = cli_parse_args(&syntax, argc, argv, o);
    if (rc != CLI_OK)
        return rc;
    if (o->kind == MJ_KEY_CUSTOM)
        return cli_usage_error(CMD, "--type is required (one of: %s)", cli_builtin_kind_list());
    if (o->operands.count < 2)
        return cli_usage_error(CMD, "expected IN and OUT files");
    o->in = o->operands.arg[0];
    o->out = o->operands.arg[1];
    o->values_out = o->operands.count > 2 ? o->operands.arg[2] : NULL;
    if (o->values_in != NULL && o->value_size == 0)
        return cli_usage_error(CMD, "--values needs --value-size");
    if (o->values_in == NULL && o->value_size != 0)
        return cli_usage_error(CMD, "--value-size is only meaningful with --values");
    if (o->values_in != NULL && o->values_out == NULL)
        return cli_usage_error(CMD, "--values needs a VALUES_OUT file");
    if (o->values_in == NULL && o->values_out != NULL)
        return cli_usage_error(CMD, "VALUES_OUT given without --values");

    /* Outputs replace their paths: none may be an input or the other output. */
    const char *inputs[3] = {o->in, o->values_in, o->segments};
    const char *outputs[2] = {o->out, o->values_out};
    for (int a = 0; a < 2; a++) {
        if (outputs[a] == NULL)
            continue;
        for (int b = 0; b < 3; b++)
            if (inputs[b] != NULL &&
                (strcmp(outputs[a], inputs[b]) == 0 || cli_same_file(inputs[b], outputs[a])))
                return cli_usage_error(CMD, "output '%s' is the input '%s'; it would be replaced",
                                       outputs[a], inputs[b]);
    }
    if (o->values_out != NULL &&
        (strcmp(o->out, o->values_out) == 0 || cli_same_file(o->out, o->values_out)))
        return cli_usage_error(CMD, "OUT and VALUES_OUT are the same file");
    return CLI_OK;
}

/* Sorts n keys (and values) in place in host memory through the GPU; with heads (count
 * 8-byte segment starts), each segment alone. */
static int gpu_sort(const sort_opts *o, void *keys, void *values, size_t n,
                    const uint64_t *heads, size_t count)
{
    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_sorter *sorter = NULL;
    mj_sort_desc desc;
    void *d_keys = NULL, *d_values = NULL, *d_heads = NULL;
    size_t key_bytes = n * mj_key_kind_size(o->kind), value_bytes = n * o->value_size;
    int launched = 0, rc = CLI_OK;
    mj_status st;

    mj_context_options_init(&opts);
    opts.device = o->device;
    if ((st = mj_context_create(&opts, &ctx)) != MJ_OK)
        goto fail;
    mj_sort_desc_init(&desc, o->kind, o->order);
    desc.value_size = o->value_size;
    desc.primitive = heads != NULL ? MJ_SEGMENTED_SORT : MJ_MERGESORT;
    if ((st = mj_sorter_create(ctx, &desc, &sorter)) != MJ_OK)
        goto fail;
    if (heads != NULL && ((st = mj__dev_alloc(ctx, &d_heads, count * 8)) != MJ_OK ||
                          (st = mj__dev_upload(ctx, d_heads, heads, count * 8)) != MJ_OK))
        goto fail;
    if ((st = mj__dev_alloc(ctx, &d_keys, key_bytes)) != MJ_OK)
        goto fail;
    if (values != NULL && (st = mj__dev_alloc(ctx, &d_values, value_bytes)) != MJ_OK)
        goto fail;
    if ((st = mj__dev_upload(ctx, d_keys, keys, key_bytes)) != MJ_OK)
        goto fail;
    if (values != NULL && (st = mj__dev_upload(ctx, d_values, values, value_bytes)) != MJ_OK)
        goto fail;
    launched = 1;
    mj_segments segments = {MJ_SEGMENTS_HEADS, d_heads, count, 8};
    st = heads != NULL
             ? mj_sorter_segmented_sort(sorter, d_keys, d_values, n, &segments, NULL, 0, NULL)
             : mj_sorter_sort(sorter, d_keys, d_values, n, NULL, 0, NULL);
    if (st != MJ_OK)
        goto fail;
    if ((st = mj__dev_sync(ctx, NULL)) != MJ_OK)
        goto fail;
    if ((st = mj__dev_download(ctx, keys, d_keys, key_bytes)) != MJ_OK)
        goto fail;
    if (values != NULL && (st = mj__dev_download(ctx, values, d_values, value_bytes)) != MJ_OK)
        goto fail;
    goto done;

fail:
    rc = cli_status_error(ctx, st);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    if (d_heads != NULL)
        (void)mj__dev_free(ctx, d_heads);
    if (d_values != NULL)
        (void)mj__dev_free(ctx, d_values);
    if (d_keys != NULL)
        (void)mj__dev_free(ctx, d_keys);
    mj_sorter_destroy(sorter);
    mj_context_destroy(ctx);
    return rc;
}

/* Checks sorted keys/values against the CPU stable sort of the originals. */
static int verify(const sort_opts *o, const void *keys_in, const void *values_in,
                  const void *keys_out, const void *values_out, size_t n,
                  const uint64_t *heads, size_t count)
{
    uint64_t *perm = malloc((n > 0 ? n : 1) * sizeof *perm);
    uint8_t *flags = heads != NULL ? calloc(n, 1) : NULL;
    if (perm == NULL || (heads != NULL && flags == NULL)) {
        free(perm);
        free(flags);
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate memory to verify %zu keys", n);
    }
    for (size_t i = 0; i < count; i++)
        if (heads[i] < n)
            flags[heads[i]] = 1;
    mj_status st = heads != NULL
                       ? kg_reference_segmented_sort(o->kind, o->order, keys_in, n, flags, perm)
                       : kg_reference_sort(o->kind, o->order, keys_in, n, perm);
    free(flags);
    if (st != MJ_OK) {
        free(perm);
        return cli_tool_error(st, "the CPU reference sort of %zu keys failed", n);
    }
    size_t first, key_size = mj_key_kind_size(o->kind);
    size_t bad = kg_compare(key_size, values_out != NULL ? o->value_size : 0, keys_in, values_in,
                            keys_out, values_out, perm, n, &first);
    int rc = CLI_OK;
    if (bad > 0) {
        char got[64], want[64];
        rc = cli_error("verify: FAIL: %zu of %zu positions differ from the CPU stable sort; "
                       "first at %zu: got key %s, expected %s (input position %llu); nothing "
                       "written", bad, n, first,
                       kg_format_key(o->kind, (const char *)keys_out + first * key_size, got,
                                     sizeof got),
                       kg_format_key(o->kind, (const char *)keys_in + perm[first] * key_size,
                                     want, sizeof want),
                       (unsigned long long)perm[first]);
    }
    free(perm);
    return rc;
}

int cmd_sort(int argc, char **argv)
{
    sort_opts o;
    int rc;

    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if ((rc = parse_opts(argc, argv, &o)) != CLI_OK)
        return rc;
    if (cli_check_output(o.out) != 0 || cli_check_output(o.values_out) != 0)
        return CLI_FAILURE;

    size_t key_size = mj_key_kind_size(o.kind);
    void *keys = NULL, *values = NULL, *keys_copy = NULL, *values_copy = NULL, *heads = NULL;
    size_t key_bytes = 0, value_bytes = 0, head_bytes = 0, n;
    cli_staged out_file = {NULL, "", ""}, values_file = {NULL, "", ""};
    rc = CLI_FAILURE;

    if (cli_read_keys(o.in, o.kind, &keys, &n) != 0)
        goto done;
    key_bytes = n * key_size;
    if (o.values_in != NULL) {
        if (cli_read_file(o.values_in, &values, &value_bytes) != 0)
            goto done;
        if (n > SIZE_MAX / o.value_size || value_bytes != n * o.value_size) {
            cli_tool_error(MJ_ERR_INVALID_ARGUMENT,
                           "'%s' holds %zu bytes; %zu keys with %zu-byte values need %zu",
                           o.values_in, value_bytes, n, o.value_size, n * o.value_size);
            goto done;
        }
    }

    if (o.segments != NULL) {
        if (cli_read_file(o.segments, &heads, &head_bytes) != 0)
            goto done;
        if (head_bytes % 8 != 0) {
            cli_tool_error(MJ_ERR_INVALID_ARGUMENT,
                           "'%s' holds %zu bytes, not a whole number of 8-byte indices",
                           o.segments, head_bytes);
            goto done;
        }
    }

    if (n > 0) {
        if (o.verify) {
            keys_copy = malloc(key_bytes);
            values_copy = values != NULL ? malloc(value_bytes) : NULL;
            if (keys_copy == NULL || (values != NULL && values_copy == NULL)) {
                cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate memory to verify %zu keys",
                               n);
                goto done;
            }
            memcpy(keys_copy, keys, key_bytes);
            if (values != NULL)
                memcpy(values_copy, values, value_bytes);
        }
        if (gpu_sort(&o, keys, values, n, heads, head_bytes / 8) != CLI_OK)
            goto done;
        if (o.verify && verify(&o, keys_copy, values_copy, keys, values, n, heads,
                               head_bytes / 8) != CLI_OK)
            goto done;
    }

    if (cli_stage_file(o.out, keys, key_bytes, &out_file) != 0)
        goto done;
    if (o.values_out != NULL &&
        cli_stage_file(o.values_out, values, value_bytes, &values_file) != 0)
        goto done;
    if (cli_commit_file(&out_file) != 0)
        goto done;
    if (o.values_out != NULL && cli_commit_file(&values_file) != 0)
        goto done;

    printf("sorted %zu %s keys (%s)", n, mj_key_kind_name(o.kind), cli_order_name(o.order));
    if (o.segments != NULL)
        printf(" in segments from %s", o.segments);
    if (o.values_out != NULL)
        printf(" with %zu-byte values", o.value_size);
    printf("%s: wrote %s", o.verify ? ", verified" : "", o.out);
    if (o.values_out != NULL)
        printf(" and %s", o.values_out);
    printf("\n");
    rc = CLI_OK;

done:
    cli_discard_file(&out_file);
    cli_discard_file(&values_file);
    free(keys);
    free(values);
    free(keys_copy);
    free(values_copy);
    free(heads);
    return rc;
}
