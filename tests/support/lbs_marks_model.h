/* SPDX-License-Identifier: Apache-2.0 */
/* A load-balancing search tile's marks and max-scan on the CPU, as cta_load_balance.cuh runs
 * them (mj_cta_scan_marks): the owners of lbs, expand, move and the join
 * (mj_cta_load_balance), and the sources of bulk insert's outputs (mj_cta_lbs_sources). The
 * models of those kernels share it. */
#ifndef MJT_LBS_MARKS_MODEL_H
#define MJT_LBS_MARKS_MODEL_H

/* s[0, nv): marks (0 where none); the block's max-scan, done here in one sweep: each slot
 * becomes its mark when `sources` is 0 (the owners), else the merge's source there (~(mark -
 * 1) where marked, the item after the offsets before it, at most nx - 1, elsewhere). */
static inline void mjt_lbs_scan_marks(int *s, int nv, int sources, int nx) {
    for (int i = 0, run = 0; i < nv; ++i) {
        int m = s[i];
        run = m > run ? m : run;
        s[i] = !sources ? run : m ? ~(m - 1) : i - run < nx - 1 ? i - run : nx - 1;
    }
}

/* s_off: the tile's loaded offsets (yb: 1 when the one before the tile is among them); x0 and
 * nx: the tile's first item and its item count; ny: its own offsets. Fills s_owner[0, nv):
 * each offset marks the item it starts at with its index into s_off (the largest of equal
 * ones), and the max-scan gives every item the last mark at or before it. */
static inline void mjt_lbs_owners_by_marks(const long long *s_off, long long x0, int nx, int ny,
                                           int yb, int nv, int *s_owner) {
    for (int i = 0; i < nv; ++i) s_owner[i] = 0;
    for (int y = 0; y < ny; ++y) {
        long long at = s_off[yb + y] - x0;
        if (at >= 0 && at < nx && y + yb > s_owner[at]) s_owner[at] = y + yb;
    }
    mjt_lbs_scan_marks(s_owner, nv, 0, nx);
}

/* The same tile's outputs' sources: s_src[k] for k < nx + ny is x for its item x, ~y for its
 * offset y. Offset y marks output min(max(its offset - x0, 0), nx) + y with y + 1 (a later
 * offset's, the larger, wins where two mark one output: unsorted offsets only). */
static inline void mjt_lbs_sources_by_marks(const long long *s_off, long long x0, int nx, int ny,
                                            int yb, int nv, int *s_src) {
    for (int i = 0; i < nv; ++i) s_src[i] = 0;
    for (int y = 0; y < ny; ++y) {
        long long at = s_off[yb + y] - x0;
        s_src[(at < 0 ? 0 : at > nx ? nx : (int)at) + y] = y + 1;
    }
    mjt_lbs_scan_marks(s_src, nv, 1, nx);
}

#endif
