/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit gen`: writes a deployment bundle (cubins for sm targets and PTX for compute
 * capabilities x key types x value sizes x primitives, and custom types and comparators from
 * a spec file), or lists one. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CMD "gen"
#define MAX_LIST 32
#define MAX_KEYS 64

static const char usage[] =
    "Usage: mergejit gen -o FILE [options]\n"
    "       mergejit gen --list FILE\n"
    "\n"
    "Compiles kernels for every combination of the targets, key types, value sizes and\n"
    "primitives below (and the keys of a spec file) and writes them to one bundle file with an\n"
    "index and a SHA-256 per entry. A context opened with the bundle (MERGEJIT_BUNDLE=FILE, or\n"
    "mj_context_options.bundle) sorts without NVRTC. Each entry keeps the tile it was built\n"
    "with: the tuning file's (--tuning) for its sm, else the built-in default. Compiles go\n"
    "through the disk cache. Beside the cubins it keeps PTX (--ptx), which the driver\n"
    "compiles when a context loads it on a GPU of that compute capability or a newer one, so\n"
    "that the bundle also runs on GPUs newer than its targets: a context takes a cubin for\n"
    "its sm, else one of the same major version and a lower minor, else the newest PTX not\n"
    "above its sm.\n"
    "\n"
    "Options:\n"
    "  -o, --output F  the bundle to write (replaced atomically)\n"
    "  --sm L          cubin targets, comma-separated (default 90): e.g. 75,80,90; 'none'\n"
    "                  for PTX only\n"
    "  --ptx L         PTX for these compute capabilities, e.g. 80 or compute_80 (default:\n"
    "                  the newest --sm target, as nvcc -arch=sm_XY keeps compute_XY; about\n"
    "                  as large again as that target's cubins); 'none' for cubins only\n"
    "  --types L       built-in key types (default u32,u64,f32,f64); 'none' for only the\n"
    "                  spec file's keys\n"
    "  --orders L      asc, desc or asc,desc (default asc)\n"
    "  --values L      value sizes in bytes (default 0,4)\n"
    "  --primitives L  mergesort, merge, segsort, locality (default all four), reduce,\n"
    "                  scan, lbs (built once per key, without values: they take none),\n"
    "                  expand and move (the non-zero value sizes); lbs, expand and move\n"
    "                  take i32, i64; search and join (built once per key and order,\n"
    "                  without values), remove, insert (any key; built-in keys of one\n"
    "                  size share an entry), setops (any key, order and value size),\n"
    "                  select (any key, order and value size; without op it serves\n"
    "                  unique only: selections come from spec-file keys with op),\n"
    "                  segreduce (as reduce: built once per key, without values) and\n"
    "                  reducebykey (spec-file keys with a value_type only)\n"
    "  --spec F        custom key types and comparators (see below)\n"
    "  --tuning F      the tuning file whose tiles to build (default: none, built-in tiles)\n"
    "  --list F        print a bundle's entries (cubin sm_XY or PTX compute_XY) and check\n"
    "                  its index\n"
    "  -h, --help      show this help\n"
    "\n"
    "Spec file: blocks that start with a line '[key]', then 'name = value' lines ('#' starts\n"
    "a comment line):\n"
    "  type = u32             a built-in type, or\n"
    "  name = rec             a custom type: its C++ name, with\n"
    "  source = struct rec { unsigned long long hi, lo; };   (or source_file = rec.cuh,\n"
    "                         relative to the spec file), size = 16, align = 8\n"
    "  less = a.hi < b.hi     the comparator (required for custom types that are sorted)\n"
    "  op = max(a, b)         reduce and scan: the operator over a and b (default a + b,\n"
    "                         built-in types only), with\n"
    "  identity = 0           its identity (required with op)\n"
    "  op = a > 3             select: its selection operator over a (no identity)\n"
    "  value_type = float     reducebykey: the values' CUDA type, value_size its size (give\n"
    "                         values = 4 too); value_source = struct v {...}; defines a\n"
    "                         custom one (op and identity then combine values)\n"
    "  order = desc           for built-in types without 'less'\n"
    "  values = 0,8           and primitives = mergesort,segsort: override the lists above\n";

/* One key to build: a description without primitive and value size, and its own lists. */
typedef struct gen_key {
    mj_sort_desc desc;
    char *strings[8];  /* owned copies behind less, type_name, type_source, op, identity,
                          value_type, value_type_source */
    long values[MAX_LIST];
    int value_count;   /* 0: the command's list */
    mj_primitive prims[MJ_PRIMITIVE_COUNT];
    int prim_count;    /* 0: the command's list */
    int line;          /* where its block starts in the spec file */
} gen_key;

typedef struct gen_opts {
    const char *output, *spec, *tuning, *list;
    const char *types, *orders; /* built-in keys: --types x --orders */
    long sms[MAX_LIST];
    int sm_count;
    long ptx_sms[MAX_LIST];
    int ptx_count;
    int ptx_given;     /* --ptx was given; else PTX for the newest --sm target */
    long values[MAX_LIST];
    int value_count;
    mj_primitive prims[MJ_PRIMITIVE_COUNT];
    int prim_count;
    gen_key keys[MAX_KEYS];
    int key_count;
} gen_opts;

static char *dup_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    return d ? strcpy(d, s) : NULL;
}

static void free_keys(gen_opts *o)
{
    for (int i = 0; i < o->key_count; i++)
        for (int k = 0; k < 8; k++)
            free(o->keys[i].strings[k]);
}

/* Adds the built-in keys of --types x --orders. */
static int add_builtin(gen_opts *o, const char *types, const char *orders)
{
    if (strcmp(types, "none") == 0)
        return 0;
    char tl[256], ol[64];
    if (strlen(types) >= sizeof tl || strlen(orders) >= sizeof ol)
        return cli_usage_error(CMD, "--types or --orders is too long");
    strcpy(tl, types);
    for (char *s1 = NULL, *t = strtok_r(tl, ",", &s1); t; t = strtok_r(NULL, ",", &s1)) {
        mj_key_kind kind;
        if (cli_parse_builtin_kind(t, &kind) != 0)
            return cli_usage_error(CMD, "unknown key type '%s' (%s)", t, cli_builtin_kind_list());
        strcpy(ol, orders);
        for (char *s2 = NULL, *r = strtok_r(ol, ",", &s2); r; r = strtok_r(NULL, ",", &s2)) {
            mj_order order;
            if (cli_parse_order(r, &order) != 0)
                return cli_usage_error(CMD, "unknown order '%s' (asc, desc)", r);
            if (o->key_count == MAX_KEYS)
                return cli_usage_error(CMD, "more than %d key types", MAX_KEYS);
            gen_key *k = &o->keys[o->key_count++];
            memset(k, 0, sizeof *k);
            mj_sort_desc_init(&k->desc, kind, order);
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- the spec file */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Reads a file named relative to the spec file's directory. */
static char *read_beside(const char *spec, const char *name)
{
    char path[4096];
    const char *slash = strrchr(spec, '/');
    if (name[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - spec), spec, name);
    void *data;
    size_t size;
    if (cli_read_file(path, &data, &size) != 0)
        return NULL;
    char *text = realloc(data, size + 1);
    if (!text) {
        free(data);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* Sets one field of a spec block; -1 after printing the error. */
static int spec_field(gen_key *k, const char *file, int line, const char *name,
                      const char *value)
{
    mj_sort_desc *d = &k->desc;
    long num;
#define SPEC_ERR(...)                                                                       \
    (fprintf(stderr, "mergejit gen: %s, line %d: ", file, line),                            \
     fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), -1)
    if (strcmp(name, "type") == 0) {
        mj_key_kind kind;
        if (cli_parse_builtin_kind(value, &kind) != 0)
            return SPEC_ERR("unknown type '%s' (%s)", value, cli_builtin_kind_list());
        d->key = kind;
    } else if (strcmp(name, "order") == 0) {
        if (cli_parse_order(value, &d->order) != 0)
            return SPEC_ERR("order is asc or desc, not '%s'", value);
    } else if (strcmp(name, "size") == 0 || strcmp(name, "align") == 0) {
        if (cli_parse_int(value, 1, 4096, &num) != 0)
            return SPEC_ERR("%s takes 1 to 4096 bytes, not '%s'", name, value);
        *(name[0] == 's' ? &d->type_size : &d->type_align) = (size_t)num;
    } else if (strcmp(name, "values") == 0) {
        if ((k->value_count = cli_parse_int_list(value, 0, 64, k->values, MAX_LIST)) < 0)
            return SPEC_ERR("values takes a list of sizes from 0 to 64, not '%s'", value);
    } else if (strcmp(name, "primitives") == 0) {
        if ((k->prim_count = cli_parse_primitives(value, k->prims)) < 0)
            return SPEC_ERR("primitives takes %s, each once, not '%s'", cli_primitive_names(),
                            value);
    } else {
        int slot = strcmp(name, "less") == 0          ? 0
                   : strcmp(name, "name") == 0        ? 1
                   : strcmp(name, "source") == 0      ? 2
                   : strcmp(name, "source_file") == 0 ? 3
                   : strcmp(name, "op") == 0          ? 4
                   : strcmp(name, "identity") == 0    ? 5
                   : strcmp(name, "value_type") == 0  ? 6
                   : strcmp(name, "value_source") == 0 ? 7
                                                      : -1;
        if (slot < 0)
            return SPEC_ERR("unknown field '%s' (type, name, source, source_file, size, align, "
                            "less, order, op, identity, value_type, value_source, values, "
                            "primitives)", name);
        int at = slot == 3 ? 2 : slot;
        free(k->strings[at]);
        char *s = slot == 3 ? read_beside(file, value) : dup_str(value);
        k->strings[at] = s;
        if (!s)
            return slot == 3 ? -1 : SPEC_ERR("out of memory");
        if (slot == 0)
            d->less = s;
        else if (slot == 1)
            d->type_name = s;
        else if (at == 2)
            d->type_source = s;
        else if (slot == 4)
            d->op = s;
        else if (slot == 5)
            d->identity = s;
        else if (slot == 6)
            d->value_type = s;
        else
            d->value_type_source = s;
        if (at == 1 || at == 2)
            d->key = MJ_KEY_CUSTOM;
    }
    return 0;
#undef SPEC_ERR
}

static int read_spec(gen_opts *o, const char *file)
{
    void *data;
    size_t size;
    if (cli_read_file(file, &data, &size) != 0)
        return -1;
    char *text = realloc(data, size + 1);
    if (!text) {
        free(data);
        return cli_error("out of memory reading %s", file);
    }
    text[size] = '\0';
    gen_key *k = NULL;
    int line = 0, rc = 0;
    for (char *l = text, *next; l && rc == 0; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        line++;
        char *s = trim(l);
        if (*s == '\0' || *s == '#')
            continue;
        if (strcmp(s, "[key]") == 0) {
            if (o->key_count == MAX_KEYS) {
                rc = cli_error("%s: more than %d keys", file, MAX_KEYS);
                break;
            }
            k = &o->keys[o->key_count++];
            memset(k, 0, sizeof *k);
            mj_sort_desc_init(&k->desc, MJ_KEY_U32, MJ_ASCENDING);
            k->line = line;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!k || !eq) {
            fprintf(stderr, "mergejit gen: %s, line %d: expected %s\n", file, line,
                    k ? "'name = value'" : "'[key]' first");
            rc = -1;
            break;
        }
        *eq = '\0';
        rc = spec_field(k, file, line, trim(s), trim(eq + 1));
    }
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- listing */

static void print_entry(void *arg, const mj_bundle_info *e)
{
    size_t *n = arg;
    char bytes[32];
    char target[32];
    snprintf(target, sizeof target, "%s_%d", e->ptx ? "compute" : "sm", e->sm);
    printf("  %-11s %-5s %-9s %-24.24s key %2zu B value %2zu B  tile %4dx%-2d bs %4d  "
           "regs %3d spills %ld  %s\n",
           target, e->ptx ? "PTX" : "cubin", mj_primitive_name(e->primitive), e->label,
           e->key_size, e->value_size, e->nt, e->vt, e->bs_nt, e->registers, e->spill_bytes,
           cli_format_bytes(e->bytes, bytes, sizeof bytes));
    ++*n;
}

static int list_bundle(const char *path)
{
    char err[1024];
    size_t n = 0;
    printf("%s:\n", path);
    mj_status st = mj_bundle_list(path, print_entry, &n, err, sizeof err);
    if (st != MJ_OK)
        return cli_tool_error(st, "%s", err);
    printf("%zu entr%s, index intact\n", n, n == 1 ? "y" : "ies");
    return CLI_OK;
}

/* ---------------------------------------------------------------- building */

/* A list of targets for --sm or --ptx (prefix: "compute_", which --ptx's may have), or
 * "none". */
static int parse_targets(const char *opt, const char *prefix, const char *v, long *out,
                         int *count)
{
    char list[256], *save = NULL;
    snprintf(list, sizeof list, "%s", v);
    *count = 0;
    if (strcmp(v, "none") == 0)
        return CLI_OK;
    for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        int sm;
        if (prefix && strncmp(s, prefix, strlen(prefix)) == 0)
            s += strlen(prefix);
        if (*count == MAX_LIST || cli_parse_sm(s, &sm) != 0)
            return cli_usage_error(CMD, "%s takes targets like 75,80,90 or none, not '%s'", opt,
                                   v);
        out[(*count)++] = sm;
    }
    if (*count == 0)
        return cli_usage_error(CMD, "%s names no target", opt);
    return CLI_OK;
}

static int set_sm(void *opts, const char *v)
{
    gen_opts *o = opts;
    return parse_targets("--sm", NULL, v, o->sms, &o->sm_count);
}

static int set_ptx(void *opts, const char *v)
{
    gen_opts *o = opts;
    o->ptx_given = 1;
    return parse_targets("--ptx", "compute_", v, o->ptx_sms, &o->ptx_count);
}

static int set_values(void *opts, const char *v)
{
    gen_opts *o = opts;
    if ((o->value_count = cli_parse_int_list(v, 0, 64, o->values, MAX_LIST)) < 0)
        return cli_usage_error(CMD, "--values takes sizes from 0 to 64, not '%s'", v);
    return CLI_OK;
}

static int set_primitives(void *opts, const char *v)
{
    gen_opts *o = opts;
    if ((o->prim_count = cli_parse_primitives(v, o->prims)) < 0)
        return cli_usage_error(CMD, "--primitives takes %s, each once, not '%s'",
                               cli_primitive_names(), v);
    return CLI_OK;
}

static const cli_option options[] = {
    CLI_OPT_STRING("--output", "-o", gen_opts, output),
    CLI_OPT_STRING("--list", NULL, gen_opts, list),
    CLI_OPT_STRING("--spec", NULL, gen_opts, spec),
    CLI_OPT_STRING("--tuning", NULL, gen_opts, tuning),
    CLI_OPT_STRING("--types", NULL, gen_opts, types),
    CLI_OPT_STRING("--orders", NULL, gen_opts, orders),
    CLI_OPT_PARSED("--sm", set_sm),
    CLI_OPT_PARSED("--ptx", set_ptx),
    CLI_OPT_PARSED("--values", set_values),
    CLI_OPT_PARSED("--primitives", set_primitives),
    CLI_OPT_END,
};

static const cli_syntax syntax = {CMD, options, NULL, 0, 1};

/* 0, or -1 after printing why. */
static int parse_opts(int argc, char **argv, gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->types = "u32,u64,f32,f64";
    o->orders = "asc";
    o->sms[0] = 90;
    o->sm_count = 1;
    o->values[1] = 4;
    o->value_count = 2;
    for (int p = 0; p < MJ_REDUCE; p++) /* the sorts; reduce and scan when asked for */
        o->prims[o->prim_count++] = (mj_primitive)p;
    if (cli_parse_args(&syntax, argc, argv, o) != CLI_OK)
        return -1;
    if (o->list)
        return 0;
    if (!o->output)
        return cli_usage_error(CMD, "-o FILE (the bundle to write) is required");
    if (add_builtin(o, o->types, o->orders) != 0)
        return -1;
    if (o->spec && read_spec(o, o->spec) != 0)
        return -1;
    if (o->key_count == 0)
        return cli_usage_error(CMD, "no keys to build: --types none and no --spec");
    if (!o->ptx_given && o->sm_count > 0) { /* PTX for the newest cubin target */
        o->ptx_sms[0] = o->sms[0];
        for (int i = 1; i < o->sm_count; i++)
            if (o->sms[i] > o->ptx_sms[0])
                o->ptx_sms[0] = o->sms[i];
        o->ptx_count = 1;
    }
    if (o->sm_count == 0 && o->ptx_count == 0)
        return cli_usage_error(CMD, "no targets: --sm none and --ptx none");
    return 0;
}

/* Adds every entry of one target: cubins for sm_<sm>, or with ptx PTX for compute_<sm>. */
static int build_target(gen_opts *o, mj_bundle_builder *b, int sm, int ptx)
{
    mj_context_options opts;
    mj_context_options_init(&opts);
    opts.flags = MJ_CONTEXT_COMPILE_ONLY;
    opts.target_sm = sm;
    opts.tuning_file = o->tuning ? o->tuning : "";
    opts.bundle = "";
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(&opts, &ctx);
    if (st != MJ_OK) {
        int rc = cli_status_error(ctx, st);
        mj_context_destroy(ctx);
        return rc;
    }
    int rc = CLI_OK;
    for (int i = 0; i < o->key_count && rc == CLI_OK; i++) {
        gen_key *k = &o->keys[i];
        int np = k->prim_count ? k->prim_count : o->prim_count;
        int nv = k->value_count ? k->value_count : o->value_count;
        for (int p = 0; p < np && rc == CLI_OK; p++) {
            for (int v = 0; v < nv && rc == CLI_OK; v++) {
                mj_sort_desc d = k->desc;
                d.primitive = k->prim_count ? k->prims[p] : o->prims[p];
                d.value_size = (size_t)(k->value_count ? k->values[v] : o->values[v]);
                if (d.primitive != MJ_REDUCE_BY_KEY) /* the value type is reducebykey's */
                    d.value_type = d.value_type_source = NULL;
                mj_primitive_info info;
                mj_primitive_query(d.primitive, &info);
                if (info.values == MJ_VALUES_NONE) {
                    if (v > 0)
                        continue; /* no values: one entry */
                    d.value_size = 0;
                }
                if (info.values == MJ_VALUES_REQUIRED && d.value_size == 0)
                    continue; /* it moves values: only the non-zero sizes */
                size_t before = mj_bundle_builder_count(b);
                st = ptx ? mj_bundle_builder_add_ptx(b, ctx, &d)
                         : mj_bundle_builder_add(b, ctx, &d);
                if (st != MJ_OK) {
                    fprintf(stderr, "mergejit gen: %s: ", mj_status_name(st));
                    if (k->line)
                        fprintf(stderr, "%s, key at line %d: ", o->spec, k->line);
                    cli_put_one_line(stderr, mj_bundle_builder_last_error(b));
                    rc = CLI_FAILURE;
                } else if (mj_bundle_builder_count(b) > before) {
                    /* select's op is its predicate */
                    int op = info.op || (d.primitive == MJ_SELECT && d.op);
                    printf("  %s_%d %-9s %s%s%s, %zu-byte values\n", ptx ? "compute" : "sm",
                           sm, mj_primitive_name(d.primitive),
                           d.key == MJ_KEY_CUSTOM ? d.type_name : mj_key_kind_name(d.key),
                           op ? ": " : d.less ? " (custom order)" : d.order ? " desc" : "",
                           op ? (d.op ? d.op : "a + b") : "", d.value_size);
                    fflush(stdout);
                }
            }
        }
    }
    mj_context_destroy(ctx);
    return rc;
}

int cmd_gen(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    gen_opts *o = calloc(1, sizeof *o);
    if (!o)
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "out of host memory");
    int rc = parse_opts(argc, argv, o) != 0 ? CLI_USAGE : CLI_OK;
    if (rc == CLI_OK && !o->list && cli_check_output(o->output) != 0)
        rc = CLI_FAILURE;
    if (rc == CLI_OK && o->list) {
        rc = list_bundle(o->list);
    } else if (rc == CLI_OK) {
        mj_bundle_builder *b = NULL;
        if (mj_bundle_builder_create(&b) != MJ_OK) {
            rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "out of host memory");
        } else {
            for (int s = 0; s < o->sm_count && rc == CLI_OK; s++)
                rc = build_target(o, b, (int)o->sms[s], 0);
            for (int s = 0; s < o->ptx_count && rc == CLI_OK; s++)
                rc = build_target(o, b, (int)o->ptx_sms[s], 1);
            mj_status st = rc == CLI_OK ? mj_bundle_builder_write(b, o->output) : MJ_OK;
            if (st != MJ_OK) {
                fprintf(stderr, "mergejit: %s: ", mj_status_name(st));
                cli_put_one_line(stderr, mj_bundle_builder_last_error(b));
                rc = CLI_FAILURE;
            } else if (rc == CLI_OK) {
                printf("wrote %zu entr%s to %s\n", mj_bundle_builder_count(b),
                       mj_bundle_builder_count(b) == 1 ? "y" : "ies", o->output);
            }
            mj_bundle_builder_destroy(b);
        }
    }
    free_keys(o);
    free(o);
    return rc;
}
