/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' reduce-by-key cases: 2^lg keys (u32 or u64) in runs of random lengths of
// mean `mean` (1 to 2 * mean - 1; mean 1: every key differs from the one before it), each
// with a random u32 value, reduced to each run's first key and the sum of its values, against
// cub::DeviceReduce::ReduceByKey with a plus. Both write the run count to device memory in
// stream order. Included once, by bench_primitives.cu, after its helpers (DevBuf, upload,
// download, race, same_or_die, g_ctx, g_stream).
#ifndef MJ_BENCH_RBK_CASES_H
#define MJ_BENCH_RBK_CASES_H

#include <cub/device/device_reduce.cuh>

template <typename K> static void bench_reduce_by_key(const char *name, mj_key_kind kind, int lg,
                                                      int mean)
{
    size_t n = (size_t)1 << lg;
    std::vector<K> keys(n);
    std::vector<uint32_t> vals(n);
    uint64_t seed = 31;
    K key = 0;
    for (size_t i = 0, left = 0; i < n; i++, left--) {
        if (left == 0) {
            key += (K)(1 + splitmix64(&seed) % 1000); // differs from the run before
            left = 1 + (size_t)(splitmix64(&seed) % (uint64_t)(2 * mean - 1));
        }
        keys[i] = key;
        vals[i] = (uint32_t)splitmix64(&seed);
    }
    DevBuf dk(n * sizeof(K)), dv(n * 4), ok(n * sizeof(K)), ov(n * 4), count(8);
    upload(dk, keys.data());
    upload(dv, vals.data());
    size_t cub_bytes = 0, mj_bytes = 0;
    auto cub_call = [&](void *t, size_t &bytes) {
        return cub::DeviceReduce::ReduceByKey(t, bytes, (const K *)dk.p, (K *)ok.p,
                                              (const uint32_t *)dv.p, (uint32_t *)ov.p,
                                              (int64_t *)count.p, cuda::std::plus<uint32_t>{},
                                              (int64_t)n, g_stream);
    };
    CUDA_CHECK(cub_call(nullptr, cub_bytes));
    mj_sort_desc d;
    mj_sort_desc_init(&d, kind, MJ_ASCENDING);
    d.primitive = MJ_REDUCE_BY_KEY;
    d.value_size = 4;
    d.value_type = "unsigned";
    mj_sorter *s = nullptr;
    MJ_CHECK(mj_sorter_create(g_ctx, &d, &s));
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf ct(cub_bytes), mt(mj_bytes);
    auto run_cub = [&] {
        size_t bytes = cub_bytes;
        CUDA_CHECK(cub_call(ct.p, bytes));
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_reduce_by_key(s, dk.p, dv.p, n, ok.p, ov.p, count.p, mt.p, mt.bytes,
                                         g_stream));
    };
    run_cub();
    uint64_t runs = 0;
    auto c = download(count, 8);
    memcpy(&runs, c.data(), 8);
    auto want = download(ok, runs * sizeof(K));
    auto want_v = download(ov, runs * 4);
    CUDA_CHECK(cudaMemset(ok.p, 0, ok.bytes));
    CUDA_CHECK(cudaMemset(ov.p, 0, ov.bytes));
    CUDA_CHECK(cudaMemset(count.p, 0, 8));
    run_mj();
    uint64_t mj_runs = 0;
    c = download(count, 8);
    memcpy(&mj_runs, c.data(), 8);
    if (mj_runs != runs) {
        printf("MISMATCH reducebykey: %llu runs, CUB %llu\n", (unsigned long long)mj_runs,
               (unsigned long long)runs);
        exit(1);
    }
    same_or_die(want, download(ok, runs * sizeof(K)), "reduce-by-key keys");
    same_or_die(want_v, download(ov, runs * 4), "reduce-by-key values");
    char param[32];
    snprintf(param, sizeof param, "2^%d mean %d", lg, mean);
    // Ideal traffic: keys and values read once, one key and value written a run.
    race("rbk", name, param, n, [] {}, run_cub, run_mj, "CUB",
         (double)n * (sizeof(K) + 4) + (double)runs * (sizeof(K) + 4));
    mj_sorter_destroy(s);
}

#endif
