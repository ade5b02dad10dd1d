/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' rows against Modern GPU 2.0 (the seeds' library in its later version,
// header-only), built where CMake is given -DMJ_MGPU_DIR=<a moderngpu checkout>: merge, sorted
// search (lower bounds), load-balancing search, interval expand, gather, scatter and move
// (4-byte indices), bulk insert (keys alone), each on the row's inputs, its output checked
// against the row's first reference before it is timed (race_checked). The rows' reference
// column reads "MGPU 2.0"; their parameter ends in /mgpu. Modern GPU 2.0 predates CUDA 13 and
// sm_70's warp intrinsics: docs/TUNING.md ("Against Modern GPU 2.0 in the same run") gives the
// three edits its headers need to build with CUDA 13.
#ifndef MJ_BENCH_MGPU_H
#define MJ_BENCH_MGPU_H

#include <moderngpu/kernel_bulkinsert.hxx>
#include <moderngpu/kernel_intervalmove.hxx>
#include <moderngpu/kernel_load_balance.hxx>
#include <moderngpu/kernel_merge.hxx>
#include <moderngpu/kernel_sortedsearch.hxx>

#include <map>

// Modern GPU's standard context allocates each call's temporary arrays with cudaMalloc and
// frees them with cudaFree; this one keeps them for the next call of the same size, so that its
// rows time the kernels (mergejit's temporary storage is allocated outside the timed region).
class MgpuPoolContext : public mgpu::standard_context_t {
    std::multimap<size_t, void *> idle_;
    std::map<void *, size_t> size_;

public:
    explicit MgpuPoolContext(cudaStream_t s) : mgpu::standard_context_t(false, s) {}
    void *alloc(size_t size, mgpu::memory_space_t space) override
    {
        if (space != mgpu::memory_space_device) return standard_context_t::alloc(size, space);
        auto it = idle_.find(size);
        if (it != idle_.end()) {
            void *p = it->second;
            idle_.erase(it);
            return p;
        }
        void *p = standard_context_t::alloc(size, space);
        size_[p] = size;
        return p;
    }
    void free(void *p, mgpu::memory_space_t space) override
    {
        if (space != mgpu::memory_space_device || !p) return standard_context_t::free(p, space);
        idle_.emplace(size_[p], p);
    }
};

// The one context, on the benchmark's stream (made on first use: after g_stream exists).
static mgpu::context_t &mgpu_context()
{
    static MgpuPoolContext ctx(g_stream);
    return ctx;
}

#endif
