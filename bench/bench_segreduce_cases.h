/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' segmented reduction cases: 2^lg random u32 keys in segments of random
// lengths 0 to 2 x the mean (CSR offsets, 4-byte: the same array handed to both), each summed,
// against cub::DeviceSegmentedReduce::Sum (a block a segment). A mean of 2^25 leaves a few
// giant segments: the longest look-backs. Included once, by
// bench_primitives.cu, after its helpers (DevBuf, upload, download, race, same_or_die,
// sorter, g_stream).
#ifndef MJ_BENCH_SEGREDUCE_CASES_H
#define MJ_BENCH_SEGREDUCE_CASES_H

#include <cub/device/device_segmented_reduce.cuh>

static void bench_segreduce(int lg, long mean)
{
    size_t n = (size_t)1 << lg;
    std::vector<uint32_t> keys(n);
    random_keys(keys, 11);
    std::vector<int> offsets(1, 0);
    offsets.reserve(n / (size_t)mean + 16);
    uint64_t seed = 12;
    while ((size_t)offsets.back() < n) {
        size_t len = splitmix64(&seed) % (2 * (uint64_t)mean + 1);
        offsets.push_back((int)std::min(n, (size_t)offsets.back() + len));
    }
    size_t segs = offsets.size() - 1;
    DevBuf din(n * 4), doff(offsets.size() * 4), dc(segs * 4), dm(segs * 4);
    upload(din, keys.data());
    upload(doff, offsets.data());
    const int *beg = (const int *)doff.p;
    size_t cub_bytes = 0, mj_bytes = 0;
    CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, cub_bytes, (const uint32_t *)din.p,
                                               (uint32_t *)dc.p, (int)segs, beg, beg + 1,
                                               g_stream));
    mj_sorter *s = sorter(MJ_SEGMENTED_REDUCE, MJ_KEY_U32, 0);
    MJ_CHECK(mj_sorter_temp_size(s, n + offsets.size(), 0, &mj_bytes));
    DevBuf ct(cub_bytes), mt(mj_bytes);
    mj_segments sg = {MJ_SEGMENTS_OFFSETS, doff.p, offsets.size(), 4};
    auto run_cub = [&] {
        size_t bytes = cub_bytes;
        CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(ct.p, bytes, (const uint32_t *)din.p,
                                                   (uint32_t *)dc.p, (int)segs, beg, beg + 1,
                                                   g_stream));
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_segmented_reduce(s, din.p, n, &sg, dm.p, mt.p, mt.bytes, g_stream));
    };
    run_cub();
    run_mj();
    same_or_die(download(dc, dc.bytes), download(dm, dm.bytes), "segmented reduce sums");
    char param[32];
    snprintf(param, sizeof param, "2^%d len %ld", lg, mean);
    race("segreduce", "u32", param, n, [] {}, run_cub, run_mj, "CUB",
         (double)n * 4 + (double)offsets.size() * 4 + (double)segs * 4);
    mj_sorter_destroy(s);
}

#endif
