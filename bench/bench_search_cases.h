/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' sorted-search cases, against what a Thrust user writes with the same sorted
// needles (a, half the keys) and haystack (b, the other half), random keys below n / 2 (so
// about half of them have a match):
//   lower   a's lower bounds in b (4-byte indices) against thrust::lower_bound;
//   counts  how many keys of b equal each of a (a_counts) against thrust::lower_bound,
//           thrust::upper_bound and thrust::transform of their difference.
// Included once, by bench_primitives.cu, after its helpers (DevBuf, upload, download, race,
// same_or_die, sorter, g_stream).
#ifndef MJ_BENCH_SEARCH_CASES_H
#define MJ_BENCH_SEARCH_CASES_H

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

template <typename K>
static void bench_search(const char *name, mj_key_kind kind, int lg, bool counts)
{
    size_t n = (size_t)1 << lg, na = n / 2, nb = n - na;
    const std::vector<uint32_t> *in = sorted_pair(na, n / 2, 12);
    std::vector<K> a(in[0].begin(), in[0].end()), b(in[1].begin(), in[1].end());
    DevBuf da(na * sizeof(K)), db(nb * sizeof(K)), dout(na * 4), dupper(counts ? na * 4 : 0);
    upload(da, a.data());
    upload(db, b.data());
    mj_sorter *s = sorter(MJ_SORTED_SEARCH, kind, 0);
    size_t mj_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf mt(mj_bytes);
    const K *pa = (const K *)da.p, *pb = (const K *)db.p;
    uint32_t *out = (uint32_t *)dout.p, *upper = (uint32_t *)dupper.p;
    mj_search_outputs o = {MJ_BOUND_LOWER, 4, counts ? nullptr : dout.p, nullptr,
                           counts ? dout.p : nullptr, nullptr, nullptr, nullptr};
    auto run_thrust = [&] {
        auto pol = thrust::cuda::par.on(g_stream);
        thrust::lower_bound(pol, pb, pb + nb, pa, pa + na, out);
        if (counts) {
            thrust::upper_bound(pol, pb, pb + nb, pa, pa + na, upper);
            thrust::transform(pol, upper, upper + na, out, out, thrust::minus<uint32_t>());
        }
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_sorted_search(s, da.p, na, db.p, nb, &o, mt.p, mt.bytes, g_stream));
    };
    run_thrust();
    auto want = download(dout, dout.bytes);
    CUDA_CHECK(cudaMemset(dout.p, 0, dout.bytes));
    run_mj();
    same_or_die(want, download(dout, dout.bytes), counts ? "search counts" : "search lower");
    char param[48];
    snprintf(param, sizeof param, "2^%d %s", lg, counts ? "counts" : "lower");
    // Ideal traffic: both arrays read once, one 4-byte result per needle written (mergejit's
    // counts too: one merge gives each needle's bound and its run of equal keys).
    double bytes = (double)n * sizeof(K) + (double)na * 4;
    race("search", name, param, n, [] {}, run_thrust, run_mj, "Thrust", bytes);
#ifdef MJ_BENCH_MGPU
    if (!counts) { // Modern GPU 2.0 has no equality counts
        auto run_mgpu = [&] {
            mgpu::sorted_search<mgpu::bounds_lower>(pa, (int)na, pb, (int)nb, (int *)out,
                                                    mgpu::less_t<K>(), mgpu_context());
        };
        snprintf(param, sizeof param, "2^%d lower/mgpu", lg);
        race_checked("search", name, param, n, dout, want, run_mgpu, run_mj, "MGPU 2.0", bytes);
    }
#endif
    mj_sorter_destroy(s);
}

#endif
