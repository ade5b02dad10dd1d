/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's compiling threads: each builds candidates into the disk cache in a compile-only
 * context of its own, reads ptxas's figures and rejects the tiles that fail or spill, while
 * the GPU measures the ones already built. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tune_run.h"

void tune_key_desc(const tune_config *c, const tune_point *p, mj_sort_desc *d)
{
    mj_sort_desc_init(d, c->key_size == 4 ? MJ_KEY_U32 : MJ_KEY_U64, MJ_ASCENDING);
    if (c->key_size == 16) {
        d->key = MJ_KEY_CUSTOM;
        d->type_name = "k16";
        d->type_source = "struct k16 { unsigned long long hi, lo; };";
        d->type_size = 16;
        d->type_align = 8;
        d->less = "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)";
        /* Reduce and scan of the struct: word-wise sums (tune_bench.c checks them). */
        d->op = "k16{a.hi + b.hi, a.lo + b.lo}";
        d->identity = "k16{0, 0}";
    }
    /* Offsets or indices (lbs, expand, move): the key is their index type. */
    mj_primitive_info info;
    if (mj_primitive_query(c->primitive, &info) == MJ_OK && info.index_keys)
        d->key = c->key_size == 4 ? MJ_KEY_I32 : MJ_KEY_I64;
    d->primitive = c->primitive;
    d->value_size = c->value_size;
    /* Select: the keys whose lowest bit is 0 (of a struct, its low word's), about half of the
     * random keys (tune_check.c checks them). */
    if (c->primitive == MJ_SELECT) {
        d->op = c->key_size == 16 ? "(a.lo & 1) == 0" : "(a & 1) == 0";
        d->identity = NULL;
    }
    /* Reduce by key: the key is only compared; its operator sums the values (u32, u64). */
    if (c->primitive == MJ_REDUCE_BY_KEY) {
        d->op = NULL;
        d->identity = NULL;
        d->value_type = c->value_size == 4 ? "unsigned" : "unsigned long long";
    }
    if (p) {
        d->nt = p->nt;
        d->vt = p->vt;
        d->bs_nt = p->bs_nt;
    }
}

const tune_config *tune_config_of(const tune_point *p, tune_config *c)
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
void tune_reject(tuner *t, size_t i, tune_outcome why, const char *msg)
{
    t->points[i].outcome = why;
    set_note(&t->points[i], msg);
    tune_skip_after(t->points, t->count, i);
}

/* A builder: compiles points, in the tuner's order, into the disk cache in a compile-only
 * context of its own (so its error messages are its own) and reads ptxas's figures. It builds
 * what the measuring context loads, which is what a default sorter runs: the kernels its
 * sorts may launch, so no 2-way partition while 2-way passes are fused. A
 * kernel's program that another tile shares (the partitions for every tile, the blocksort for
 * one blocksort shape and VT) comes from the cache once one build stored it. */
void *tune_builder(void *arg)
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
        while (t->next < t->count && t->points[t->order[t->next]].outcome != TUNE_PENDING) {
            t->build[t->order[t->next]] = BUILD_DONE;
            t->next++;
        }
        if (t->next >= t->count) {
            pthread_cond_broadcast(&t->done);
            pthread_mutex_unlock(&t->lock);
            break;
        }
        size_t i = t->order[t->next++];
        t->build[i] = BUILD_RUNNING;
        t->building++;
        tune_point p = t->points[i];
        pthread_mutex_unlock(&t->lock);

        tune_config c;
        mj_sort_desc d;
        tune_key_desc(tune_config_of(&p, &c), &p, &d);
        mj_sorter *s = NULL;
        mj_status st = cst ? cst : mj_sorter_create(ctx, &d, &s);
        int regs = -1;
        long spills = -1;
        mj_build_times now;
        int programs = 0;
        if (!st) {
            mj_sorter_resources(s, &regs, &spills);
            mj_sorter_build_times(s, &now);
            programs = now.programs;
        }
        mj_sorter_destroy(s);

        pthread_mutex_lock(&t->lock);
        t->building--;
        if (t->stopped) {
            pthread_cond_broadcast(&t->done);
            pthread_mutex_unlock(&t->lock);
            continue; /* and end: nothing is left to take */
        }
        tune_point *q = &t->points[i];
        q->registers = regs;
        q->spill_bytes = spills;
        t->built++;
        t->built_late += q->outcome != TUNE_PENDING;
        t->programs += (size_t)programs;
        if (q->outcome == TUNE_PENDING) {
            if (st) {
                tune_reject(t, i, TUNE_BUILD_FAILED, mj_context_last_error(ctx));
            } else if (spills > 0) {
                char msg[96];
                snprintf(msg, sizeof msg, "ptxas: %ld bytes of spill stores and loads", spills);
                tune_reject(t, i, TUNE_SPILLS, msg);
            }
        }
        t->build[i] = BUILD_DONE;
        pthread_cond_broadcast(&t->done);
        pthread_mutex_unlock(&t->lock);
    }
    mj_context_destroy(ctx);
    return NULL;
}
