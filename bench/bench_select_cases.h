/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' cases of select, against what a CUB user writes. Included once, by
// bench_primitives.cu, after its helpers (DevBuf, upload, download, race, same_or_die,
// g_ctx, g_stream).
//   select  random keys, those with key % 100 below 1, 50 or 99 kept (1%, 50% and 99%
//           selectivity), against cub::DeviceSelect::If with the same predicate;
//   unique  keys in runs whose first element is 1%, 50% or 99% of all (a new key with that
//           probability at each element), against cub::DeviceSelect::Unique.
#ifndef MJ_BENCH_SELECT_CASES_H
#define MJ_BENCH_SELECT_CASES_H

#include <cub/device/device_select.cuh>

template <typename K> struct KeepBelow {
    K percent;
    __host__ __device__ bool operator()(const K &a) const { return a % 100 < percent; }
};

// Keys K; unique 0: select with `percent`% kept, 1: unique with that share of run heads.
template <typename K>
static void bench_select(const char *name, mj_key_kind kind, int lg, int percent, bool unique)
{
    size_t n = (size_t)1 << lg;
    std::vector<K> keys(n);
    uint64_t seed = 31 + (uint64_t)percent;
    K run = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(&seed);
        if (unique) {
            run += (K)(r % 100 < (uint64_t)percent);
            keys[i] = run;
        } else {
            keys[i] = (K)r;
        }
    }
    DevBuf dk(n * sizeof(K)), ok(n * sizeof(K)), count(8), cub_count(8);
    upload(dk, keys.data());
    char op[32];
    snprintf(op, sizeof op, "a %% 100 < %d", percent);
    mj_sort_desc d;
    mj_sort_desc_init(&d, kind, MJ_ASCENDING);
    d.primitive = MJ_SELECT;
    d.op = unique ? nullptr : op;
    mj_sorter *s = nullptr;
    MJ_CHECK(mj_sorter_create(g_ctx, &d, &s));
    size_t mj_bytes = 0, cub_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    const K *in = (const K *)dk.p;
    K *out = (K *)ok.p;
    int *num = (int *)cub_count.p;
    KeepBelow<K> keep{(K)percent};
    if (unique)
        CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, cub_bytes, in, out, num, (int)n, g_stream));
    else
        CUDA_CHECK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, num, (int)n, keep,
                                         g_stream));
    DevBuf mt(mj_bytes), ct(cub_bytes);
    auto run_cub = [&] {
        size_t b = ct.bytes;
        if (unique)
            CUDA_CHECK(cub::DeviceSelect::Unique(ct.p, b, in, out, num, (int)n, g_stream));
        else
            CUDA_CHECK(cub::DeviceSelect::If(ct.p, b, in, out, num, (int)n, keep, g_stream));
    };
    mj_select_kind sk = unique ? MJ_SELECT_UNIQUE : MJ_SELECT_IF;
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_select(s, sk, dk.p, nullptr, n, ok.p, nullptr, count.p, mt.p, mt.bytes,
                                  g_stream));
    };
    run_cub();
    auto c = download(cub_count, 4);
    int cub_n = 0;
    memcpy(&cub_n, c.data(), 4);
    auto want = download(ok, (size_t)cub_n * sizeof(K));
    CUDA_CHECK(cudaMemset(ok.p, 0, ok.bytes));
    run_mj();
    uint64_t mj_n = 0;
    c = download(count, 8);
    memcpy(&mj_n, c.data(), 8);
    if (mj_n != (uint64_t)cub_n) {
        printf("MISMATCH %s %s: %llu kept, CUB %d\n", unique ? "unique" : "select", name,
               (unsigned long long)mj_n, cub_n);
        exit(1);
    }
    same_or_die(want, download(ok, (size_t)cub_n * sizeof(K)), unique ? "unique" : "select");
    char param[32];
    snprintf(param, sizeof param, "2^%d %d%%", lg, percent);
    // Ideal traffic: the input read once, the kept elements written once.
    race(unique ? "unique" : "select", name, param, n, [] {}, run_cub, run_mj, "CUB",
         ((double)n + (double)cub_n) * sizeof(K));
    mj_sorter_destroy(s);
}

#endif
