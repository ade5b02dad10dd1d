/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' multiset cases: each of the four operations over two sorted arrays of
// 2^lg u32 keys each, drawn from [0, 2^(lg + 1)) (so about 40% of each side's keys have a
// match in the other), against thrust::set_intersection, set_union, set_difference and
// set_symmetric_difference (keys), and their _by_key forms with u32 values (pairs_u32).
// Thrust returns the output's end to the host, which synchronizes; mergejit writes the count
// in stream order. Included once, by bench_primitives.cu, after its helpers (DevBuf, upload,
// download, race, same_or_die, sorter, g_stream).
#ifndef MJ_BENCH_SETOPS_CASES_H
#define MJ_BENCH_SETOPS_CASES_H

#include <thrust/execution_policy.h>
#include <thrust/set_operations.h>

static const char *const setop_names[] = {"intersect", "union", "diff", "symdiff"};

// The Thrust call for op over keys (and values when av is not null); returns the count.
template <typename K, typename V, typename Policy>
static size_t thrust_setop(const Policy &pol, mj_set_op op, const K *a, size_t na, const K *b,
                           size_t nb, const V *av, const V *bv, K *out, V *outv)
{
    if (!av) {
        switch (op) {
        case MJ_SET_INTERSECTION: return thrust::set_intersection(pol, a, a + na, b, b + nb, out) - out;
        case MJ_SET_UNION: return thrust::set_union(pol, a, a + na, b, b + nb, out) - out;
        case MJ_SET_DIFFERENCE: return thrust::set_difference(pol, a, a + na, b, b + nb, out) - out;
        default: return thrust::set_symmetric_difference(pol, a, a + na, b, b + nb, out) - out;
        }
    }
    switch (op) {
    case MJ_SET_INTERSECTION:
        return thrust::set_intersection_by_key(pol, a, a + na, b, b + nb, av, out, outv).first - out;
    case MJ_SET_UNION:
        return thrust::set_union_by_key(pol, a, a + na, b, b + nb, av, bv, out, outv).first - out;
    case MJ_SET_DIFFERENCE:
        return thrust::set_difference_by_key(pol, a, a + na, b, b + nb, av, bv, out, outv).first -
               out;
    default:
        return thrust::set_symmetric_difference_by_key(pol, a, a + na, b, b + nb, av, bv, out,
                                                       outv).first - out;
    }
}

// Keys K, and values V unless void: the row's name says which.
template <typename K, typename V>
static void bench_setops(const char *name, mj_key_kind kind, int lg, mj_set_op op)
{
    const bool pairs = !std::is_void<V>::value;
    typedef typename std::conditional<std::is_void<V>::value, uint32_t, V>::type VV;
    size_t n = (size_t)1 << lg, bound = mj_set_op_bound(op, n, n);
    static_assert(sizeof(K) == 4, "the inputs are drawn as 4-byte keys");
    const std::vector<uint32_t> *in = sorted_pair(n, 2 * n, 21);
    const std::vector<uint32_t> &a = in[0], &b = in[1];
    std::vector<VV> av(pairs ? n : 0), bv(pairs ? n : 0);
    for (size_t i = 0; i < av.size(); i++) {
        av[i] = (VV)i;
        bv[i] = (VV)(i | 0x80000000u);
    }
    DevBuf da(n * sizeof(K)), db(n * sizeof(K)), dav(av.size() * sizeof(VV));
    DevBuf dbv(bv.size() * sizeof(VV)), ok(bound * sizeof(K)), ov(pairs ? bound * sizeof(VV) : 0);
    DevBuf count(8);
    upload(da, a.data());
    upload(db, b.data());
    if (pairs) {
        upload(dav, av.data());
        upload(dbv, bv.data());
    }
    mj_sorter *s = sorter(MJ_SET_OPS, kind, pairs ? sizeof(VV) : 0);
    size_t mj_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, 2 * n, 0, &mj_bytes));
    DevBuf mt(mj_bytes);
    const K *pa = (const K *)da.p, *pb = (const K *)db.p;
    const VV *pav = pairs ? (const VV *)dav.p : nullptr, *pbv = pairs ? (const VV *)dbv.p : nullptr;
    size_t thrust_count = 0;
    auto run_thrust = [&] {
        thrust_count = thrust_setop(thrust::cuda::par.on(g_stream), op, pa, n, pb, n, pav, pbv,
                                    (K *)ok.p, (VV *)ov.p);
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_set_op(s, op, da.p, pairs ? dav.p : nullptr, n, db.p,
                                  pairs ? dbv.p : nullptr, n, ok.p, pairs ? ov.p : nullptr,
                                  count.p, mt.p, mt.bytes, g_stream));
    };
    run_thrust();
    auto want = download(ok, thrust_count * sizeof(K));
    auto want_v = download(ov, pairs ? thrust_count * sizeof(VV) : 0);
    CUDA_CHECK(cudaMemset(ok.p, 0, ok.bytes ? ok.bytes : 1));
    CUDA_CHECK(cudaMemset(ov.p, 0, ov.bytes ? ov.bytes : 1));
    run_mj();
    uint64_t mj_count = 0;
    auto c = download(count, 8);
    memcpy(&mj_count, c.data(), 8);
    if (mj_count != thrust_count) {
        printf("MISMATCH setops %s: %llu elements, Thrust %zu\n", setop_names[op],
               (unsigned long long)mj_count, thrust_count);
        exit(1);
    }
    same_or_die(want, download(ok, thrust_count * sizeof(K)), "setops keys");
    same_or_die(want_v, download(ov, pairs ? thrust_count * sizeof(VV) : 0), "setops values");
    char param[32];
    snprintf(param, sizeof param, "2^%d %s", lg, setop_names[op]);
    // Ideal traffic: both inputs read once, the output written once.
    double el = sizeof(K) + (pairs ? sizeof(VV) : 0);
    race("setops", name, param, 2 * n, [] {}, run_thrust, run_mj, "Thrust",
         (2.0 * n + (double)thrust_count) * el);
    mj_sorter_destroy(s);
}

#endif
