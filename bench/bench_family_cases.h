/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' cases of the merge-path family beyond sorting: reduce and scan against
// cub::DeviceReduce and cub::DeviceScan, load-balancing search and interval expand against
// Thrust. Included once, by bench_primitives.cu, after its helpers (DevBuf, upload, download,
// race, same_or_die, g_ctx, g_stream).
#ifndef MJ_BENCH_FAMILY_CASES_H
#define MJ_BENCH_FAMILY_CASES_H

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>

// ---------------------------------------------------------------- reduce and scan

struct MaxOp {
    template <typename T> __device__ T operator()(const T &a, const T &b) const
    {
        return a < b ? b : a;
    }
};

static mj_sorter *combiner(mj_primitive p, mj_key_kind k, const char *op, const char *identity)
{
    mj_sort_desc d;
    mj_sort_desc_init(&d, k, MJ_ASCENDING);
    d.primitive = p;
    d.op = op;
    d.identity = identity;
    mj_sorter *s = nullptr;
    MJ_CHECK(mj_sorter_create(g_ctx, &d, &s));
    return s;
}

// Random keys; for the maximum, doubles of [0, 1) (NaN-free, so the maximum is exact).
template <typename K> static std::vector<K> combine_input(size_t n, bool max)
{
    std::vector<K> v(n);
    uint64_t seed = 5;
    for (auto &x : v) {
        uint64_t r = splitmix64(&seed);
        x = max ? (K)((double)(r >> 11) * 0x1.0p-53) : (K)r;
    }
    return v;
}

// The sum of integers (wrapping, so exact) or the maximum of doubles.
template <typename K, bool max> static void bench_reduce(const char *name, mj_key_kind kind, int lg)
{
    size_t n = (size_t)1 << lg;
    std::vector<K> h = combine_input<K>(n, max);
    DevBuf in(n * sizeof(K)), out(sizeof(K));
    upload(in, h.data());
    auto cub_call = [&](void *t, size_t &bytes) {
        if constexpr (max)
            return cub::DeviceReduce::Reduce(t, bytes, (const K *)in.p, (K *)out.p, (int64_t)n,
                                             MaxOp{}, (K)-1e300, g_stream);
        else
            return cub::DeviceReduce::Sum(t, bytes, (const K *)in.p, (K *)out.p, (int64_t)n,
                                          g_stream);
    };
    size_t cub_bytes = 0, mj_bytes = 0;
    CUDA_CHECK(cub_call(nullptr, cub_bytes));
    mj_sorter *s = max ? combiner(MJ_REDUCE, kind, "a < b ? b : a", "-1e300")
                       : combiner(MJ_REDUCE, kind, nullptr, nullptr);
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf ct(cub_bytes), mt(mj_bytes);
    auto run_cub = [&] {
        size_t bytes = cub_bytes;
        CUDA_CHECK(cub_call(ct.p, bytes));
    };
    auto run_mj = [&] { MJ_CHECK(mj_sorter_reduce(s, in.p, n, out.p, mt.p, mt.bytes, g_stream)); };
    run_cub();
    auto want = download(out, out.bytes);
    CUDA_CHECK(cudaMemset(out.p, 0, out.bytes));
    run_mj();
    same_or_die(want, download(out, out.bytes), "reduce");
    char param[24];
    snprintf(param, sizeof param, "%s 2^%d", max ? "max" : "sum", lg);
    race("reduce", name, param, n, [] {}, run_cub, run_mj, "CUB", (double)n * sizeof(K));
    mj_sorter_destroy(s);
}

// Exclusive or inclusive sums of integers, or the inclusive maximum of doubles.
template <typename K, bool max>
static void bench_scan(const char *name, mj_key_kind kind, bool inclusive, int lg)
{
    size_t n = (size_t)1 << lg;
    std::vector<K> h = combine_input<K>(n, max);
    DevBuf in(n * sizeof(K)), out(n * sizeof(K));
    upload(in, h.data());
    auto cub_call = [&](void *t, size_t &bytes) {
        const K *i = (const K *)in.p;
        K *o = (K *)out.p;
        if constexpr (max)
            return cub::DeviceScan::InclusiveScan(t, bytes, i, o, MaxOp{}, (int64_t)n, g_stream);
        else if (inclusive)
            return cub::DeviceScan::InclusiveSum(t, bytes, i, o, (int64_t)n, g_stream);
        else
            return cub::DeviceScan::ExclusiveSum(t, bytes, i, o, (int64_t)n, g_stream);
    };
    size_t cub_bytes = 0, mj_bytes = 0;
    CUDA_CHECK(cub_call(nullptr, cub_bytes));
    mj_sorter *s = max ? combiner(MJ_SCAN, kind, "a < b ? b : a", "-1e300")
                       : combiner(MJ_SCAN, kind, nullptr, nullptr);
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf ct(cub_bytes), mt(mj_bytes);
    mj_scan_kind sk = inclusive ? MJ_SCAN_INCLUSIVE : MJ_SCAN_EXCLUSIVE;
    auto run_cub = [&] {
        size_t bytes = cub_bytes;
        CUDA_CHECK(cub_call(ct.p, bytes));
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_scan(s, in.p, n, out.p, sk, nullptr, mt.p, mt.bytes, g_stream));
    };
    run_cub();
    auto want = download(out, out.bytes);
    CUDA_CHECK(cudaMemset(out.p, 0, out.bytes));
    run_mj();
    same_or_die(want, download(out, out.bytes), "scan");
    char param[24];
    snprintf(param, sizeof param, "%s %s 2^%d", max ? "max" : "sum", inclusive ? "inc" : "exc", lg);
    race("scan", name, param, n, [] {}, run_cub, run_mj, "CUB", 2.0 * n * sizeof(K));
    mj_sorter_destroy(s);
}

// ---------------------------------------------------------------- lbs and expand

struct MinusOne {
    template <typename T> __host__ __device__ T operator()(T x) const { return x - 1; }
};

// Offsets of 2^20 objects with random counts summing to 2^lg items: 0 and a sorted random
// sample of item positions.
template <typename K> static std::vector<K> lbs_offsets(size_t items, size_t objects)
{
    std::vector<K> off(objects);
    uint64_t seed = 6;
    off[0] = 0;
    for (size_t j = 1; j < objects; j++) off[j] = (K)(splitmix64(&seed) % (items + 1));
    std::sort(off.begin(), off.end());
    return off;
}

// The "/pattern" rows (lbs, expand and move): a kernel handed what the search finds, one warp
// an object, doing the row's reads and writes; what the access pattern itself allows.
// Object j is this thread's warp's, its items [b, e); false past the last object.
template <typename K>
__device__ bool warp_object(const K *off, size_t objects, size_t items, size_t &j, size_t &b,
                            size_t &e)
{
    j = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (j >= objects) return false;
    b = (size_t)off[j];
    e = j + 1 < objects ? (size_t)off[j + 1] : items;
    return true;
}

// Blocks of 256 threads, a warp an object.
static unsigned warp_object_blocks(size_t objects)
{
    return (unsigned)((objects * 32 + 255) / 256);
}

// lbs and expand's pattern: each object's items written with its index (lbs) or value (expand).
template <typename K, typename VV>
__global__ void expand_pattern(const K *off, size_t objects, size_t items, const VV *vals,
                               void *out)
{
    size_t j, b, e;
    if (!warp_object(off, objects, items, j, b, e)) return;
    if (vals) {
        VV v = vals[j];
        for (size_t i = b + (threadIdx.x & 31); i < e; i += 32) ((VV *)out)[i] = v;
    } else {
        for (size_t i = b + (threadIdx.x & 31); i < e; i += 32) ((K *)out)[i] = (K)j;
    }
}

// Load-balancing search (objects only) or, with V not void, interval expand of V values.
template <typename K, typename V>
static void bench_lbs(const char *name, mj_key_kind kind, int lg)
{
    const bool expand = !std::is_void<V>::value;
    typedef typename std::conditional<std::is_void<V>::value, uint32_t, V>::type VV;
    size_t items = (size_t)1 << lg, objects = (size_t)1 << 20;
    std::vector<K> off = lbs_offsets<K>(items, objects);
    std::vector<VV> vals(expand ? objects : 0);
    uint64_t seed = 8;
    for (auto &v : vals) v = (VV)splitmix64(&seed);
    DevBuf doff(objects * sizeof(K)), didx(items * sizeof(K));
    DevBuf dvals(vals.size() * sizeof(VV)), dout(expand ? items * sizeof(VV) : 0);
    upload(doff, off.data());
    if (expand) upload(dvals, vals.data());
    mj_sorter *s = sorter(expand ? MJ_INTERVAL_EXPAND : MJ_LOAD_BALANCE, kind,
                          expand ? sizeof(VV) : 0);
    size_t mj_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, items + objects, 0, &mj_bytes));
    DevBuf mt(mj_bytes);
    const K *o = (const K *)doff.p;
    K *idx = (K *)didx.p;
    auto run_thrust = [&] {
        auto pol = thrust::cuda::par.on(g_stream);
        thrust::counting_iterator<K> first(0);
        thrust::upper_bound(pol, o, o + objects, first, first + (K)items, idx);
        thrust::transform(pol, idx, idx + items, idx, MinusOne{});
        if (expand) thrust::gather(pol, idx, idx + items, (const VV *)dvals.p, (VV *)dout.p);
    };
    auto run_mj = [&] {
        if (expand)
            MJ_CHECK(mj_sorter_interval_expand(s, doff.p, objects, items, dvals.p, dout.p, mt.p,
                                               mt.bytes, g_stream));
        else
            MJ_CHECK(mj_sorter_load_balance(s, doff.p, objects, items, didx.p, nullptr, mt.p,
                                            mt.bytes, g_stream));
    };
    DevBuf &result = expand ? dout : didx;
    run_thrust();
    auto want = download(result, result.bytes);
    CUDA_CHECK(cudaMemset(result.p, 0, result.bytes));
    run_mj();
    same_or_die(want, download(result, result.bytes), expand ? "expand" : "lbs");
    const char *vsize = expand ? (sizeof(VV) == 4 ? " v4" : " v8") : "";
    char param[48];
    snprintf(param, sizeof param, "2^%d%s", lg, vsize);
    // Ideal traffic: the offsets (and values) read once, the outputs written once.
    double bytes = expand ? (double)objects * (sizeof(K) + sizeof(VV)) + (double)items * sizeof(VV)
                          : (double)objects * sizeof(K) + (double)items * sizeof(K);
    race(expand ? "expand" : "lbs", name, param, items, [] {}, run_thrust, run_mj, "Thrust",
         bytes);
    auto run_pattern = [&] {
        expand_pattern<K, VV><<<warp_object_blocks(objects), 256, 0, g_stream>>>(
            o, objects, items, expand ? (const VV *)dvals.p : nullptr, result.p);
    };
    snprintf(param, sizeof param, "2^%d/pattern%s", lg, vsize);
    race_checked(expand ? "expand" : "lbs", name, param, items, result, want, run_pattern, run_mj,
                 "pattern", bytes);
#ifdef MJ_BENCH_MGPU
    if constexpr (std::is_same<K, int32_t>::value) { // Modern GPU's indices are int
        auto run_mgpu = [&] {
            if (expand)
                mgpu::interval_expand((const VV *)dvals.p, (int)items, o, (int)objects,
                                      (VV *)dout.p, mgpu_context());
            else
                mgpu::load_balance_search((int)items, o, (int)objects, idx, mgpu_context());
        };
        snprintf(param, sizeof param, "2^%d/mgpu%s", lg, vsize);
        race_checked(expand ? "expand" : "lbs", name, param, items, result, want, run_mgpu, run_mj,
                     "MGPU 2.0", bytes);
    }
#endif
    mj_sorter_destroy(s);
}

#endif
