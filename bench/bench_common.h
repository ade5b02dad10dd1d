/* SPDX-License-Identifier: Apache-2.0 */
// Shared by the benchmark programs: error checks that exit with the failing call's text, the
// input generator and the median of timed runs.
#ifndef MJ_BENCH_COMMON_H
#define MJ_BENCH_COMMON_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mergejit.h"

// The benchmark's context, for MJ_CHECK's message.
extern mj_context *g_ctx;

#define CUDA_CHECK(call)                                                                     \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorName(err_), cudaGetErrorString(err_));                       \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define MJ_CHECK(call)                                                                       \
    do {                                                                                     \
        mj_status st_ = (call);                                                              \
        if (st_ != MJ_OK) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,         \
                    mj_status_name(st_), mj_context_last_error(g_ctx));                      \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * ((double)v[m - 1] + (double)v[m]);
}

#endif
