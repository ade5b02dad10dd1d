/* SPDX-License-Identifier: Apache-2.0 */
/* The owners of a load-balancing search tile on the CPU, as mj_cta_load_balance
 * (templates/block/cta_load_balance.cuh) finds them for lbs, expand, move and the join: the
 * models of those kernels share it. */
#ifndef MJT_LBS_OWNERS_MODEL_H
#define MJT_LBS_OWNERS_MODEL_H

/* s_off: the tile's loaded offsets (yb: 1 when the one before the tile is among them); x0 and
 * nx: the tile's first item and its item count; ny: its own offsets. Fills s_owner[0, nv):
 * every slot starts at 0, each offset marks the item it starts at with its index into s_off
 * (the largest of equal ones), and a running max over the slots in order (the block's
 * max-scan, done here in one sweep) fills the rest. */
static inline void mjt_lbs_owners_by_marks(const long long *s_off, long long x0, int nx, int ny,
                                           int yb, int nv, int *s_owner) {
    for (int i = 0; i < nv; ++i) s_owner[i] = 0;
    for (int y = 0; y < ny; ++y) {
        long long at = s_off[yb + y] - x0;
        if (at >= 0 && at < nx && y + yb > s_owner[at]) s_owner[at] = y + yb;
    }
    for (int i = 0, run = 0; i < nv; ++i) {
        run = s_owner[i] > run ? s_owner[i] : run;
        s_owner[i] = run;
    }
}

#endif
