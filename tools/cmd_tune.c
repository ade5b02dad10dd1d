/* `mergejit tune`: the autotuner. For each primitive, key size and value size it sweeps NT and
 * odd VT on the present GPU, compiling candidates on host threads while the GPU measures,
 * and writes the winners to the tuning file. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sysconf */

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "devmem.h"
#include "tune.h"

#define CMD "tune"

static const char usage[] =
    "Usage: mergejit tune [options]\n"
    "\n"
    "Finds the fastest tile (NT threads x VT keys each) on this GPU for each primitive, key\n"
    "size and value size: sweeps NT and odd VT from 1 up to the largest that fits shared\n"
    "memory, rejects tiles that spill registers (ptxas's report), compiles candidates on host\n"
    "threads while the GPU times the built ones on random input, checks every result, and\n"
    "writes the winners to the tuning file, which contexts on this device then read. The\n"
    "built-in default tile of each configuration is always measured too, and the table at the\n"
    "end compares the winner with it.\n"
    "\n"
    "Options:\n"
    "  --primitives L  comma-separated: mergesort, merge, segsort, locality\n"
    "                  (default mergesort,merge,segsort)\n"
    "  --keys L        key sizes in bytes: 4 (u32), 8 (u64), 16 (a struct of two u64)\n"
    "                  (default 4,8,16)\n"
    "  --values L      value sizes in bytes, 0 to 64 (default 0,4,8)\n"
    "  --nt L          thread counts (default 64,128,256,512; --quick 128,256)\n"
    "  --sizes L       input sizes as powers of two (default 24,26; --quick 22)\n"
    "  --reps R        timed runs per size, the median is taken (default 5; --quick 3)\n"
    "  --seglen L      segment length of the segmented sorts' input (default 1000)\n"
    "  --quick         a short sweep: VT within 4 of the default's, fewer sizes and runs\n"
    "  -o, --output F  the tuning file to update (default: $MERGEJIT_TUNING, else\n"
    "                  $XDG_CONFIG_HOME/mergejit/tuning, else ~/.config/mergejit/tuning)\n"
    "  --no-save       measure and report only\n"
    "  --json F        write every measured point as JSON\n"
    "  --plot F.svg    draw throughput against VT, a line per NT, a panel per configuration\n"
    "  --threads N     compiling threads (default: processors - 1)\n"
    "  --device N      CUDA device ordinal (default 0)\n"
    "  -h, --help      show this help\n"
    "\n"
    "Segmented sorts are timed on segments of --seglen keys; locality sorts on sorted keys\n"
    "with 0.1% of them swapped with a key at most 1000 places away.\n";

typedef struct tune_opts {
    tune_config configs[4 * 8 * 8];
    int config_count;
    int nts[8], nt_count;
    int log2_sizes[TUNE_MAX_SIZES], size_count;
    long reps, seglen;
    int quick, save, threads, device;
    const char *output, *json, *plot;
} tune_opts;

/* The command line as given, before the defaults that depend on --quick. */
typedef struct tune_args {
    const char *prims;
    long keys[3], values[8], nts[8], sizes[TUNE_MAX_SIZES];
    int nkeys, nvalues, nnt, nsizes; /* 0 for --nt and --sizes: the default */
    long reps;                       /* 0: the default */
    long seglen, threads, device;
    int quick, no_save;
    const char *output, *json, *plot;
} tune_args;

static int parse_list(const char *opt, const char *value, long lo, long hi, long *out, int cap)
{
    int n = cli_parse_int_list(value, lo, hi, out, cap);
    if (n < 0)
        cli_usage_error(CMD, "%s takes a comma-separated list of numbers from %ld to %ld, "
                             "not '%s'", opt, lo, hi, value);
    return n;
}

static int set_keys(void *opts, const char *v)
{
    tune_args *a = opts;
    if ((a->nkeys = parse_list("--keys", v, 4, 16, a->keys, 3)) < 0)
        return CLI_USAGE;
    for (int k = 0; k < a->nkeys; k++)
        if (a->keys[k] != 4 && a->keys[k] != 8 && a->keys[k] != 16)
            return cli_usage_error(CMD, "--keys takes 4, 8 and 16, not %ld", a->keys[k]);
    return CLI_OK;
}

static int set_values(void *opts, const char *v)
{
    tune_args *a = opts;
    return (a->nvalues = parse_list("--values", v, 0, 64, a->values, 8)) < 0 ? CLI_USAGE
                                                                             : CLI_OK;
}

static int set_nt(void *opts, const char *v)
{
    tune_args *a = opts;
    return (a->nnt = parse_list("--nt", v, 32, 1024, a->nts, 8)) < 0 ? CLI_USAGE : CLI_OK;
}

static int set_sizes(void *opts, const char *v)
{
    tune_args *a = opts;
    a->nsizes = parse_list("--sizes", v, 10, 30, a->sizes, TUNE_MAX_SIZES);
    return a->nsizes < 0 ? CLI_USAGE : CLI_OK;
}

static int set_reps(void *opts, const char *v)
{
    if (cli_parse_int(v, 1, 1000, &((tune_args *)opts)->reps) != 0)
        return cli_usage_error(CMD, "--reps takes 1 to 1000");
    return CLI_OK;
}

static int set_seglen(void *opts, const char *v)
{
    if (cli_parse_int(v, 1, 1L << 30, &((tune_args *)opts)->seglen) != 0)
        return cli_usage_error(CMD, "--seglen takes 1 to 2^30");
    return CLI_OK;
}

static int set_threads(void *opts, const char *v)
{
    if (cli_parse_int(v, 1, 256, &((tune_args *)opts)->threads) != 0)
        return cli_usage_error(CMD, "--threads takes 1 to 256");
    return CLI_OK;
}

static int set_device(void *opts, const char *v)
{
    if (cli_parse_int(v, 0, 1024, &((tune_args *)opts)->device) != 0)
        return cli_usage_error(CMD, "--device takes an ordinal");
    return CLI_OK;
}

static const cli_option options[] = {
    CLI_OPT_FLAG("--quick", tune_args, quick),
    CLI_OPT_FLAG("--no-save", tune_args, no_save),
    CLI_OPT_STRING("--primitives", NULL, tune_args, prims),
    CLI_OPT_PARSED("--keys", set_keys),
    CLI_OPT_PARSED("--values", set_values),
    CLI_OPT_PARSED("--nt", set_nt),
    CLI_OPT_PARSED("--sizes", set_sizes),
    CLI_OPT_PARSED("--reps", set_reps),
    CLI_OPT_PARSED("--seglen", set_seglen),
    CLI_OPT_PARSED("--threads", set_threads),
    CLI_OPT_PARSED("--device", set_device),
    CLI_OPT_STRING("--output", "-o", tune_args, output),
    CLI_OPT_STRING("--json", NULL, tune_args, json),
    CLI_OPT_STRING("--plot", NULL, tune_args, plot),
    CLI_OPT_END,
};

static const cli_syntax syntax = {CMD, options, NULL, 0, 1};

/* 0, or -1 after printing why. */
static int parse_opts(int argc, char **argv, tune_opts *o)
{
    tune_args a = {.prims = "mergesort,merge,segsort", .keys = {4, 8, 16}, .values = {0, 4, 8},
                   .nkeys = 3, .nvalues = 3, .seglen = 1000};
    if (cli_parse_args(&syntax, argc, argv, &a) != CLI_OK)
        return -1;
    memset(o, 0, sizeof *o);
    o->quick = a.quick;
    o->save = !a.no_save;
    o->seglen = a.seglen;
    o->threads = (int)a.threads;
    o->device = (int)a.device;
    o->output = a.output;
    o->json = a.json;
    o->plot = a.plot;
    if (a.nnt == 0) {
        static const long full[] = {64, 128, 256, 512}, quick[] = {128, 256};
        a.nnt = o->quick ? 2 : 4;
        memcpy(a.nts, o->quick ? quick : full, (size_t)a.nnt * sizeof *a.nts);
    }
    for (int k = 0; k < a.nnt; k++) {
        if (a.nts[k] & (a.nts[k] - 1))
            return cli_usage_error(CMD, "--nt takes powers of two, not %ld", a.nts[k]);
        o->nts[k] = (int)a.nts[k];
    }
    o->nt_count = a.nnt;
    if (a.nsizes == 0) {
        a.sizes[0] = o->quick ? 22 : 24;
        a.sizes[1] = 26;
        a.nsizes = o->quick ? 1 : 2;
    }
    for (int k = 0; k < a.nsizes; k++)
        o->log2_sizes[k] = (int)a.sizes[k];
    o->size_count = a.nsizes;
    o->reps = a.reps != 0 ? a.reps : o->quick ? 3 : 5;

    mj_primitive list[MJ_PRIMITIVE_COUNT];
    int nprims = cli_parse_primitives(a.prims, list);
    if (nprims < 0)
        return cli_usage_error(CMD, "--primitives takes mergesort, merge, segsort and "
                                    "locality, each once, not '%s'", a.prims);
    for (int p = 0; p < nprims; p++)
        for (int k = 0; k < a.nkeys; k++)
            for (int v = 0; v < a.nvalues; v++)
                o->configs[o->config_count++] =
                    (tune_config){list[p], (size_t)a.keys[k], (size_t)a.values[v]};
    return 0;
}

/* ---------------------------------------------------------------- descriptions and keys */

/* The key type the tuner measures for a key size: u32, u64, or a struct of two u64. */
static void key_desc(const tune_config *c, const tune_point *p, mj_sort_desc *d)
{
    mj_sort_desc_init(d, c->key_size == 4 ? MJ_KEY_U32 : MJ_KEY_U64, MJ_ASCENDING);
    if (c->key_size == 16) {
        d->key = MJ_KEY_CUSTOM;
        d->type_name = "k16";
        d->type_source = "struct k16 { unsigned long long hi, lo; };";
        d->type_size = 16;
        d->type_align = 8;
        d->less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
    }
    d->primitive = c->primitive;
    d->value_size = c->value_size;
    if (p) {
        d->nt = p->nt;
        d->vt = p->vt;
        d->bs_nt = p->bs_nt;
    }
}

/* Key i of a buffer of key_size-byte keys: the first word (hi for the struct) and the second
 * (0 for one-word keys). */
static void key_words(const unsigned char *k, size_t ks, size_t i, uint64_t *hi, uint64_t *lo)
{
    uint32_t w32;
    if (ks == 4) {
        memcpy(&w32, k + 4 * i, 4);
        *hi = w32;
        *lo = 0;
        return;
    }
    memcpy(hi, k + ks * i, 8);
    *lo = 0;
    if (ks == 16)
        memcpy(lo, k + 16 * i + 8, 8);
}

static void set_key(unsigned char *k, size_t ks, size_t i, uint64_t hi, uint64_t lo)
{
    uint32_t w32 = (uint32_t)hi;
    if (ks == 4) {
        memcpy(k + 4 * i, &w32, 4);
        return;
    }
    memcpy(k + ks * i, &hi, 8);
    if (ks == 16)
        memcpy(k + 16 * i + 8, &lo, 8);
}

/* The sum of every 64-bit word of the keys: a sort keeps it. */
static uint64_t key_sum(const unsigned char *k, size_t ks, size_t n)
{
    uint64_t sum = 0, hi, lo;
    for (size_t i = 0; i < n; i++) {
        key_words(k, ks, i, &hi, &lo);
        sum += hi * 0x9e3779b97f4a7c15ull + lo;
    }
    return sum;
}

/* ---------------------------------------------------------------- inputs on the device */

typedef struct inputs {
    size_t n, seglen;            /* seglen: segsort's segment length */
    void *src_keys, *src_values; /* the input as generated; sorts copy it into keys first */
    void *keys, *values;         /* the sorted (merged) result */
    void *offsets;               /* segsort: CSR offsets (uint32) */
    size_t offset_count;
    uint64_t sum;                /* key_sum of the input */
} inputs;

static void free_inputs(mj_context *ctx, inputs *in)
{
    mj_dev_free(ctx, in->src_keys);
    mj_dev_free(ctx, in->src_values);
    mj_dev_free(ctx, in->keys);
    mj_dev_free(ctx, in->values);
    mj_dev_free(ctx, in->offsets);
    memset(in, 0, sizeof *in);
}

/* Generates the primitive's input on the host and uploads it: random keys (mergesort,
 * segsort), two sorted runs (merge: the first and second half), or sorted keys with local
 * swaps (locality). Values are left as the allocator gives them: their bytes do not change
 * the work. */
static mj_status make_inputs(mj_context *ctx, const tune_config *c, size_t n, size_t seglen,
                             inputs *in)
{
    size_t ks = c->key_size;
    memset(in, 0, sizeof *in);
    in->n = n;
    in->seglen = seglen;
    unsigned char *h = malloc(n * ks);
    if (!h)
        return MJ_ERR_HOST_MEMORY;
    uint64_t s = 0x5eed + n + ks, run = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = kg_splitmix(&s);
        if (c->primitive == MJ_MERGE) {
            if (i == n / 2)
                run = 0;
            run += r % 4; /* sorted, with ties inside and across the runs */
            set_key(h, ks, i, run, r >> 40);
            if (ks == 16)
                set_key(h, ks, i, run, 0);
        } else if (c->primitive == MJ_LOCALITY_SORT) {
            set_key(h, ks, i, i, 0);
        } else {
            set_key(h, ks, i, ks == 4 ? r >> 32 : r, kg_splitmix(&s));
        }
    }
    if (c->primitive == MJ_LOCALITY_SORT) {
        unsigned char tmp[16];
        for (size_t k = 0; k < n / 1000; k++) {
            size_t i = (size_t)(kg_splitmix(&s) % n), j = i + (size_t)(kg_splitmix(&s) % 1000);
            j = j < n ? j : n - 1;
            memcpy(tmp, h + i * ks, ks);
            memcpy(h + i * ks, h + j * ks, ks);
            memcpy(h + j * ks, tmp, ks);
        }
    }
    in->sum = key_sum(h, ks, n);
    mj_status st = mj_dev_alloc(ctx, &in->src_keys, n * ks);
    if (!st)
        st = mj_dev_alloc(ctx, &in->keys, n * ks);
    if (!st)
        st = mj_dev_upload(ctx, in->src_keys, h, n * ks);
    if (!st && c->value_size) {
        st = mj_dev_alloc(ctx, &in->src_values, n * c->value_size);
        if (!st)
            st = mj_dev_alloc(ctx, &in->values, n * c->value_size);
    }
    free(h);
    if (!st && c->primitive == MJ_SEGMENTED_SORT) {
        in->offset_count = (n + seglen - 1) / seglen + 1;
        uint32_t *off = malloc(in->offset_count * sizeof *off);
        if (!off)
            st = MJ_ERR_HOST_MEMORY;
        for (size_t i = 0; off && i < in->offset_count; i++)
            off[i] = (uint32_t)(i * seglen < n ? i * seglen : n);
        if (!st)
            st = mj_dev_alloc(ctx, &in->offsets, in->offset_count * sizeof *off);
        if (!st)
            st = mj_dev_upload(ctx, in->offsets, off, in->offset_count * sizeof *off);
        free(off);
    }
    if (st)
        free_inputs(ctx, in);
    return st;
}

/* One timed run, for mj_dev_time. */
typedef struct run_job {
    const tune_config *c;
    mj_sorter *sorter;
    inputs *in;
    void *temp;
    size_t temp_bytes;
} run_job;

static mj_status run_once(void *arg)
{
    run_job *j = arg;
    inputs *in = j->in;
    size_t ks = j->c->key_size, vs = j->c->value_size, na = in->n / 2;
    if (j->c->primitive == MJ_MERGE)
        return mj_sorter_merge(j->sorter, in->src_keys, in->src_values, na,
                               (char *)in->src_keys + na * ks,
                               vs ? (char *)in->src_values + na * vs : NULL, in->n - na,
                               in->keys, in->values, j->temp, j->temp_bytes, NULL);
    if (j->c->primitive == MJ_SEGMENTED_SORT) {
        mj_segments seg = {MJ_SEGMENTS_OFFSETS, in->offsets, in->offset_count, 4};
        return mj_sorter_segmented_sort(j->sorter, in->keys, in->values, in->n, &seg, j->temp,
                                        j->temp_bytes, NULL);
    }
    return mj_sorter_sort(j->sorter, in->keys, in->values, in->n, j->temp, j->temp_bytes, NULL);
}

/* Restores the input of an in-place run (not timed). */
static mj_status restore(mj_context *ctx, const tune_config *c, inputs *in)
{
    if (c->primitive == MJ_MERGE)
        return MJ_OK;
    mj_status st = mj_dev_copy(ctx, in->keys, in->src_keys, in->n * c->key_size);
    if (!st && c->value_size)
        st = mj_dev_copy(ctx, in->values, in->src_values, in->n * c->value_size);
    return st;
}

/* Checks the result: ordered (within each segment) and the same keys (their sum). NULL when
 * right, else what is wrong. */
static const char *check_result(mj_context *ctx, const tune_config *c, inputs *in)
{
    size_t ks = c->key_size;
    unsigned char *h = malloc(in->n * ks);
    if (!h)
        return "no host memory to check the result";
    const char *bad = NULL;
    if (mj_dev_download(ctx, h, in->keys, in->n * ks) != MJ_OK)
        bad = "the result could not be read back";
    for (size_t i = 1; !bad && i < in->n; i++) {
        if (c->primitive == MJ_SEGMENTED_SORT && i % in->seglen == 0)
            continue;
        uint64_t ah, al, bh, bl;
        key_words(h, ks, i - 1, &ah, &al);
        key_words(h, ks, i, &bh, &bl);
        if (bh < ah || (bh == ah && bl < al))
            bad = "the result is out of order";
    }
    if (!bad && key_sum(h, ks, in->n) != in->sum)
        bad = "the result lost or changed keys";
    free(h);
    return bad;
}

/* ---------------------------------------------------------------- building on host threads */

enum { BUILD_WAITING, BUILD_RUNNING, BUILD_DONE };

typedef struct tuner {
    tune_opts *o;
    tune_point *points;
    size_t count;
    int *build;     /* BUILD_* per point */
    size_t next;    /* the next point a builder takes */
    pthread_mutex_t lock;
    pthread_cond_t done;
    int sm;
    const char *cache_dir;
} tuner;

static const tune_config *config_of(const tune_point *p, tune_config *c)
{
    *c = (tune_config){p->primitive, p->key_size, p->value_size};
    return c;
}

/* First line of a message, into a point's note. */
static void set_note(tune_point *p, const char *msg)
{
    size_t len = strcspn(msg, "\n");
    if (len >= sizeof p->note)
        len = sizeof p->note - 1;
    memcpy(p->note, msg, len);
    p->note[len] = '\0';
}

/* Marks point i rejected (under the lock). */
static void reject(tuner *t, size_t i, tune_outcome why, const char *msg)
{
    t->points[i].outcome = why;
    set_note(&t->points[i], msg);
    tune_skip_after(t->points, t->count, i);
}

/* A builder: compiles points into the disk cache in a compile-only context of its own (so its
 * error messages are its own) and reads ptxas's figures. */
static void *builder(void *arg)
{
    tuner *t = arg;
    mj_context_options opts;
    mj_context_options_init(&opts);
    opts.flags = MJ_CONTEXT_COMPILE_ONLY;
    opts.target_sm = t->sm;
    opts.cache_dir = t->cache_dir;
    opts.tuning_file = "";
    opts.bundle = "";
    mj_context *ctx = NULL;
    mj_status cst = mj_context_create(&opts, &ctx);
    for (;;) {
        pthread_mutex_lock(&t->lock);
        while (t->next < t->count && t->points[t->next].outcome != TUNE_PENDING) {
            t->build[t->next] = BUILD_DONE;
            t->next++;
        }
        if (t->next >= t->count) {
            pthread_cond_broadcast(&t->done);
            pthread_mutex_unlock(&t->lock);
            break;
        }
        size_t i = t->next++;
        t->build[i] = BUILD_RUNNING;
        tune_point p = t->points[i];
        pthread_mutex_unlock(&t->lock);

        tune_config c;
        mj_sort_desc d;
        key_desc(config_of(&p, &c), &p, &d);
        mj_sorter *s = NULL;
        mj_status st = cst ? cst : mj_sorter_create(ctx, &d, &s);
        int regs = -1;
        long spills = -1;
        if (!st)
            mj_sorter_resources(s, &regs, &spills);
        mj_sorter_destroy(s);

        pthread_mutex_lock(&t->lock);
        tune_point *q = &t->points[i];
        q->registers = regs;
        q->spill_bytes = spills;
        if (q->outcome == TUNE_PENDING) {
            if (st) {
                reject(t, i, TUNE_BUILD_FAILED, mj_context_last_error(ctx));
            } else if (spills > 0) {
                char msg[96];
                snprintf(msg, sizeof msg, "ptxas: %ld bytes of spill stores and loads", spills);
                reject(t, i, TUNE_SPILLS, msg);
            }
        }
        t->build[i] = BUILD_DONE;
        pthread_cond_broadcast(&t->done);
        pthread_mutex_unlock(&t->lock);
    }
    mj_context_destroy(ctx);
    return NULL;
}

/* ---------------------------------------------------------------- measuring */

typedef struct bench {
    mj_context *ctx;
    tune_opts *o;
    tune_config current;        /* the configuration the inputs are for */
    int have_inputs;
    inputs in[TUNE_MAX_SIZES];
    void *temp;
    size_t temp_bytes;
    float *times;
} bench;

/* Times point p on every size; NULL on success, else why it failed (p's outcome is then set
 * by the caller). */
static const char *measure(bench *b, const tune_config *c, tune_point *p, char *why, size_t cap)
{
    mj_sort_desc d;
    key_desc(c, p, &d);
    mj_sorter *s = NULL;
    mj_status st = mj_sorter_create(b->ctx, &d, &s);
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        return why;
    }
    double log_sum = 0;
    for (int k = 0; k < b->o->size_count && !st; k++) {
        inputs *in = &b->in[k];
        size_t need = 0;
        if ((st = mj_sorter_temp_size(s, in->n, 0, &need)))
            break;
        if (need > b->temp_bytes) {
            mj_dev_free(b->ctx, b->temp);
            b->temp = NULL;
            b->temp_bytes = 0;
            if ((st = mj_dev_alloc(b->ctx, &b->temp, need)))
                break;
            b->temp_bytes = need;
        }
        run_job job = {c, s, in, b->temp, b->temp_bytes};
        for (long r = 0; r < b->o->reps && !st; r++) {
            if (!(st = restore(b->ctx, c, in)))
                st = mj_dev_time(b->ctx, run_once, &job, &b->times[r]);
            if (!st && r == 0 && k == 0) {
                const char *bad = check_result(b->ctx, c, in);
                if (bad) {
                    mj_sorter_destroy(s);
                    snprintf(why, cap, "%s", bad);
                    return why;
                }
            }
        }
        if (st)
            break;
        cli_sort_floats(b->times, (size_t)b->o->reps);
        double ms = b->times[b->o->reps / 2];
        p->gkeys[k] = ms > 0 ? (double)in->n / (ms * 1e6) : 0;
        log_sum += log(p->gkeys[k] > 0 ? p->gkeys[k] : 1e-9);
    }
    mj_sorter_destroy(s);
    if (st) {
        snprintf(why, cap, "%s", mj_context_last_error(b->ctx));
        return why;
    }
    p->score = exp(log_sum / b->o->size_count);
    return NULL;
}

/* Makes the inputs of configuration c current. */
static mj_status use_config(bench *b, const tune_config *c)
{
    if (b->have_inputs && b->current.primitive == c->primitive &&
        b->current.key_size == c->key_size && b->current.value_size == c->value_size)
        return MJ_OK;
    for (int k = 0; k < b->o->size_count; k++)
        free_inputs(b->ctx, &b->in[k]);
    b->have_inputs = 0;
    for (int k = 0; k < b->o->size_count; k++) {
        mj_status st = make_inputs(b->ctx, c, (size_t)1 << b->o->log2_sizes[k],
                                     (size_t)b->o->seglen, &b->in[k]);
        if (st)
            return st;
    }
    b->current = *c;
    b->have_inputs = 1;
    return MJ_OK;
}

/* ---------------------------------------------------------------- the run */

/* Prints the winners against the defaults and fills tiles with each configuration's winner;
 * returns how many. */
static size_t summarize(const tune_opts *o, const tune_point *pts, size_t count, mj_tile *tiles)
{
    size_t n = 0;
    printf("\n%-10s %4s %5s  %-12s %8s  %-12s %8s  %s\n", "primitive", "key", "value",
           "default", "Gkeys/s", "tuned", "Gkeys/s", "tuned/default");
    for (int ci = 0; ci < o->config_count; ci++) {
        const tune_config *c = &o->configs[ci];
        const tune_point *def = NULL, *best = NULL;
        for (size_t i = 0; i < count; i++) {
            const tune_point *p = &pts[i];
            if (p->primitive != c->primitive || p->key_size != c->key_size ||
                p->value_size != c->value_size)
                continue;
            if (p->is_default)
                def = p;
            if (p->outcome == TUNE_MEASURED && (!best || p->score > best->score))
                best = p;
        }
        char dt[32] = "-", bt[32] = "-";
        if (def)
            snprintf(dt, sizeof dt, "%dx%dx%d", def->nt, def->vt, def->bs_nt);
        if (best)
            snprintf(bt, sizeof bt, "%dx%dx%d", best->nt, best->vt, best->bs_nt);
        double ds = def && def->outcome == TUNE_MEASURED ? def->score : 0;
        printf("%-10s %4zu %5zu  %-12s %8.2f  %-12s %8.2f  ", mj_primitive_name(c->primitive),
               c->key_size, c->value_size, dt, ds, bt, best ? best->score : 0);
        if (best && ds > 0)
            printf("%.3f\n", best->score / ds);
        else
            printf("%s\n", best ? "(default not measured)" : "(nothing measured)");
        if (best)
            tiles[n++] = (mj_tile){c->primitive, c->key_size, c->value_size, best->nt,
                                   best->vt, best->bs_nt, best->score, 1};
    }
    return n;
}

static size_t plan_all(mj_context *ctx, const tune_opts *o, tune_point *out)
{
    size_t n = 0;
    for (int ci = 0; ci < o->config_count; ci++) {
        const tune_config *c = &o->configs[ci];
        mj_tile def;
        mj_context_tile(ctx, c->primitive, c->key_size, c->value_size, &def);
        n += tune_plan(c, o->nts, o->nt_count, o->quick, &def, out ? out + n : NULL,
                       out ? (size_t)-1 : 0);
    }
    return n;
}

int cmd_tune(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    tune_opts o;
    if (parse_opts(argc, argv, &o) != 0)
        return CLI_USAGE;

    /* The baseline is the built-in defaults: no tuning file, no bundle. */
    mj_context_options opts;
    mj_context_options_init(&opts);
    opts.device = o.device;
    opts.tuning_file = "";
    opts.bundle = "";
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(&opts, &ctx);
    if (st != MJ_OK) {
        int rc = cli_status_error(ctx, st);
        mj_context_destroy(ctx);
        return rc;
    }
    if (!mj_context_cache_dir(ctx)[0]) {
        mj_context_destroy(ctx);
        return cli_error("tune needs the disk cache: its compiling threads hand the kernels "
                         "over through it");
    }

    size_t count = plan_all(ctx, &o, NULL);
    tuner t = {.o = &o, .count = count, .sm = mj_context_target_sm(ctx),
               .cache_dir = mj_context_cache_dir(ctx)};
    t.points = calloc(count, sizeof *t.points);
    t.build = calloc(count, sizeof *t.build);
    bench b = {.ctx = ctx, .o = &o};
    b.times = calloc((size_t)o.reps, sizeof *b.times);
    mj_tile *tiles = calloc((size_t)o.config_count, sizeof *tiles);
    int rc = CLI_OK;
    if (!t.points || !t.build || !b.times || !tiles) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "no host memory for %zu points", count);
        goto done;
    }
    plan_all(ctx, &o, t.points);
    printf("tuning on %s (sm_%d): %d configuration%s, %zu candidate tiles, sizes",
           mj_context_device_name(ctx), t.sm, o.config_count, o.config_count == 1 ? "" : "s",
           count);
    for (int k = 0; k < o.size_count; k++)
        printf(" 2^%d", o.log2_sizes[k]);
    printf(", %ld runs each", o.reps);
    for (int k = 0; k < o.config_count; k++)
        if (o.configs[k].primitive == MJ_SEGMENTED_SORT) {
            printf("; segments of %ld", o.seglen);
            break;
        }
    printf("\n");
    fflush(stdout);

    int threads = o.threads;
    if (threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 2 ? (int)cpus - 1 : 1;
    }
    pthread_mutex_init(&t.lock, NULL);
    pthread_cond_init(&t.done, NULL);
    pthread_t *workers = calloc((size_t)threads, sizeof *workers);
    int started = 0;
    while (workers && started < threads &&
           pthread_create(&workers[started], NULL, builder, &t) == 0)
        started++;
    if (started == 0) {
        rc = cli_error("cannot start a compiling thread");
        free(workers);
        goto destroy_sync;
    }

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t measured = 0;
    for (size_t i = 0; i < count; i++) {
        pthread_mutex_lock(&t.lock);
        while (t.build[i] != BUILD_DONE && t.points[i].outcome == TUNE_PENDING)
            pthread_cond_wait(&t.done, &t.lock);
        int go = t.points[i].outcome == TUNE_PENDING;
        tune_point p = t.points[i];
        pthread_mutex_unlock(&t.lock);

        tune_config c;
        config_of(&p, &c);
        char label[64], why[512];
        snprintf(label, sizeof label, "%s k%zu v%zu %dx%d", mj_primitive_name(c.primitive),
                 c.key_size, c.value_size, p.nt, p.vt);
        if (go) {
            if ((st = use_config(&b, &c)) != MJ_OK) {
                rc = cli_status_error(ctx, st);
                break;
            }
            const char *bad = measure(&b, &c, &p, why, sizeof why);
            pthread_mutex_lock(&t.lock);
            if (bad) {
                reject(&t, i, TUNE_RUN_FAILED, bad);
            } else {
                memcpy(t.points[i].gkeys, p.gkeys, sizeof p.gkeys);
                t.points[i].score = p.score;
                t.points[i].outcome = TUNE_MEASURED;
                measured++;
            }
            pthread_mutex_unlock(&t.lock);
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        tune_progress(stderr, i + 1, count,
                      (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec),
                      label);
    }
    /* Stop the builders: nothing is left for them to take. */
    pthread_mutex_lock(&t.lock);
    t.next = count;
    pthread_mutex_unlock(&t.lock);
    for (int k = 0; k < started; k++)
        pthread_join(workers[k], NULL);
    free(workers);
    if (rc != CLI_OK)
        goto destroy_sync;

    size_t winners = summarize(&o, t.points, count, tiles);
    printf("%zu of %zu candidates measured\n", measured, count);
    tune_run_info info = {mj_context_device_name(ctx), t.sm, o.size_count, {0}, (int)o.reps,
                          o.quick, mj_version()};
    memcpy(info.log2_sizes, o.log2_sizes, sizeof info.log2_sizes);
    if (o.json && tune_write_json(o.json, &info, t.points, count) != 0)
        rc = CLI_FAILURE;
    if (o.plot && tune_write_svg(o.plot, &info, t.points, count) != 0)
        rc = CLI_FAILURE;
    if (o.save && winners > 0) {
        if ((st = mj_tuning_save(ctx, o.output, tiles, winners)) != MJ_OK) {
            rc = cli_status_error(ctx, st);
        } else {
            mj_context_options check;
            mj_context_options_init(&check);
            check.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE;
            check.target_sm = t.sm;
            check.tuning_file = o.output;
            mj_context *reread = NULL;
            /* Read it back the way a context will, so a bad write shows here. */
            st = mj_context_create(&check, &reread);
            if (st)
                rc = cli_status_error(reread, st);
            else
                printf("wrote %zu tile%s to %s\n", winners, winners == 1 ? "" : "s",
                       mj_context_tuning_file(reread));
            mj_context_destroy(reread);
        }
    }
    if (winners < (size_t)o.config_count && rc == CLI_OK)
        rc = cli_error("%zu configuration%s had no tile that built and ran",
                       (size_t)o.config_count - winners,
                       o.config_count - (int)winners == 1 ? "" : "s");

destroy_sync:
    pthread_cond_destroy(&t.done);
    pthread_mutex_destroy(&t.lock);
done:
    for (int k = 0; k < TUNE_MAX_SIZES; k++)
        free_inputs(ctx, &b.in[k]);
    mj_dev_free(ctx, b.temp);
    free(b.times);
    free(tiles);
    free(t.points);
    free(t.build);
    mj_context_destroy(ctx);
    return rc;
}
