/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit tune`: the autotuner. For each primitive, key size and value size it sweeps NT and
 * odd VT on the present GPU, compiling candidates on host threads while the GPU measures,
 * and writes the winners to the tuning file. */
#define _POSIX_C_SOURCE 200809L /* sysconf, setenv */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tune.h"
#include "tune_run.h"

#define CMD "tune"

static const char usage[] =
    "Usage: mergejit tune [options]\n"
    "\n"
    "Finds the fastest tile (NT threads x VT keys each) on this GPU for each primitive, key\n"
    "size and value size: sweeps NT and odd VT from 1 up to the largest that fits shared\n"
    "memory, rejects tiles that spill registers (ptxas's report), compiles candidates on host\n"
    "threads (the NTs in turn, each in VT order) while the GPU times the built ones on random\n"
    "input, checks every result on threads of its own, and writes the winners to the tuning\n"
    "file, which contexts on this device then read. The built-in default tile of each\n"
    "configuration is always measured too, and the table at the end compares the winner with\n"
    "it. Each mergesort winner is also timed with 2-way passes only and with 4-way ones on\n"
    "2^20 to 2^28 bytes of keys and values (prefixes of the inputs) and the size from which\n"
    "4-way passes were faster at every larger size is saved with its tile (mj_tile's\n"
    "merge4_log2; none where they never led: the built-in 2^25 stays).\n"
    "On stderr it says how many candidates it built, how many NVRTC programs that\n"
    "compiled (kernels that tiles share, such as the partitions, compile once), and where\n"
    "the sweep's time went.\n"
    "\n"
    "Options:\n"
    "  --primitives L  comma-separated: mergesort, merge, segsort, locality, reduce,\n"
    "                  scan (reduce and scan: sums, no values), lbs (no values), expand\n"
    "                  and move (non-zero values); lbs, expand and move: keys 4 and 8\n"
    "                  only (i32, i64 offsets; 16 is skipped); search (the lower bounds of\n"
    "                  the first half of sorted keys in the second, no values); remove\n"
    "                  (every fourth element) and insert (n / 4 elements into the rest),\n"
    "                  timed per source element; setops (the union of the two sorted\n"
    "                  halves); segreduce (sums of segments of --seglen, no values);\n"
    "                  reducebykey (runs of mean length 4, values 4 and 8 only: their\n"
    "                  sums); select (the keys whose lowest bit is 0: about half); join\n"
    "                  (the inner join of the two sorted halves, 4-byte rows, no values)\n"
    "                  (default mergesort,merge,segsort)\n"
    "  --keys L        key sizes in bytes: 4 (u32), 8 (u64), 16 (a struct of two u64)\n"
    "                  (default 4,8,16)\n"
    "  --values L      value sizes in bytes, 0 to 64 (default 0,4,8)\n"
    "  --nt L          thread counts (default 64,128,256,512; --quick 128,256)\n"
    "  --sizes L       input sizes as powers of two (default 24,26; --quick 22)\n"
    "  --reps R        timed runs per size, the median is taken (default 5; --quick 3)\n"
    "  --seglen L      segment length of the segmented sorts' and the segmented reduce's\n"
    "                  input (default 1000)\n"
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
    "Segmented sorts and the segmented reduce are timed on segments of --seglen keys;\n"
    "locality sorts on sorted keys with 0.1% of them swapped with a key at most 1000\n"
    "places away.\n";

/* The command line as given, before the defaults that depend on --quick. */
typedef struct tune_args {
    const char *prims;
    long keys[3], values[8], nts[8], sizes[TUNE_MAX_SIZES];
    int nkeys, nvalues, nnt, nsizes; /* 0 for --nt and --sizes: the default */
    long reps;                       /* 0: the default */
    long seglen, threads;
    int device;
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
    CLI_OPT_DEVICE(tune_args, device),
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
    o->device = a.device;
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
        return cli_usage_error(CMD, "--primitives takes %s, each once, not '%s'",
                               cli_primitive_names(), a.prims);
    for (int p = 0; p < nprims; p++) {
        mj_primitive_info info;
        mj_primitive_query(list[p], &info);
        for (int k = 0; k < a.nkeys; k++) {
            /* Offsets and indices: i32 and i64 only. */
            if (info.index_keys && a.keys[k] != 4 && a.keys[k] != 8)
                continue;
            /* No values: one configuration per key size. */
            if (info.values == MJ_VALUES_NONE) {
                o->configs[o->config_count++] = (tune_config){list[p], (size_t)a.keys[k], 0};
                continue;
            }
            for (int v = 0; v < a.nvalues; v++) {
                if (info.values == MJ_VALUES_REQUIRED && a.values[v] == 0)
                    continue; /* it moves values */
                /* Reduce by key sums its values: u32 or u64. */
                if (list[p] == MJ_REDUCE_BY_KEY && a.values[v] != 4 && a.values[v] != 8)
                    continue;
                o->configs[o->config_count++] =
                    (tune_config){list[p], (size_t)a.keys[k], (size_t)a.values[v]};
            }
        }
    }
    if (o->config_count == 0)
        return cli_usage_error(CMD, "nothing to tune: lbs, expand and move take keys 4 and 8, "
                                    "and expand, move and reducebykey values (reducebykey "
                                    "values of 4 or 8 bytes)");
    return 0;
}

/* ---------------------------------------------------------------- the run */

static int of_config_c(const tune_config *a, const tune_config *c)
{
    return a->primitive == c->primitive && a->key_size == c->key_size &&
           a->value_size == c->value_size;
}

static int of_config(const tune_point *p, const tune_config *c)
{
    tune_config pc;
    return of_config_c(tune_config_of(p, &pc), c);
}

/* Configuration c's measured point with the best score, or NULL; its default point in *def
 * (NULL when none). */
static const tune_point *winner_of(const tune_point *pts, size_t count, const tune_config *c,
                                   const tune_point **def)
{
    const tune_point *best = NULL;
    *def = NULL;
    for (size_t i = 0; i < count; i++) {
        const tune_point *p = &pts[i];
        if (!of_config(p, c))
            continue;
        if (p->is_default)
            *def = p;
        if (p->outcome == TUNE_MEASURED && (!best || p->score > best->score))
            best = p;
    }
    return best;
}

/* Prints the winners against the defaults and fills tiles with each configuration's winner
 * (mergesort's with its 4-way threshold from xs); returns how many. */
static size_t summarize(const tune_opts *o, const tune_point *pts, size_t count,
                        const tune_crossing *xs, mj_tile *tiles)
{
    size_t n = 0;
    printf("\n%-10s %4s %5s  %-12s %8s  %-12s %8s  %s\n", "primitive", "key", "value",
           "default", "Gkeys/s", "tuned", "Gkeys/s", "tuned/default");
    for (int ci = 0; ci < o->config_count; ci++) {
        const tune_config *c = &o->configs[ci];
        const tune_point *def = NULL, *best = winner_of(pts, count, c, &def);
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
                                   best->vt, best->bs_nt, best->score, 1,
                                   xs[ci].merge4_log2};
    }
    return n;
}

/* A line for each mergesort configuration with a winner: its 4-way threshold as the sweep
 * measured it (xs), and the winner's speed with 2-way and with 4-way passes at each size. */
static void print_crossings(const tune_opts *o, const tune_point *pts, size_t count,
                            const tune_crossing *xs)
{
    for (int ci = 0; ci < o->config_count; ci++) {
        const tune_config *c = &o->configs[ci];
        const tune_point *def, *best = winner_of(pts, count, c, &def);
        const tune_crossing *x = &xs[ci];
        if (c->primitive != MJ_MERGESORT || !best)
            continue;
        printf("mergesort k%zu v%zu %dx%dx%d: ", c->key_size, c->value_size, best->nt, best->vt,
               best->bs_nt);
        if (x->count == 0) {
            printf("4-way threshold not measured (the inputs hold less than 2^%d bytes); the "
                   "built-in rule stays\n", TUNE_CROSS_FIRST);
            continue;
        }
        if (x->merge4_log2)
            printf("4-way passes from 2^%d bytes (built-in: 2^25);", x->merge4_log2);
        else
            printf("4-way passes never ahead at the largest size measured; the built-in rule "
                   "stays;");
        printf(" Gkeys/s 2-way/4-way at");
        for (int i = 0; i < x->count; i++)
            printf(" 2^%d %.2f/%.2f", x->log2[i], x->gkeys2[i], x->gkeys4[i]);
        printf("\n");
    }
    fflush(stdout);
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

/* The baseline context: the built-in defaults (no tuning file, no bundle) on the device.
 * NULL after printing why. */
static mj_context *open_device(const tune_opts *o, int *rc)
{
    mj_context_options opts;
    mj_context_options_init(&opts);
    opts.device = o->device;
    opts.tuning_file = "";
    opts.bundle = "";
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(&opts, &ctx);
    if (st != MJ_OK) {
        *rc = cli_status_error(ctx, st);
        mj_context_destroy(ctx);
        return NULL;
    }
    if (!mj_context_cache_dir(ctx)[0]) {
        mj_context_destroy(ctx);
        *rc = cli_error("tune needs the disk cache: its compiling threads hand the kernels "
                        "over through it");
        return NULL;
    }
    return ctx;
}

static void print_plan(mj_context *ctx, const tune_opts *o, int sm, size_t count)
{
    printf("tuning on %s (sm_%d): %d configuration%s, %zu candidate tiles, sizes",
           mj_context_device_name(ctx), sm, o->config_count, o->config_count == 1 ? "" : "s",
           count);
    for (int k = 0; k < o->size_count; k++)
        printf(" 2^%d", o->log2_sizes[k]);
    printf(", %ld runs each", o->reps);
    for (int k = 0; k < o->config_count; k++)
        if (o->configs[k].primitive == MJ_SEGMENTED_SORT ||
            o->configs[k].primitive == MJ_SEGMENTED_REDUCE) {
            printf("; segments of %ld", o->seglen);
            break;
        }
    printf("\n");
    fflush(stdout);
}

/* Checking threads beside the measuring one, and output slots (one being read back while the
 * others are checked). Two, since a check of 2^24 keys can take longer than timing a merge. */
enum { CHECK_THREADS = 2, CHECK_SLOTS = CHECK_THREADS + 1 };

/* The verdict of point i's check, on a checking thread: the point is measured, unless its check
 * failed (rejected, which skips the rest of its lane as before) or an earlier point of its lane
 * was rejected meanwhile (then it was skipped, and its timings are dropped). */
static void take_verdict(void *arg, size_t i, const char *bad)
{
    tuner *t = arg;
    pthread_mutex_lock(&t->lock);
    tune_point *p = &t->points[i];
    if (p->outcome == TUNE_PENDING) {
        if (bad) {
            tune_reject(t, i, TUNE_RUN_FAILED, bad);
        } else {
            memcpy(p->gkeys, t->timed[i].gkeys, sizeof p->gkeys);
            p->score = t->timed[i].score;
            p->outcome = TUNE_MEASURED;
            t->measured++;
        }
    }
    pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&t->lock);
}

/* Where the measuring loop stands: which points it has dealt with (measured, or found ruled
 * out), and each point's lane predecessor (the point planned before it with its configuration
 * and NT; count when none), which it must have dealt with first. */
typedef struct sweep {
    unsigned char *dealt;
    size_t *before;
    size_t cursor;  /* in t->order: every point before it is dealt with */
    size_t dealt_count;
} sweep;

/* Under the lock: deals with the points ruled out, moves the cursor past those dealt with, and
 * returns the first point of the cursor's configuration, in the tuner's order, whose build is
 * done and whose lane predecessor is dealt with; t->count when none is (or all are dealt
 * with). Points of other configurations wait: their inputs are others. */
static size_t next_ready(const tuner *t, sweep *w)
{
    for (;;) {
        while (w->cursor < t->count && w->dealt[t->order[w->cursor]])
            w->cursor++;
        if (w->cursor >= t->count)
            return t->count;
        size_t at = w->cursor;
        tune_config c;
        tune_config_of(&t->points[t->order[at]], &c);
        for (size_t k = at; k < t->count && of_config(&t->points[t->order[k]], &c); k++) {
            size_t i = t->order[k];
            if (w->dealt[i])
                continue;
            if (t->points[i].outcome != TUNE_PENDING) {
                w->dealt[i] = 1;
                w->dealt_count++;
            } else if (t->build[i] == BUILD_DONE &&
                       (w->before[i] == t->count || w->dealt[w->before[i]])) {
                return i;
            }
        }
        while (w->cursor < t->count && w->dealt[t->order[w->cursor]])
            w->cursor++;
        if (w->cursor == at)
            return t->count; /* the configuration waits for a build */
    }
}

/* Prints where the sweep's time went. */
static void print_split(const tuner *t, const tune_bench *b, int builders, double swept,
                        double waited)
{
    double checking, check_wait;
    tune_checker_times(b->checker, &checking, &check_wait);
    const tune_spent *u = &b->spent;
    fprintf(stderr, "built %zu candidates on %d threads (%zu NVRTC programs compiled, the rest "
            "from the cache), %zu of them ruled out while building\n",
            t->built, builders, t->programs, t->built_late);
    fprintf(stderr,
            "swept in %.1f s, %.1f s of it waiting for compiles, %.1f s timing (%.1f s of it "
            "on the GPU), %.1f s creating sorters, %.1f s reading results back, %.1f s making "
            "inputs, %.1f s waiting for checks; the checks took %.1f s on %d threads beside it\n",
            swept, waited, u->timing, u->gpu, u->create, u->readback, u->inputs, check_wait,
            checking, CHECK_THREADS);
}

/* The 4-way threshold of the configuration whose inputs are current (b->current), when it is a
 * mergesort with a winner, into its entry of xs (tune_crossover on those inputs): called as
 * the measuring loop leaves a configuration, once every check of its points has its verdict.
 * CLI_OK, or the failure that stopped it. */
static int threshold_of_current(tuner *t, tune_bench *b, tune_crossing *xs)
{
    const tune_opts *o = t->o;
    int ci = 0;
    while (ci < o->config_count && !of_config_c(&o->configs[ci], &b->current))
        ci++;
    if (ci == o->config_count || b->current.primitive != MJ_MERGESORT)
        return CLI_OK;
    pthread_mutex_lock(&t->lock);
    const tune_point *def, *best = winner_of(t->points, t->count, &b->current, &def);
    tune_point winner = best ? *best : (tune_point){0};
    pthread_mutex_unlock(&t->lock);
    if (!best)
        return CLI_OK;
    char why[512];
    if (tune_crossover(b, &b->current, &winner, &xs[ci], why, sizeof why))
        return cli_error("the 4-way threshold of mergesort k%zu v%zu: %s", b->current.key_size,
                         b->current.value_size, why);
    return CLI_OK;
}

/* Measures every point as its build ends, in the tuner's order but for points whose lane
 * waits for a build, with a progress line; the checks' verdicts decide which are measured.
 * CLI_OK, or the failure that stopped it. */
static int measure_all(tuner *t, tune_bench *b, int builders, tune_crossing *xs)
{
    double t0 = tune_now_s();
    double waited = 0; /* for the builders: the sweep is bound by compiling while it grows */
    sweep w = {calloc(t->count + 1, 1), calloc(t->count + 1, sizeof *w.before), 0, 0};
    if (!w.dealt || !w.before) {
        free(w.dealt);
        free(w.before);
        return cli_tool_error(MJ_ERR_HOST_MEMORY, "no host memory for %zu points", t->count);
    }
    for (size_t i = 0; i < t->count; i++) {
        tune_config c;
        tune_config_of(&t->points[i], &c);
        w.before[i] = t->count;
        for (size_t j = i; j-- > 0 && of_config(&t->points[j], &c);)
            if (t->points[j].nt == t->points[i].nt) {
                w.before[i] = j;
                break;
            }
    }
    int rc = CLI_OK;
    char label[64] = "", why[512];
    pthread_mutex_lock(&t->lock);
    for (;;) {
        size_t i = next_ready(t, &w);
        if (w.cursor >= t->count)
            break;
        tune_config c;
        tune_config_of(&t->points[t->order[w.cursor]], &c);
        if (!b->have_inputs || !of_config(&t->points[t->order[w.cursor]], &b->current)) {
            /* New inputs while the configuration's first builds run, and the next
             * configuration's generated while this one is timed. */
            tune_config next;
            size_t k = w.cursor;
            while (k < t->count && of_config(&t->points[t->order[k]], &c))
                k++;
            if (k < t->count)
                tune_config_of(&t->points[t->order[k]], &next);
            pthread_mutex_unlock(&t->lock);
            /* The configuration left behind: its 4-way threshold on its inputs, once its checks
             * have their verdicts. */
            if (b->have_inputs) {
                tune_checker_drain(b->checker);
                rc = threshold_of_current(t, b, xs);
            }
            mj_status st = rc == CLI_OK ? tune_use_config(b, &c, k < t->count ? &next : NULL)
                                        : MJ_OK;
            pthread_mutex_lock(&t->lock);
            if (rc != CLI_OK)
                break;
            if (st != MJ_OK) {
                rc = cli_status_error(b->ctx, st);
                break;
            }
            continue;
        }
        if (i == t->count) {
            double w0 = tune_now_s();
            pthread_cond_wait(&t->done, &t->lock);
            waited += tune_now_s() - w0;
            continue;
        }
        t->timed[i] = t->points[i];
        pthread_mutex_unlock(&t->lock);
        snprintf(label, sizeof label, "%s k%zu v%zu %dx%d", mj_primitive_name(c.primitive),
                 c.key_size, c.value_size, t->timed[i].nt, t->timed[i].vt);
        const char *bad = tune_measure(b, &c, i, &t->timed[i], why, sizeof why);
        pthread_mutex_lock(&t->lock);
        w.dealt[i] = 1;
        w.dealt_count++;
        if (bad && t->points[i].outcome == TUNE_PENDING)
            tune_reject(t, i, TUNE_RUN_FAILED, bad);
        if (w.dealt_count < t->count)
            tune_progress(stderr, w.dealt_count, t->count, tune_now_s() - t0, label);
    }
    pthread_mutex_unlock(&t->lock);
    tune_checker_drain(b->checker); /* the last verdicts */
    if (rc == CLI_OK && b->have_inputs)
        rc = threshold_of_current(t, b, xs);
    if (rc == CLI_OK) {
        tune_progress(stderr, t->count, t->count, tune_now_s() - t0, label);
        print_split(t, b, builders, tune_now_s() - t0, waited);
    }
    free(w.dealt);
    free(w.before);
    return rc;
}

/* Builds on host threads while measure_all measures and checking threads check; *left_running:
 * how many builders were still compiling when it ended (detached; they touch only t's lock,
 * its condition and t->building from then on). CLI_OK, or CLI_FAILURE when no compiling or
 * checking thread could be started. */
static int build_and_measure(const tune_opts *o, tuner *t, tune_bench *b, tune_crossing *xs,
                             int *left_running)
{
    int threads = o->threads;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads <= 0)
        threads = cpus > 2 ? (int)cpus - 1 : 1;
    /* A candidate's kernels build on threads of their own (MERGEJIT_JIT_THREADS caps them):
     * the builders share the processors rather than each taking all of them. Set before any
     * thread starts, as setenv must be. */
    if (!getenv("MERGEJIT_JIT_THREADS")) {
        char per[24];
        snprintf(per, sizeof per, "%ld", cpus / threads > 1 ? cpus / threads : 1);
        setenv("MERGEJIT_JIT_THREADS", per, 1);
    }
    b->checker = tune_checker_start(CHECK_THREADS, CHECK_SLOTS, take_verdict, t);
    if (!b->checker)
        return cli_error("cannot start the checking threads");
    pthread_t *workers = calloc((size_t)threads, sizeof *workers);
    int started = 0;
    while (workers && started < threads &&
           pthread_create(&workers[started], NULL, tune_builder, t) == 0)
        started++;
    if (started == 0) {
        free(workers);
        return cli_error("cannot start a compiling thread");
    }
    int rc = measure_all(t, b, started, xs);
    /* Stop the builders: nothing is left for them to take. A build still running is for a
     * point the sweep has ruled out (every other point was measured or ruled out, or the
     * sweep failed); NVRTC cannot be interrupted, and waiting for those builds took seconds,
     * so their builders are left to run and the command ends without them (cmd_tune). */
    pthread_mutex_lock(&t->lock);
    t->next = t->count;
    t->stopped = 1;
    *left_running = t->building;
    pthread_mutex_unlock(&t->lock);
    for (int k = 0; k < started; k++) {
        if (*left_running)
            pthread_detach(workers[k]);
        else
            pthread_join(workers[k], NULL);
    }
    free(workers);
    return rc;
}

/* Writes the winners to the tuning file and reads it back the way a context will, so that a
 * bad write shows here. */
static int save_tiles(mj_context *ctx, const tune_opts *o, int sm, const mj_tile *tiles,
                      size_t winners)
{
    mj_status st = mj_tuning_save(ctx, o->output, tiles, winners);
    if (st != MJ_OK)
        return cli_status_error(ctx, st);
    mj_context_options check;
    mj_context_options_init(&check);
    check.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE;
    check.target_sm = sm;
    check.tuning_file = o->output;
    mj_context *reread = NULL;
    int rc = CLI_OK;
    st = mj_context_create(&check, &reread);
    if (st)
        rc = cli_status_error(reread, st);
    else
        printf("wrote %zu tile%s to %s\n", winners, winners == 1 ? "" : "s",
               mj_context_tuning_file(reread));
    mj_context_destroy(reread);
    return rc;
}

/* The summary table, the reports and the tuning file. */
static int report(mj_context *ctx, const tune_opts *o, const tuner *t,
                  const tune_crossing *xs, mj_tile *tiles)
{
    int rc = CLI_OK;
    size_t winners = summarize(o, t->points, t->count, xs, tiles);
    printf("%zu of %zu candidates measured\n", t->measured, t->count);
    tune_run_info info = {mj_context_device_name(ctx), t->sm, o->size_count, {0}, (int)o->reps,
                          o->quick, mj_version()};
    memcpy(info.log2_sizes, o->log2_sizes, sizeof info.log2_sizes);
    if (o->json && tune_write_json(o->json, &info, t->points, t->count) != 0)
        rc = CLI_FAILURE;
    if (o->plot && tune_write_svg(o->plot, &info, t->points, t->count) != 0)
        rc = CLI_FAILURE;
    if (o->save && winners > 0) {
        int saved = save_tiles(ctx, o, t->sm, tiles, winners);
        if (saved != CLI_OK)
            rc = saved;
    }
    if (winners < (size_t)o->config_count && rc == CLI_OK)
        rc = cli_error("%zu configuration%s had no tile that built and ran",
                       (size_t)o->config_count - winners,
                       o->config_count - (int)winners == 1 ? "" : "s");
    return rc;
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
    /* Hours of measuring must not end in a file that cannot be written. */
    if (cli_check_output(o.output) != 0 || cli_check_output(o.json) != 0 ||
        cli_check_output(o.plot) != 0)
        return CLI_FAILURE;
    int rc = CLI_OK;
    mj_context *ctx = open_device(&o, &rc);
    if (ctx == NULL)
        return rc;

    size_t count = plan_all(ctx, &o, NULL);
    tuner t = {.o = &o, .count = count, .sm = mj_context_target_sm(ctx),
               .cache_dir = mj_context_cache_dir(ctx)};
    t.points = calloc(count, sizeof *t.points);
    t.timed = calloc(count, sizeof *t.timed);
    t.order = calloc(count, sizeof *t.order);
    t.build = calloc(count, sizeof *t.build);
    tune_bench b = {.ctx = ctx, .o = &o};
    b.times = calloc((size_t)o.reps, sizeof *b.times);
    mj_tile *tiles = calloc((size_t)o.config_count, sizeof *tiles);
    tune_crossing *xs = calloc((size_t)o.config_count, sizeof *xs);
    double reported = 0, released;
    int swept = 0, left_running = 0; /* swept: the lock and condition exist, threads ran */
    if (!t.points || !t.timed || !t.order || !t.build || !b.times || !tiles || !xs) {
        rc = cli_tool_error(MJ_ERR_HOST_MEMORY, "no host memory for %zu points", count);
    } else {
        plan_all(ctx, &o, t.points);
        tune_schedule(t.points, count, t.order);
        print_plan(ctx, &o, t.sm, count);
        pthread_mutex_init(&t.lock, NULL);
        pthread_cond_init(&t.done, NULL);
        swept = 1;
        rc = build_and_measure(&o, &t, &b, xs, &left_running);
        reported = tune_now_s();
        if (rc == CLI_OK) {
            print_crossings(&o, t.points, count, xs);
            rc = report(ctx, &o, &t, xs, tiles);
        }
        reported = tune_now_s() - reported;
        tune_checker_stop(b.checker); /* its verdicts take t.lock */
        b.checker = NULL;
    }
    released = tune_now_s(); /* the inputs, the modules and the device */
    tune_bench_free(&b);
    mj_context_destroy(ctx);
    released = tune_now_s() - released;
    /* Where the time after the sweep goes (the whole command is what a user waits for). */
    if (swept)
        fprintf(stderr, "after the sweep: %d compiling thread%s left to end with the process "
                        "(building candidates ruled out), %.1f s reporting, %.1f s releasing "
                        "the device\n",
                left_running, left_running == 1 ? "" : "s", reported, released);
    if (left_running) {
        /* Those threads still use t and NVRTC: nothing they touch is freed, and the process
         * ends without exit's handlers, which would tear NVRTC's runtime down under them.
         * What they would store in the cache is written whole or not at all (a temporary
         * file, then a rename). */
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    if (swept) {
        pthread_cond_destroy(&t.done);
        pthread_mutex_destroy(&t.lock);
    }
    free(b.times);
    free(tiles);
    free(xs);
    free(t.points);
    free(t.timed);
    free(t.order);
    free(t.build);
    return rc;
}
