/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' cases of bulk remove and bulk insert, against what a CUB or Thrust user
// writes. Included once, by bench_primitives.cu, after its helpers (DevBuf, upload, download,
// race, same_or_die, sorter, g_stream).
//   remove  a quarter of 2^lg elements (random, sorted, distinct 4-byte indices) against flags
//           made by a scatter (cudaMemset to 1, thrust::scatter of 0 at the indices) and
//           cub::DeviceSelect::Flagged, once per array (keys, values);
//   insert  2^lg / 4 elements at random sorted 4-byte positions into 3 x 2^lg / 4, against
//           thrust::merge_by_key of (positions, a) with (counting iterator, b).
#ifndef MJ_BENCH_BULK_CASES_H
#define MJ_BENCH_BULK_CASES_H

#include <cub/device/device_select.cuh>
#include <thrust/execution_policy.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/scatter.h>

template <typename T> static std::vector<T> random_vector(size_t n, uint64_t seed)
{
    std::vector<T> v(n);
    for (auto &x : v) x = (T)splitmix64(&seed);
    return v;
}

// Keys K, and values V unless void: the row's name says which.
template <typename K, typename V> static void bench_remove(const char *name, mj_key_kind kind, int lg)
{
    const bool pairs = !std::is_void<V>::value;
    typedef typename std::conditional<std::is_void<V>::value, uint32_t, V>::type VV;
    size_t n = (size_t)1 << lg;
    std::vector<uint32_t> ix;
    uint64_t seed = 12;
    for (size_t i = 0; i < n; i++)
        if (splitmix64(&seed) % 4 == 0) ix.push_back((uint32_t)i);
    size_t k = ix.size(), m = n - k;
    std::vector<K> keys = random_vector<K>(n, 13);
    std::vector<VV> vals = random_vector<VV>(pairs ? n : 0, 14);
    DevBuf dk(n * sizeof(K)), dv(vals.size() * sizeof(VV)), dix(k * 4);
    DevBuf ok(m * sizeof(K)), ov(pairs ? m * sizeof(VV) : 0), flags(n), count(8);
    upload(dk, keys.data());
    if (pairs) upload(dv, vals.data());
    upload(dix, ix.data());
    mj_sorter *s = sorter(MJ_BULK_REMOVE, kind, pairs ? sizeof(VV) : 0);
    size_t mj_bytes = 0, cub_bytes = 0, cub_v = 0;
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    uint8_t *fl = (uint8_t *)flags.p;
    int *num = (int *)count.p;
    CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, cub_bytes, (const K *)dk.p, fl, (K *)ok.p, num,
                                          (int)n, g_stream));
    if (pairs)
        CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, cub_v, (const VV *)dv.p, fl, (VV *)ov.p,
                                              num, (int)n, g_stream));
    DevBuf mt(mj_bytes), ct(std::max(cub_bytes, cub_v));
    auto run_cub = [&] {
        CUDA_CHECK(cudaMemsetAsync(fl, 1, n, g_stream));
        thrust::scatter(thrust::cuda::par.on(g_stream), thrust::make_constant_iterator<uint8_t>(0),
                        thrust::make_constant_iterator<uint8_t>(0) + k, (const uint32_t *)dix.p, fl);
        size_t b = ct.bytes;
        CUDA_CHECK(cub::DeviceSelect::Flagged(ct.p, b, (const K *)dk.p, fl, (K *)ok.p, num,
                                              (int)n, g_stream));
        if (pairs)
            CUDA_CHECK(cub::DeviceSelect::Flagged(ct.p, b, (const VV *)dv.p, fl, (VV *)ov.p, num,
                                                  (int)n, g_stream));
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_bulk_remove(s, dk.p, pairs ? dv.p : nullptr, n, dix.p, k, 4, ok.p,
                                       pairs ? ov.p : nullptr, mt.p, mt.bytes, g_stream));
    };
    run_cub();
    auto want = download(ok, ok.bytes), want_v = download(ov, ov.bytes);
    CUDA_CHECK(cudaMemset(ok.p, 0, ok.bytes));
    CUDA_CHECK(cudaMemset(ov.p, 0, ov.bytes ? ov.bytes : 1));
    run_mj();
    same_or_die(want, download(ok, ok.bytes), "remove keys");
    same_or_die(want_v, download(ov, ov.bytes), "remove values");
    char param[24];
    snprintf(param, sizeof param, "2^%d 25%%", lg);
    // Ideal traffic: the elements and indices read once, the kept elements written once.
    size_t el = sizeof(K) + (pairs ? sizeof(VV) : 0);
    race("remove", name, param, n, [] {}, run_cub, run_mj, "CUB", (double)(n + m) * el + 4.0 * k);
    mj_sorter_destroy(s);
}

template <typename K, typename V> static void bench_insert(const char *name, mj_key_kind kind, int lg)
{
    const bool pairs = !std::is_void<V>::value;
    typedef typename std::conditional<std::is_void<V>::value, uint32_t, V>::type VV;
    size_t n = (size_t)1 << lg, a = n / 4, b = n - a;
    std::vector<uint32_t> pos(a);
    uint64_t seed = 15;
    sorted_draws(pos, b + 1, &seed);
    std::vector<K> ak = random_vector<K>(a, 16), bk = random_vector<K>(b, 17);
    std::vector<VV> av = random_vector<VV>(pairs ? a : 0, 18), bv = random_vector<VV>(pairs ? b : 0, 19);
    DevBuf dpos(a * 4), dak(a * sizeof(K)), dbk(b * sizeof(K)), dav(av.size() * sizeof(VV));
    DevBuf dbv(bv.size() * sizeof(VV)), ok(n * sizeof(K)), ov(pairs ? n * sizeof(VV) : 0);
    upload(dpos, pos.data());
    upload(dak, ak.data());
    upload(dbk, bk.data());
    if (pairs) {
        upload(dav, av.data());
        upload(dbv, bv.data());
    }
    mj_sorter *s = sorter(MJ_BULK_INSERT, kind, pairs ? sizeof(VV) : 0);
    size_t mj_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf mt(mj_bytes);
    const uint32_t *p = (const uint32_t *)dpos.p;
    auto run_thrust = [&] {
        auto pol = thrust::cuda::par.on(g_stream);
        thrust::counting_iterator<uint32_t> j(0);
        auto none = thrust::make_discard_iterator();
        if (pairs)
            thrust::merge_by_key(
                pol, p, p + a, j, j + (uint32_t)b,
                thrust::make_zip_iterator(thrust::make_tuple((const K *)dak.p, (const VV *)dav.p)),
                thrust::make_zip_iterator(thrust::make_tuple((const K *)dbk.p, (const VV *)dbv.p)),
                none, thrust::make_zip_iterator(thrust::make_tuple((K *)ok.p, (VV *)ov.p)));
        else
            thrust::merge_by_key(pol, p, p + a, j, j + (uint32_t)b, (const K *)dak.p,
                                 (const K *)dbk.p, none, (K *)ok.p);
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_bulk_insert(s, dak.p, pairs ? dav.p : nullptr, dpos.p, a, 4, dbk.p,
                                       pairs ? dbv.p : nullptr, b, ok.p, pairs ? ov.p : nullptr,
                                       mt.p, mt.bytes, g_stream));
    };
    run_thrust();
    auto want = download(ok, ok.bytes), want_v = download(ov, ov.bytes);
    CUDA_CHECK(cudaMemset(ok.p, 0, ok.bytes));
    CUDA_CHECK(cudaMemset(ov.p, 0, ov.bytes ? ov.bytes : 1));
    run_mj();
    same_or_die(want, download(ok, ok.bytes), "insert keys");
    same_or_die(want_v, download(ov, ov.bytes), "insert values");
    char param[24];
    snprintf(param, sizeof param, "2^%d a/4", lg);
    // Ideal traffic: both inputs and the positions read once, the output written once.
    size_t el = sizeof(K) + (pairs ? sizeof(VV) : 0);
    double bytes = 2.0 * n * el + 4.0 * a;
    race("insert", name, param, n, [] {}, run_thrust, run_mj, "Thrust", bytes);
#ifdef MJ_BENCH_MGPU
    if (!pairs) { // Modern GPU 2.0 inserts into one array
        auto run_mgpu = [&] {
            mgpu::bulk_insert((const K *)dak.p, (const int *)p, (int)a, (const K *)dbk.p, (int)b,
                              (K *)ok.p, mgpu_context());
        };
        snprintf(param, sizeof param, "2^%d a/4/mgpu", lg);
        race_checked("insert", name, param, n, ok, want, run_mgpu, run_mj, "MGPU 2.0", bytes);
    }
#endif
    mj_sorter_destroy(s);
}

#endif
