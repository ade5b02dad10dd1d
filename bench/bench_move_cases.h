/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' interval move cases (gather only, scatter only, both) against the Thrust
// composition a user writes today: thrust::upper_bound of the item indices (a counting
// iterator) over the offsets for each item's interval, then one thrust::for_each_n computing
// each item's source and destination and copying its element. Included once, by
// bench_primitives.cu, after bench_family_cases.h (lbs_offsets) and its helpers (DevBuf,
// upload, download, race, same_or_die, sorter, g_stream).
#ifndef MJ_BENCH_MOVE_CASES_H
#define MJ_BENCH_MOVE_CASES_H

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

// Item i of interval j = obj[i] - 1 (upper_bound's answer) with rank r = i - off[j]:
// out[scatter ? scatter[j] + r : i] = in[gather ? gather[j] + r : i].
template <typename K, typename V> struct MoveOne {
    const K *obj, *off, *gather, *scatter;
    const V *in;
    V *out;
    __device__ void operator()(K i) const
    {
        K j = obj[i] - 1, r = i - off[j];
        out[scatter ? scatter[j] + r : i] = in[gather ? gather[j] + r : i];
    }
};

// Move's pattern (warp_object, bench_family_cases.h): each interval copied by its warp, four
// loads a lane in flight.
template <typename K, typename V>
__global__ void move_pattern(const K *off, size_t objects, size_t items, const K *gather,
                             const K *scatter, const V *in, V *out)
{
    size_t j, b, e;
    if (!warp_object(off, objects, items, j, b, e)) return;
    size_t n = e - b;
    const V *from = in + (gather ? (size_t)gather[j] : b);
    V *to = out + (scatter ? (size_t)scatter[j] : b);
    for (size_t r = threadIdx.x & 31; r < n; r += 128) {
        V v[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (r + 32 * k < n) v[k] = from[r + 32 * k];
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (r + 32 * k < n) to[r + 32 * k] = v[k];
    }
}

// The intervals laid end to end in a random order: each one's start (every element of the
// array covered once).
template <typename K>
static std::vector<K> shuffled_layout(const std::vector<K> &off, size_t items, uint64_t seed)
{
    size_t n = off.size();
    std::vector<size_t> perm(n);
    for (size_t j = 0; j < n; j++) perm[j] = j;
    for (size_t t = n; t > 1; t--) std::swap(perm[t - 1], perm[splitmix64(&seed) % t]);
    std::vector<K> start(n);
    K pos = 0;
    for (size_t t = 0; t < n; t++) {
        size_t j = perm[t];
        start[j] = pos;
        pos += (j + 1 < n ? off[j + 1] : (K)items) - off[j];
    }
    return start;
}

// 2^20 intervals of random counts over 2^lg items of V; gather and/or scatter through random
// permutations of the intervals, so every element is read once and written once.
template <typename K, typename V>
static void bench_move(const char *name, mj_key_kind kind, int lg, bool gather, bool scatter)
{
    size_t items = (size_t)1 << lg, objects = (size_t)1 << 20;
    std::vector<K> off = lbs_offsets<K>(items, objects);
    std::vector<K> gat = shuffled_layout<K>(off, items, 11), sca = shuffled_layout<K>(off, items, 12);
    std::vector<V> in(items);
    uint64_t seed = 9;
    for (auto &v : in) v = (V)splitmix64(&seed);
    DevBuf doff(objects * sizeof(K)), dgat(objects * sizeof(K)), dsca(objects * sizeof(K));
    DevBuf dobj(items * sizeof(K)), din(items * sizeof(V)), dout(items * sizeof(V));
    upload(doff, off.data());
    upload(dgat, gat.data());
    upload(dsca, sca.data());
    upload(din, in.data());
    const K *g = gather ? (const K *)dgat.p : nullptr, *sc = scatter ? (const K *)dsca.p : nullptr;
    mj_sorter *s = sorter(MJ_INTERVAL_MOVE, kind, sizeof(V));
    size_t mj_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, items + objects, 0, &mj_bytes));
    DevBuf mt(mj_bytes);
    auto run_thrust = [&] {
        auto pol = thrust::cuda::par.on(g_stream);
        const K *o = (const K *)doff.p;
        K *obj = (K *)dobj.p;
        thrust::counting_iterator<K> first(0);
        thrust::upper_bound(pol, o, o + objects, first, first + (K)items, obj);
        thrust::for_each_n(pol, first, items,
                           MoveOne<K, V>{obj, o, g, sc, (const V *)din.p, (V *)dout.p});
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_interval_move(s, doff.p, objects, items, g, sc, din.p, items, dout.p,
                                         items, mt.p, mt.bytes, g_stream));
    };
    run_thrust();
    auto want = download(dout, dout.bytes);
    CUDA_CHECK(cudaMemset(dout.p, 0, dout.bytes));
    run_mj();
    same_or_die(want, download(dout, dout.bytes), "move");
    const char *mode = gather && scatter ? "move" : gather ? "gather" : "scatter";
    char param[48];
    snprintf(param, sizeof param, "2^%d %s v%zu", lg, mode, sizeof(V));
    // Ideal traffic: the offsets, gather and scatter entries read once, each element read and
    // written once.
    double bytes = (double)objects * sizeof(K) * (1 + gather + scatter) + 2.0 * items * sizeof(V);
    race("move", name, param, items, [] {}, run_thrust, run_mj, "Thrust", bytes);
    auto run_pattern = [&] {
        move_pattern<K, V><<<warp_object_blocks(objects), 256, 0, g_stream>>>(
            (const K *)doff.p, objects, items, g, sc, (const V *)din.p, (V *)dout.p);
    };
    snprintf(param, sizeof param, "2^%d %s/pattern v%zu", lg, mode, sizeof(V));
    race_checked("move", name, param, items, dout, want, run_pattern, run_mj, "pattern", bytes);
#ifdef MJ_BENCH_MGPU
    if constexpr (std::is_same<K, int32_t>::value) { // Modern GPU's indices are int
        const V *vin = (const V *)din.p;
        V *vout = (V *)dout.p;
        const int *o = (const int *)doff.p;
        auto run_mgpu = [&] {
            if (g && sc)
                mgpu::interval_move(vin, (int)items, o, (int)objects, sc, g, vout, mgpu_context());
            else if (g)
                mgpu::interval_gather(vin, (int)items, o, (int)objects, g, vout, mgpu_context());
            else
                mgpu::interval_scatter(vin, (int)items, o, (int)objects, sc, vout, mgpu_context());
        };
        snprintf(param, sizeof param, "2^%d %s/mgpu v%zu", lg, mode, sizeof(V));
        race_checked("move", name, param, items, dout, want, run_mgpu, run_mj, "MGPU 2.0", bytes);
    }
#endif
    mj_sorter_destroy(s);
}

#endif
