/* SPDX-License-Identifier: Apache-2.0 */
/* The autotuner's candidate tiles for one configuration, what a rejection rules out, and
 * mergesort's 4-way threshold from its winner's timings. */
#include <stdio.h>
#include <string.h>

#include "tune.h"

/* The tile at (nt, vt) with the plan's blocksort; 0 when the shape is not valid. */
static int shape(const tune_config *cfg, int nt, int vt, mj_tile *t) {
    memset(t, 0, sizeof *t);
    t->primitive = cfg->primitive;
    t->key_size = cfg->key_size;
    t->value_size = cfg->value_size;
    t->nt = nt;
    t->vt = vt;
    /* The sorts' blocksort runs twice the merge's threads where that is valid. Primitives
     * without a blocksort refuse any but NT (mj_tile_check), except merge, which takes what it
     * is given and has no use for it. */
    t->bs_nt = cfg->primitive == MJ_MERGE || 2 * nt > 1024 ? nt : 2 * nt;
    if (t->bs_nt != nt && mj_tile_check(t, NULL, 0) != MJ_OK) t->bs_nt = nt;
    return mj_tile_check(t, NULL, 0) == MJ_OK;
}

static void put(const tune_config *cfg, const mj_tile *t, int is_default, tune_point *out,
                size_t cap, size_t n) {
    if (!out || n >= cap) return;
    tune_point *p = &out[n];
    memset(p, 0, sizeof *p);
    p->primitive = cfg->primitive;
    p->key_size = cfg->key_size;
    p->value_size = cfg->value_size;
    p->nt = t->nt;
    p->vt = t->vt;
    p->bs_nt = t->bs_nt;
    p->is_default = is_default;
    p->outcome = TUNE_PENDING;
    p->registers = -1;
    p->spill_bytes = -1;
}

size_t tune_plan(const tune_config *cfg, const int *nts, int nt_count, int quick,
                 const mj_tile *def, tune_point *out, size_t cap) {
    size_t n = 0;
    int have_default = 0;
    int lo = quick ? def->vt - 4 : 1, hi = quick ? def->vt + 4 : 63;
    for (int i = 0; i < nt_count; ++i) {
        for (int vt = 1; vt <= hi; vt += 2) {
            mj_tile t;
            if (!shape(cfg, nts[i], vt, &t)) break; /* larger VT only needs more */
            if (vt < lo) continue;
            int is_default = t.nt == def->nt && t.vt == def->vt && t.bs_nt == def->bs_nt;
            have_default |= is_default;
            put(cfg, &t, is_default, out, cap, n++);
        }
    }
    if (!have_default) put(cfg, def, 1, out, cap, n++);
    return n;
}

size_t tune_skip_after(tune_point *points, size_t count, size_t i) {
    const tune_point *bad = &points[i];
    size_t marked = 0;
    for (size_t j = i + 1; j < count; ++j) {
        tune_point *p = &points[j];
        if (p->primitive != bad->primitive || p->key_size != bad->key_size ||
            p->value_size != bad->value_size || p->nt != bad->nt || p->vt <= bad->vt ||
            p->is_default || p->outcome != TUNE_PENDING)
            continue;
        p->outcome = TUNE_SKIPPED;
        snprintf(p->note, sizeof p->note, "VT %d at NT %d was rejected already", bad->vt,
                 bad->nt);
        ++marked;
    }
    return marked;
}

/* Points p and q are of one configuration. */
static int same_config(const tune_point *p, const tune_point *q) {
    return p->primitive == q->primitive && p->key_size == q->key_size &&
           p->value_size == q->value_size;
}

void tune_schedule(const tune_point *points, size_t count, size_t *order) {
    size_t n = 0;
    for (size_t first = 0, end; first < count; first = end) {
        for (end = first + 1; end < count && same_config(&points[end], &points[first]); ++end) {
        }
        /* Round r takes each lane's r-th point, the lanes by their first point's place. A
         * point is the r-th of its lane when r points of its NT come before it. */
        for (size_t r = 0, taken = 1; taken; ++r) {
            taken = 0;
            for (size_t i = first; i < end; ++i) {
                size_t rank = 0;
                for (size_t j = first; j < i && rank <= r; ++j)
                    rank += points[j].nt == points[i].nt;
                if (rank == r) {
                    order[n++] = i;
                    taken = 1;
                }
            }
        }
    }
}

int tune_merge4_threshold(const int *log2, const double *g2, const double *g4, int count) {
    int from = 0;
    for (int i = count - 1; i >= 0 && g4[i] > g2[i]; i--)
        from = log2[i];
    return from;
}
