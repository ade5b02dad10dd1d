/* One thread's MJ_VT steps of sorted search's merge (shared/sorted_search.h): from its split,
 * tile positions a (firsts) and b (seconds), it leaves each key's result at the key's tile
 * position as it takes the key, and keeps no keys or positions for later: three keys and two
 * positions live, where the merge's keys and positions of MJ_VT steps held 95 registers (u32
 * keys at 128 x 31, sm_90) and a second loop over them cost as much as the merge.
 *
 * The heads are read where they are, without a clamp: on a live step a stays at most fl and b
 * at most total (a first is taken past the seconds' end only while firsts remain, since the
 * step's output a + b - fl is below total), and s[-1] and s[total] are the tile's halo slots.
 * Steps past the tile's end (the last steps of the last thread with work) write the spare
 * result slot, s_result[spare]: every step stores, none branches. The stores are exchanges:
 * sorted keys give each tile position to one thread, but unsorted ones (the caller's contract
 * broken) can give one to two, and the result is then unspecified but must not be a data
 * race. */
#ifndef MJ_SEARCH_WALK_CUH
#define MJ_SEARCH_WALK_CUH

#include "common/spec_default.cuh"
#include "shared/sorted_search.h"

template <bool MATCHES>
MJ_DEVICE void mj_search_walk(const mj_key *s, int a, int b, int fl, int total, int steps,
                              int lead, int trail, unsigned *s_result, int spare) {
    mj_key ka = s[a], kb = s[b];
    mj_key kp = MATCHES ? s[a - 1] : ka; /* the last first taken: a second's neighbour */
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int live = i < steps;
        int first = mj_search_takes_first(a, b, fl, total, mj_less(kb, ka));
        int match = MATCHES && mj_search_has_neighbour(first, a, b, total, lead, trail) &&
                    (first ? !mj_less(ka, kb) : !mj_less(kp, kb));
        atomicExch(&s_result[live ? (first ? a : b) : spare],
                   mj_search_result(first, a, b, fl, match));
        if (MATCHES && first) kp = ka;
        a += live & first;
        b += live & !first;
        mj_key next = s[first ? a : b];
        ka = first ? next : ka;
        kb = first ? kb : next;
    }
}

#endif
