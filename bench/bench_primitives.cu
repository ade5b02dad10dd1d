/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives: mergejit's merge, segmented sort and locality sort, side by side in one
// process on the same inputs and stream:
//   merge     against cub::DeviceMerge::MergeKeys / MergePairs (sorted random halves);
//   segsort   against cub::DeviceSegmentedSort::StableSortKeys / StableSortPairs (CSR offsets
//             of fixed-length segments, the same offsets array handed to both);
//   locality  against mergejit's own mergesort, on nearly sorted input (sorted keys with a
//             fraction of them swapped with a key at most 1000 places away);
//   reduce    against cub::DeviceReduce (Sum, or Reduce with a maximum) of random keys;
//   scan      against cub::DeviceScan (ExclusiveSum, InclusiveSum, or an inclusive maximum);
//   lbs       against what a Thrust user writes: thrust::upper_bound of the item indices (a
//             counting iterator) over the offsets, minus 1 (2^20 objects of random counts);
//   expand    against the same plus thrust::gather of the objects' values; both also against
//             the output pattern's bound (a warp an object, handed its range: "/pattern" rows);
//   search    against thrust::lower_bound (and upper_bound for equality counts) of sorted
//             needles in a sorted haystack (bench_search_cases.h);
//   remove    against flags made by a scatter and cub::DeviceSelect::Flagged (a quarter removed);
//   insert    against thrust::merge_by_key of (positions, a) with (counting iterator, b)
//             (bench_bulk_cases.h);
//   move      interval gather, scatter and move against the same upper_bound as lbs plus a
//             thrust::for_each_n copying each item's element, then against the pattern's bound
//             (a warp an interval, handed its length: the "/pattern" rows; bench_move_cases.h);
//   join      an inner join against thrust::lower_bound, upper_bound, exclusive_scan and an
//             expand by upper_bound over the rows (bench_join_cases.h; rates in output rows);
//   setops    intersection, union, difference and symmetric difference against Thrust's
//             set_* and set_*_by_key (bench_setops_cases.h);
//   select    a predicate keeping 1%, 50% or 99% against cub::DeviceSelect::If, and unique of
//             keys in runs against cub::DeviceSelect::Unique (bench_select_cases.h);
//   segreduce against cub::DeviceSegmentedReduce::Sum of u32 keys in segments of random
//             lengths, mean 1, 8, 32, 1000 and 10^5 (bench_segreduce_cases.h);
//   rbk       reduce by key (runs of mean length 1, 4 and 1000, u32 values summed) against
//             cub::DeviceReduce::ReduceByKey (bench_rbk_cases.h).
// Built with -DMJ_MGPU_DIR=<a Modern GPU 2.0 checkout>, the rows Modern GPU has are also raced
// against it ("/mgpu" rows, bench_mgpu.h).
// Rows of primitives whose memory traffic is fixed (all but segsort and locality: bytes read
// plus written by an ideal pass) also give mergejit's bandwidth, beside the device-to-device
// copy bandwidth measured at the start of the run, and mergejit's speed as a share of a copy
// of the same bytes timed beside the row (a copy of that size, its launch and the L2 included).
// Each side runs once untimed and the outputs are compared byte for byte (everything is
// stable, so they must agree); then the sides alternate for --reps timed runs each (cudaEvents
// around the call only; in-place sorts get their input restored untimed first) and the medians
// are reported with their ratio (> 1: mergejit faster). Temporary storage is allocated once,
// outside the timed region.
//
//   bench_primitives [--reps N] [--quick] [--queued]
//                    [--only merge|segsort|locality|reduce|scan|lbs|expand|search|remove|
//                           insert|move|join|setops|select|segreduce|rbk]
//                    [--case u32|u64|pairs_u32|f64|i32|i64] [--lg 24|27] [--csv FILE]
//
// Sizes are 2^24 and 2^27 (2^24 alone with --quick; --lg picks one). With --queued each timed
// call is enqueued behind a kernel that holds the GPU for 200 us, so the times are the GPU's
// alone (the host's work to check and launch a call hidden, as nvbench times), and each row
// also gives the host's microseconds a call, reference / mergejit.

#include <cub/device/device_merge.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <type_traits>
#include <vector>

#include "bench_common.h"
#include "mergejit.h"

mj_context *g_ctx = nullptr;
static cudaStream_t g_stream;
static int g_reps = 7;
static FILE *g_csv = nullptr;
static double g_copy_gbs = 0; // device-to-device copy bandwidth of this run, GB/s
// --queued: each timed call is enqueued while the GPU is held busy (hold_gpu), so that its
// times are the GPU's alone, without the host's work to check arguments and launch (as
// nvbench measures); the host's time a call is printed beside them.
static bool g_queued = false;
static const long long g_queued_ns = 200000; // far above any call's host time

__global__ void hold_gpu(long long ns)
{
    long long t0 = clock64(), cycles = ns * 2; // 2 GHz at most: at least ns nanoseconds
    while (clock64() - t0 < cycles) {
    }
}

static double wall_us()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct DevBuf {
    void *p = nullptr;
    size_t bytes = 0;
    explicit DevBuf(size_t b) : bytes(b) { CUDA_CHECK(cudaMalloc(&p, b ? b : 1)); }
    ~DevBuf() { cudaFree(p); }
    DevBuf(const DevBuf &) = delete;
    DevBuf &operator=(const DevBuf &) = delete;
};

static void upload(DevBuf &d, const void *h)
{
    CUDA_CHECK(cudaMemcpy(d.p, h, d.bytes, cudaMemcpyHostToDevice));
}

static std::vector<unsigned char> download(const DevBuf &d, size_t bytes)
{
    std::vector<unsigned char> h(bytes);
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
    CUDA_CHECK(cudaMemcpy(h.data(), d.p, bytes, cudaMemcpyDeviceToHost));
    return h;
}


// The median ms of a device-to-device copy of `bytes` (so 2 x bytes read and written) over five
// runs after one to warm up, timed as race times a call (behind hold_gpu with --queued).
static double copy_ms(size_t bytes)
{
    DevBuf a(bytes), b(bytes);
    CUDA_CHECK(cudaMemsetAsync(a.p, 1, bytes, g_stream));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int r = 0; r < 6; r++) {
        if (g_queued) hold_gpu<<<1, 1, 0, g_stream>>>(g_queued_ns);
        CUDA_CHECK(cudaEventRecord(e0, g_stream));
        CUDA_CHECK(cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice, g_stream));
        CUDA_CHECK(cudaEventRecord(e1, g_stream));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) t.push_back(ms); // the first warms up
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return median(t);
}

// Times `ref` (the reference: CUB, or mergesort for locality) and `mj`, alternating; `prep`
// runs untimed before each. Prints one row; with `bytes` (what an ideal pass reads and
// writes), mergejit's bandwidth and its share of the copy bandwidth too, and the reference's
// share (a speed-up over the reference above copy / reference share needs more than a copy),
// and mergejit's speed as a share of a copy of those bytes timed here: what one pass over
// them reaches at this size (its launch, and the L2 where they fit), not the big copy's speed.
static void race(const char *prim, const char *name, const char *param, size_t n,
                 const std::function<void()> &prep, const std::function<void()> &ref,
                 const std::function<void()> &mj, const char *ref_name, double bytes = 0)
{
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    std::vector<float> t[2], host[2];
    for (int r = 0; r < g_reps; r++)
        for (int side = 0; side < 2; side++) {
            prep();
            if (g_queued) hold_gpu<<<1, 1, 0, g_stream>>>(g_queued_ns);
            CUDA_CHECK(cudaEventRecord(a, g_stream));
            double h0 = wall_us();
            (side ? mj : ref)();
            host[side].push_back((float)(wall_us() - h0));
            CUDA_CHECK(cudaEventRecord(b, g_stream));
            CUDA_CHECK(cudaEventSynchronize(b));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
            t[side].push_back(ms);
        }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    double rm = median(t[0]), mm = median(t[1]);
    printf("%-9s %-10s %-12s %11zu  %-9s %8.3f ms %7.2f Gk/s | mergejit %8.3f ms %7.2f Gk/s"
           " | %6.3f",
           prim, name, param, n, ref_name, rm, n / rm / 1e6, mm, n / mm / 1e6, rm / mm);
    if (g_queued) // the host's time to enqueue a call, hidden behind hold_gpu in these times
        printf(" | host us %.1f / %.1f", median(host[0]), median(host[1]));
    double gbs = bytes > 0 ? bytes / mm / 1e6 : 0;
    if (bytes > 0)
        printf(" | %7.1f GB/s %5.1f%% of copy, %s %5.1f%% | %5.1f%% of a same-size copy", gbs,
               100 * gbs / g_copy_gbs, ref_name, 100 * bytes / rm / 1e6 / g_copy_gbs,
               100 * copy_ms((size_t)(bytes / 2)) / mm);
    printf("\n");
    fflush(stdout);
    if (g_csv)
        fprintf(g_csv, "%s,%s,%s,%zu,%s,%.5f,%.5f,%.4f,%.1f\n", prim, name, param, n, ref_name,
                rm, mm, rm / mm, gbs);
}

static void same_or_die(const std::vector<unsigned char> &x, const std::vector<unsigned char> &y,
                        const char *what)
{
    if (x != y) {
        size_t i = 0;
        while (x[i] == y[i]) i++;
        printf("MISMATCH %s: outputs differ first at byte %zu\n", what, i);
        exit(1);
    }
}

// Runs `ref` once (a second reference: a pattern kernel, Modern GPU) and checks its output
// against the first reference's (want), then races it against mergejit on the same traffic.
static void race_checked(const char *prim, const char *name, const char *param, size_t n,
                         DevBuf &out, const std::vector<unsigned char> &want,
                         const std::function<void()> &ref, const std::function<void()> &mj,
                         const char *ref_name, double bytes)
{
    CUDA_CHECK(cudaMemset(out.p, 0, out.bytes));
    ref();
    CUDA_CHECK(cudaGetLastError());
    char what[96];
    snprintf(what, sizeof what, "%s %s %s", prim, name, param);
    same_or_die(want, download(out, out.bytes), what);
    race(prim, name, param, n, [] {}, ref, mj, ref_name, bytes);
}

#ifdef MJ_BENCH_MGPU
#include "bench_mgpu.h"
#endif

static mj_sorter *sorter(mj_primitive p, mj_key_kind k, size_t value_size)
{
    mj_sort_desc d;
    mj_sort_desc_init(&d, k, MJ_ASCENDING);
    d.primitive = p;
    d.value_size = value_size;
    mj_sorter *s = nullptr;
    MJ_CHECK(mj_sorter_create(g_ctx, &d, &s));
    return s;
}

template <typename K> static void random_keys(std::vector<K> &v, uint64_t seed)
{
    for (auto &x : v) x = (K)splitmix64(&seed);
}

// v.size() draws of splitmix64(seed) % range, sorted: what std::sort of the draws gives, by
// counting (2^27 keys in about a second instead of a dozen).
template <typename K> static void sorted_draws(std::vector<K> &v, uint64_t range, uint64_t *seed)
{
    std::vector<uint32_t> count(range);
    for (size_t i = 0; i < v.size(); i++) count[splitmix64(seed) % range]++;
    size_t at = 0;
    for (uint64_t k = 0; k < range; k++)
        for (uint32_t c = count[k]; c; c--) v[at++] = (K)k;
}

// Two arrays of n sorted draws below `range`, a then b from `seed` (sorted_draws): the cases of
// one size that share their inputs (a set operation's four, a join's three, the search's
// bounds and counts) draw them once and reuse them; only the last pair asked for is kept.
static const std::vector<uint32_t> *sorted_pair(size_t n, uint64_t range, uint64_t seed)
{
    static std::vector<uint32_t> pair[2];
    static uint64_t kept_range = 0, kept_seed = 0;
    if (pair[0].size() != n || kept_range != range || kept_seed != seed) {
        uint64_t state = seed;
        for (auto &v : pair) {
            v.assign(n, 0);
            sorted_draws(v, range, &state);
        }
        kept_range = range;
        kept_seed = seed;
    }
    return pair;
}

// ---------------------------------------------------------------- merge

template <typename K> static void bench_merge(const char *name, mj_key_kind kind, int lg)
{
    size_t n = (size_t)1 << lg, na = n / 2, nb = n - na;
    std::vector<K> a(na), b(nb);
    random_keys(a, 1);
    random_keys(b, 2);
    DevBuf da(na * sizeof(K)), db(nb * sizeof(K)), out(n * sizeof(K));
    upload(da, a.data());
    upload(db, b.data());
    // Sorted on the GPU: the arrays std::sort gives, in milliseconds rather than seconds.
    thrust::sort(thrust::cuda::par.on(g_stream), (K *)da.p, (K *)da.p + na);
    thrust::sort(thrust::cuda::par.on(g_stream), (K *)db.p, (K *)db.p + nb);
    size_t cub_bytes = 0, mj_bytes = 0;
    CUDA_CHECK(cub::DeviceMerge::MergeKeys(nullptr, cub_bytes, (K *)da.p, (int64_t)na, (K *)db.p,
                                           (int64_t)nb, (K *)out.p, cuda::std::less<K>{},
                                           g_stream));
    mj_sorter *s = sorter(MJ_MERGE, kind, 0);
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf ct(cub_bytes), mt(mj_bytes);
    auto run_cub = [&] {
        size_t bytes = cub_bytes;
        CUDA_CHECK(cub::DeviceMerge::MergeKeys(ct.p, bytes, (K *)da.p, (int64_t)na, (K *)db.p,
                                               (int64_t)nb, (K *)out.p, cuda::std::less<K>{},
                                               g_stream));
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_merge(s, da.p, nullptr, na, db.p, nullptr, nb, out.p, nullptr, mt.p,
                                 mt.bytes, g_stream));
    };
    run_cub();
    auto want = download(out, out.bytes);
    CUDA_CHECK(cudaMemset(out.p, 0, out.bytes));
    run_mj();
    same_or_die(want, download(out, out.bytes), "merge");
    char param[16];
    snprintf(param, sizeof param, "2^%d", lg);
    double bytes = 2.0 * n * sizeof(K); // both inputs read once, the output written once
    race("merge", name, param, n, [] {}, run_cub, run_mj, "CUB", bytes);
#ifdef MJ_BENCH_MGPU
    auto run_mgpu = [&] {
        mgpu::merge((const K *)da.p, (int)na, (const K *)db.p, (int)nb, (K *)out.p,
                    mgpu::less_t<K>(), mgpu_context());
    };
    snprintf(param, sizeof param, "2^%d/mgpu", lg);
    race_checked("merge", name, param, n, out, want, run_mgpu, run_mj, "MGPU 2.0", bytes);
#endif
    mj_sorter_destroy(s);
}

// ---------------------------------------------------------------- segmented sort

template <typename K, typename V>
static void bench_segsort(const char *name, mj_key_kind kind, size_t n, long seglen)
{
    const bool pairs = !std::is_void<V>::value;
    typedef typename std::conditional<std::is_void<V>::value, uint32_t, V>::type VV;
    std::vector<K> keys(n);
    random_keys(keys, 3);
    std::vector<VV> vals(pairs ? n : 0);
    for (size_t i = 0; i < vals.size(); i++) vals[i] = (VV)i;
    size_t segs = (n + seglen - 1) / seglen;
    std::vector<int> offsets(segs + 1);
    for (size_t i = 0; i <= segs; i++) offsets[i] = (int)std::min(n, i * (size_t)seglen);
    DevBuf dk_in(n * sizeof(K)), dk(n * sizeof(K)), dko(n * sizeof(K));
    DevBuf dv_in(vals.size() * sizeof(VV)), dv(vals.size() * sizeof(VV)),
        dvo(vals.size() * sizeof(VV));
    DevBuf doff(offsets.size() * sizeof(int));
    upload(dk_in, keys.data());
    if (pairs) upload(dv_in, vals.data());
    upload(doff, offsets.data());
    const int *beg = (const int *)doff.p, *end = beg + 1;
    auto cub_call = [&](void *t, size_t &bytes) {
        if constexpr (std::is_void<V>::value)
            return cub::DeviceSegmentedSort::StableSortKeys(t, bytes, (const K *)dk_in.p,
                                                            (K *)dko.p, (int64_t)n,
                                                            (int64_t)segs, beg, end, g_stream);
        else
            return cub::DeviceSegmentedSort::StableSortPairs(
                t, bytes, (const K *)dk_in.p, (K *)dko.p, (const VV *)dv_in.p, (VV *)dvo.p,
                (int64_t)n, (int64_t)segs, beg, end, g_stream);
    };
    size_t cub_bytes = 0, mj_bytes = 0;
    CUDA_CHECK(cub_call(nullptr, cub_bytes));
    mj_sorter *s = sorter(MJ_SEGMENTED_SORT, kind, pairs ? sizeof(VV) : 0);
    MJ_CHECK(mj_sorter_temp_size(s, n, 0, &mj_bytes));
    DevBuf ct(cub_bytes), mt(mj_bytes);
    mj_segments sg = {MJ_SEGMENTS_OFFSETS, doff.p, offsets.size(), sizeof(int)};
    auto prep = [&] {
        CUDA_CHECK(cudaMemcpyAsync(dk.p, dk_in.p, dk.bytes, cudaMemcpyDeviceToDevice, g_stream));
        if (pairs)
            CUDA_CHECK(cudaMemcpyAsync(dv.p, dv_in.p, dv.bytes, cudaMemcpyDeviceToDevice,
                                       g_stream));
    };
    auto run_cub = [&] {
        size_t bytes = cub_bytes;
        CUDA_CHECK(cub_call(ct.p, bytes));
    };
    auto run_mj = [&] {
        MJ_CHECK(mj_sorter_segmented_sort(s, dk.p, pairs ? dv.p : nullptr, n, &sg, mt.p,
                                          mt.bytes, g_stream));
    };
    run_cub();
    prep();
    run_mj();
    same_or_die(download(dko, dko.bytes), download(dk, dk.bytes), "segmented sort keys");
    if (pairs)
        same_or_die(download(dvo, dvo.bytes), download(dv, dv.bytes), "segmented sort values");
    char param[32];
    snprintf(param, sizeof param, "seglen %ld", seglen);
    race("segsort", name, param, n, prep, run_cub, run_mj, "CUB");
    mj_sorter_destroy(s);
}

// ---------------------------------------------------------------- locality sort

static void bench_locality(const char *name, size_t n, double swap_fraction)
{
    std::vector<uint32_t> keys(n);
    for (size_t i = 0; i < n; i++) keys[i] = (uint32_t)i;
    uint64_t seed = 4;
    size_t swaps = (size_t)(swap_fraction * n);
    // Nearly sorted: each swap exchanges two keys at most 1000 places apart.
    for (size_t k = 0; k < swaps; k++) {
        size_t i = splitmix64(&seed) % n, j = i + splitmix64(&seed) % 1000;
        std::swap(keys[i], keys[j < n ? j : n - 1]);
    }
    DevBuf in(n * 4), d(n * 4);
    upload(in, keys.data());
    mj_sorter *ms = sorter(MJ_MERGESORT, MJ_KEY_U32, 0);
    mj_sorter *ls = sorter(MJ_LOCALITY_SORT, MJ_KEY_U32, 0);
    size_t mb = 0, lb = 0;
    MJ_CHECK(mj_sorter_temp_size(ms, n, 0, &mb));
    MJ_CHECK(mj_sorter_temp_size(ls, n, 0, &lb));
    DevBuf mt(mb), lt(lb);
    auto prep = [&] {
        CUDA_CHECK(cudaMemcpyAsync(d.p, in.p, d.bytes, cudaMemcpyDeviceToDevice, g_stream));
    };
    auto run_ms = [&] { MJ_CHECK(mj_sorter_sort(ms, d.p, nullptr, n, mt.p, mt.bytes, g_stream)); };
    auto run_ls = [&] { MJ_CHECK(mj_sorter_sort(ls, d.p, nullptr, n, lt.p, lt.bytes, g_stream)); };
    prep();
    run_ms();
    auto want = download(d, d.bytes);
    prep();
    run_ls();
    same_or_die(want, download(d, d.bytes), "locality sort");
    char param[32];
    snprintf(param, sizeof param, "%g%% near", swap_fraction * 100);
    race("locality", name, param, n, prep, run_ms, run_ls, "mergesort");
    mj_sorter_destroy(ms);
    mj_sorter_destroy(ls);
}

// ---------------------------------------------------------------- copy bandwidth

// The device-to-device copy of 2 x 512 MiB, median of 5: bytes read plus written over time.
static void measure_copy()
{
    size_t bytes = (size_t)512 << 20;
    g_copy_gbs = 2.0 * bytes / copy_ms(bytes) / 1e6;
    printf("copy: %.1f GB/s (device to device, 2 x 512 MiB, read + written)\n", g_copy_gbs);
}

#include "bench_family_cases.h"
#include "bench_search_cases.h"
#include "bench_bulk_cases.h"
#include "bench_move_cases.h"
#include "bench_join_cases.h"
#include "bench_setops_cases.h"
#include "bench_select_cases.h"
#include "bench_segreduce_cases.h"
#include "bench_rbk_cases.h"

int main(int argc, char **argv)
{
    bool quick = false;
    int only_lg = 0;
    const char *only = nullptr, *only_case = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            g_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--queued"))
            g_queued = true;
        else if (!strcmp(argv[i], "--lg") && i + 1 < argc)
            only_lg = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            only_case = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            g_csv = fopen(argv[++i], "w");
            if (!g_csv) {
                perror("--csv");
                return 2;
            }
            fprintf(g_csv, "primitive,case,param,n,reference,ref_ms,mj_ms,ratio,mj_gbs\n");
        } else {
            fprintf(stderr, "usage: bench_primitives [--reps N] [--quick] [--queued] "
                            "[--only merge|segsort|locality|reduce|scan|lbs|expand|search|"
                            "remove|insert|move|join|setops|select|segreduce|rbk] "
                            "[--case u32|u64|pairs_u32|f64|i32|i64] [--lg 24|27] "
                            "[--csv FILE]\n");
            return 2;
        }
    }
    if (g_reps < 1) g_reps = 1;
    if (quick) g_reps = std::min(g_reps, 3);
    mj_status st = mj_context_create(nullptr, &g_ctx);
    if (st != MJ_OK) {
        fprintf(stderr, "bench_primitives: %s: %s\n", mj_status_name(st),
                mj_context_last_error(g_ctx));
        return 1;
    }
    CUDA_CHECK(cudaStreamCreate(&g_stream));
    printf("device: %s; reps %d (median); ratio = reference ms / mergejit ms\n",
           mj_context_device_name(g_ctx), g_reps);
    measure_copy();
    auto want = [&](const char *p) { return !only || !strcmp(only, p); };
    auto want_case = [&](const char *c) { return !only_case || !strcmp(only_case, c); };
    // The sizes a case runs at: 2^24 and 2^27, 2^24 alone with --quick, or the one --lg names.
    auto skip_lg = [&](int lg) { return (quick && lg == 27) || (only_lg && lg != only_lg); };
    if (want("merge")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            if (want_case("u32")) bench_merge<uint32_t>("u32", MJ_KEY_U32, lg);
            if (want_case("u64")) bench_merge<uint64_t>("u64", MJ_KEY_U64, lg);
        }
    }
    if (want("segsort")) {
        size_t n = (size_t)1 << 24;
        for (long len : {32L, 300L, 10000L, 1000000L}) {
            if (want_case("u32")) bench_segsort<uint32_t, void>("u32", MJ_KEY_U32, n, len);
            if (want_case("u64")) bench_segsort<uint64_t, void>("u64", MJ_KEY_U64, n, len);
            if (want_case("pairs_u32"))
                bench_segsort<uint32_t, uint32_t>("pairs_u32", MJ_KEY_U32, n, len);
        }
    }
    if (want("locality") && want_case("u32")) {
        size_t n = (size_t)1 << 24;
        for (double f : {0.0, 1e-5, 1e-3, 1e-2}) bench_locality("u32", n, f);
    }
    if (want("reduce")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            if (want_case("u32")) bench_reduce<uint32_t, false>("u32", MJ_KEY_U32, lg);
            if (want_case("u64")) bench_reduce<uint64_t, false>("u64", MJ_KEY_U64, lg);
            if (want_case("f64")) bench_reduce<double, true>("f64", MJ_KEY_F64, lg);
        }
    }
    if (want("scan")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (bool inc : {false, true}) {
                if (want_case("u32")) bench_scan<uint32_t, false>("u32", MJ_KEY_U32, inc, lg);
                if (want_case("u64")) bench_scan<uint64_t, false>("u64", MJ_KEY_U64, inc, lg);
            }
            if (want_case("f64")) bench_scan<double, true>("f64", MJ_KEY_F64, true, lg);
        }
    }
    if (want("lbs")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            if (want_case("i32")) bench_lbs<int32_t, void>("i32", MJ_KEY_I32, lg);
            if (want_case("i64")) bench_lbs<int64_t, void>("i64", MJ_KEY_I64, lg);
        }
    }
    if (want("expand")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            if (want_case("i32")) bench_lbs<int32_t, uint32_t>("i32", MJ_KEY_I32, lg);
            if (want_case("i64")) bench_lbs<int64_t, uint64_t>("i64", MJ_KEY_I64, lg);
        }
    }
    if (want("search")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (bool counts : {false, true}) {
                if (want_case("u32")) bench_search<uint32_t>("u32", MJ_KEY_U32, lg, counts);
                if (want_case("u64")) bench_search<uint64_t>("u64", MJ_KEY_U64, lg, counts);
            }
        }
    }
    for (const char *bulk : {"remove", "insert"}) {
        if (!want(bulk)) continue;
        auto run = bulk[0] == 'r' ? bench_remove<uint32_t, void> : bench_insert<uint32_t, void>;
        auto run64 = bulk[0] == 'r' ? bench_remove<uint64_t, void> : bench_insert<uint64_t, void>;
        auto runp = bulk[0] == 'r' ? bench_remove<uint32_t, uint32_t>
                                   : bench_insert<uint32_t, uint32_t>;
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            if (want_case("u32")) run("u32", MJ_KEY_U32, lg);
            if (want_case("u64")) run64("u64", MJ_KEY_U64, lg);
            if (want_case("pairs_u32")) runp("pairs_u32", MJ_KEY_U32, lg);
        }
    }
    if (want("move")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            if (want_case("i32"))
                for (int mode = 0; mode < 3; mode++) // gather, scatter, both
                    bench_move<int32_t, uint32_t>("i32", MJ_KEY_I32, lg, mode != 1, mode != 0);
            if (want_case("i64")) bench_move<int64_t, uint64_t>("i64", MJ_KEY_I64, lg, true, true);
        }
    }
    if (want("join") && want_case("u32")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (JoinCase jc : {JOIN_ROWS, JOIN_COUNT_ROWS, JOIN_PLAN_ROWS}) bench_join(lg, jc);
        }
    }
    if (want("setops")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (int op = 0; op < 4; op++) {
                if (want_case("u32"))
                    bench_setops<uint32_t, void>("u32", MJ_KEY_U32, lg, (mj_set_op)op);
                if (want_case("pairs_u32"))
                    bench_setops<uint32_t, uint32_t>("pairs_u32", MJ_KEY_U32, lg, (mj_set_op)op);
            }
        }
    }
    if (want("select")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (bool unique : {false, true})
                for (int percent : {1, 50, 99}) {
                    if (want_case("u32"))
                        bench_select<uint32_t>("u32", MJ_KEY_U32, lg, percent, unique);
                    if (want_case("u64"))
                        bench_select<uint64_t>("u64", MJ_KEY_U64, lg, percent, unique);
                }
        }
    }
    if (want("segreduce") && want_case("u32")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (long mean : {1L, 8L, 32L, 1000L, 100000L, 1L << 25}) bench_segreduce(lg, mean);
        }
    }
    if (want("rbk")) {
        for (int lg : {24, 27}) {
            if (skip_lg(lg)) continue;
            for (int mean : {1, 4, 1000}) {
                if (want_case("u32")) bench_reduce_by_key<uint32_t>("u32", MJ_KEY_U32, lg, mean);
                if (want_case("u64")) bench_reduce_by_key<uint64_t>("u64", MJ_KEY_U64, lg, mean);
            }
        }
    }
    if (g_csv) fclose(g_csv);
    cudaStreamDestroy(g_stream);
    mj_context_destroy(g_ctx);
    return 0;
}
