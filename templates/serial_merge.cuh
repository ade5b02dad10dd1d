/* One thread merges MJ_VT outputs from two sorted runs in shared memory, s[a..a_end) and
 * s[b..b_end), taking from a on ties. pos[] receives each output's position in s, which the
 * caller maps to its source (for values); when unused the compiler drops it.
 * Outputs past the end of both runs are garbage with positions past the runs; callers ignore
 * them. A run head past its end is read from s[0] instead, so no read leaves the array. */
#ifndef MJ_SERIAL_MERGE_CUH
#define MJ_SERIAL_MERGE_CUH

#include "spec_default.cuh"

MJ_DEVICE void mj_serial_merge(const mj_key *s, int a, int a_end, int b, int b_end,
                               mj_key keys[MJ_VT], int pos[MJ_VT]) {
    mj_key ka = s[a < a_end ? a : 0];
    mj_key kb = s[b < b_end ? b : 0];
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        bool take_a = b >= b_end || (a < a_end && !mj_less(kb, ka));
        keys[i] = take_a ? ka : kb;
        pos[i] = take_a ? a : b;
        if (take_a) {
            ++a;
            ka = s[a < a_end ? a : 0];
        } else {
            ++b;
            kb = s[b < b_end ? b : 0];
        }
    }
}

#endif
