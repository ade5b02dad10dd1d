/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit join`: the relational join of two sorted binary key files on the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "devmem.h"

#define CMD "join"

static const char usage[] =
    "Usage: mergejit join --type T [options] A B OUT\n"
    "\n"
    "Joins the raw binary keys of files A and B, each sorted (checked here first), on the GPU\n"
    "and writes the pairs of row indices to OUT: all the a rows, then all the b rows, one\n"
    "--index-size integer each in the machine's byte order, so OUT holds 2 x rows x size\n"
    "bytes. Row k pairs a row a_rows[k] with b row b_rows[k]; all ones stands for no row\n"
    "(NULL). Rows come for each a row in order, its matches in b in order (keys are equal\n"
    "when neither is ordered before the other: the Cartesian product of duplicates); then,\n"
    "for right and outer joins, the b rows without a match. Prints the number of rows. Keys\n"
    "are as for 'mergejit sort'; OUT is written to a temporary file and renamed into place.\n"
    "\n"
    "Options:\n"
    "  --type T          key type (required): u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64\n"
    "  --order O         the order A and B are sorted in: asc or desc (default asc). Floats:\n"
    "                    NaNs last in both orders (ordered by their bits), -0 before +0\n"
    "                    ascending; keys match only with equal bits\n"
    "  --kind K          inner, left (and a's rows without a match), right (and b's) or outer\n"
    "                    (both); default inner\n"
    "  --index-size S    4 or 8 bytes per row index (default 8; 4 needs A and B below 2^32\n"
    "                    keys)\n"
    "  --device N        CUDA device ordinal (default 0)\n"
    "  -h, --help        show this help\n";

static const char *const kind_names[] = {"inner", "left", "right", "outer"};

typedef struct join_opts {
    mj_key_kind key; /* MJ_KEY_CUSTOM: no --type */
    mj_order order;
    mj_join_kind kind;
    size_t index_size;
    int device;
    cli_operands operands; /* A B OUT */
} join_opts;

static int set_kind(void *opts, const char *v)
{
    join_opts *o = opts;
    for (int k = 0; k < 4; k++)
        if (strcmp(v, kind_names[k]) == 0) {
            o->kind = (mj_join_kind)k;
            return CLI_OK;
        }
    return cli_usage_error(CMD, "bad kind '%s' (inner, left, right or outer)", v);
}

static int set_index_size(void *opts, const char *v)
{
    join_opts *o = opts;
    if (strcmp(v, "4") != 0 && strcmp(v, "8") != 0)
        return cli_usage_error(CMD, "bad index size '%s' (4 or 8)", v);
    o->index_size = (size_t)(v[0] - '0');
    return CLI_OK;
}

static const cli_option options[] = {
    CLI_OPT_TYPE(join_opts, key),
    CLI_OPT_ORDER(join_opts, order),
    CLI_OPT_PARSED("--kind", set_kind),
    CLI_OPT_PARSED("--index-size", set_index_size),
    CLI_OPT_DEVICE(join_opts, device),
    CLI_OPT_END_OPERANDS(join_opts, operands),
};

static const cli_syntax syntax = {CMD, options, NULL, 1, 0};

static int parse_opts(int argc, char **argv, join_opts *o)
{
    memset(o, 0, sizeof *o);
    o->key = MJ_KEY_CUSTOM;
    o->order = MJ_ASCENDING;
    o->kind = MJ_JOIN_INNER;
    o->index_size = 8;
    int rc = cli_parse_args(&syntax, argc, argv, o);
    if (rc != CLI_OK)
        return rc;
    if (o->key == MJ_KEY_CUSTOM)
        return cli_usage_error(CMD, "--type is required (one of: %s)", cli_builtin_kind_list());
    if (o->operands.count < 3)
        return cli_usage_error(CMD, "expected A, B and OUT files");
    for (int i = 0; i < 2; i++)
        if (strcmp(o->operands.arg[2], o->operands.arg[i]) == 0 ||
            cli_same_file(o->operands.arg[i], o->operands.arg[2]))
            return cli_usage_error(CMD, "output '%s' is the input '%s'; it would be replaced",
                                   o->operands.arg[2], o->operands.arg[i]);
    return CLI_OK;
}

/* The first key of n that is ordered before the one ahead of it: its position, or 0 when the
 * keys are sorted; prints the error. */
static int check_sorted(const join_opts *o, const char *path, const void *keys, size_t n)
{
    size_t ks = mj_key_kind_size(o->key);
    const char *k = keys;
    for (size_t i = 1; i < n; i++)
        if (kg_less(o->key, o->order, k + i * ks, k + (i - 1) * ks)) {
            char x[64], y[64];
            return cli_tool_error(MJ_ERR_INVALID_ARGUMENT,
                                  "'%s' is not sorted (%s): key %zu (%s) comes before key %zu "
                                  "(%s); a join needs both inputs sorted",
                                  path, cli_order_name(o->order), i,
                                  kg_format_key(o->key, k + i * ks, x, sizeof x), i - 1,
                                  kg_format_key(o->key, k + (i - 1) * ks, y, sizeof y));
        }
    return CLI_OK;
}

/* Joins on the GPU: *rows (malloc'ed: a rows then b rows) and *count. */
static int gpu_join(const join_opts *o, const void *a, size_t na, const void *b, size_t nb,
                    void **rows, uint64_t *count)
{
    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_sorter *s = NULL;
    mj_sort_desc desc;
    void *d_a = NULL, *d_b = NULL, *d_rows = NULL, *d_count = NULL, *d_temp = NULL;
    size_t ks = mj_key_kind_size(o->key), is = o->index_size, bytes = 0, temp_bytes = 0;
    mj_join_plan plan;
    int launched = 0, rc = CLI_OK;
    mj_status st;

    *rows = NULL;
    mj_context_options_init(&opts);
    opts.device = o->device;
    if ((st = mj_context_create(&opts, &ctx)) != MJ_OK)
        goto fail;
    mj_sort_desc_init(&desc, o->key, o->order);
    desc.primitive = MJ_JOIN;
    if ((st = mj_sorter_create(ctx, &desc, &s)) != MJ_OK ||
        (st = mj__dev_alloc(ctx, &d_a, na * ks + 1)) != MJ_OK ||
        (st = mj__dev_alloc(ctx, &d_b, nb * ks + 1)) != MJ_OK ||
        (st = mj__dev_alloc(ctx, &d_count, 8)) != MJ_OK ||
        (st = mj_sorter_temp_size(s, na + nb, 0, &temp_bytes)) != MJ_OK ||
        (st = mj__dev_alloc(ctx, &d_temp, temp_bytes)) != MJ_OK ||
        (st = mj__dev_upload(ctx, d_a, a, na * ks)) != MJ_OK ||
        (st = mj__dev_upload(ctx, d_b, b, nb * ks)) != MJ_OK)
        goto fail;
    launched = 1;
    /* One search: the plan counts, its rows follow from it. */
    if ((st = mj_sorter_join_plan(s, o->kind, d_a, na, d_b, nb, d_count, d_temp, temp_bytes,
                                  NULL, &plan)) != MJ_OK ||
        (st = mj__dev_sync(ctx, NULL)) != MJ_OK ||
        (st = mj__dev_download(ctx, count, d_count, 8)) != MJ_OK)
        goto fail;
    if (*count > SIZE_MAX / 2 / is) {
        rc = cli_tool_error(MJ_ERR_TOO_LARGE, "the join has %llu rows: too many to hold",
                            (unsigned long long)*count);
        goto done;
    }
    bytes = (size_t)*count * is;
    *rows = malloc(2 * bytes + 1);
    if (*rows == NULL) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "cannot allocate %zu bytes for %llu rows",
                            2 * bytes, (unsigned long long)*count);
        goto done;
    }
    if ((st = mj__dev_alloc(ctx, &d_rows, 2 * bytes + 1)) != MJ_OK ||
        (st = mj_sorter_join_rows(s, &plan, is, d_rows, (char *)d_rows + bytes,
                                  (size_t)*count, d_temp, temp_bytes, NULL)) != MJ_OK ||
        (st = mj__dev_sync(ctx, NULL)) != MJ_OK ||
        (st = mj__dev_download(ctx, *rows, d_rows, 2 * bytes)) != MJ_OK)
        goto fail;
    goto done;

fail:
    rc = cli_status_error(ctx, st);
done:
    if (launched)
        (void)mj__dev_sync(ctx, NULL);
    void *bufs[] = {d_a, d_b, d_rows, d_count, d_temp};
    for (int i = 0; i < 5; i++)
        if (bufs[i] != NULL)
            (void)mj__dev_free(ctx, bufs[i]);
    if (rc != CLI_OK) {
        free(*rows);
        *rows = NULL;
    }
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    return rc;
}

int cmd_join(int argc, char **argv)
{
    join_opts o;
    int rc;

    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if ((rc = parse_opts(argc, argv, &o)) != CLI_OK)
        return rc;
    if (cli_check_output(o.operands.arg[2]) != 0)
        return CLI_FAILURE;

    void *a = NULL, *b = NULL, *rows = NULL;
    size_t na = 0, nb = 0;
    uint64_t count = 0;
    rc = CLI_FAILURE;
    if (cli_read_keys(o.operands.arg[0], o.key, &a, &na) != 0 ||
        cli_read_keys(o.operands.arg[1], o.key, &b, &nb) != 0 ||
        check_sorted(&o, o.operands.arg[0], a, na) != CLI_OK ||
        check_sorted(&o, o.operands.arg[1], b, nb) != CLI_OK)
        goto done;
    if (o.index_size == 4 && (na > UINT32_MAX || nb > UINT32_MAX)) {
        cli_tool_error(MJ_ERR_TOO_LARGE, "%zu and %zu keys need --index-size 8", na, nb);
        goto done;
    }
    if (gpu_join(&o, a, na, b, nb, &rows, &count) != CLI_OK ||
        cli_write_file(o.operands.arg[2], rows, 2 * (size_t)count * o.index_size) != 0)
        goto done;
    printf("%s join of %zu and %zu %s keys (%s): %llu rows; wrote %s (a rows, then b rows, "
           "%zu-byte indices)\n", kind_names[o.kind], na, nb, mj_key_kind_name(o.key),
           cli_order_name(o.order), (unsigned long long)count, o.operands.arg[2], o.index_size);
    rc = CLI_OK;
done:
    free(a);
    free(b);
    free(rows);
    return rc;
}
