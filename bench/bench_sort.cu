/* SPDX-License-Identifier: Apache-2.0 */
// bench_sort: mergejit's merge sort against cub::DeviceMergeSort, and for built-in keys
// cub::DeviceRadixSort beside, in one process, on the same inputs, on the same stream.
//
// For every (case, size): random keys (fixed seed, splitmix64 on the host) are uploaded once.
// Each measurement first restores the unsorted input into the working buffers with an untimed
// cudaMemcpyAsync, then times only the sort with a pair of cudaEvents. The first run of each
// side is an untimed warm-up, and its results are compared byte for byte (both sorts are stable,
// so keys and values must agree exactly; the radix sort's too). The timed runs alternate CUB,
// mergejit and CUB's radix sort; the median of --reps is reported. Temporary storage of both sides is allocated once per size, outside
// the timed region. The mergejit sorter is built once per case, before any timing.
//
// After the timed runs of a (case, size): the copy bandwidth of the same run (the untimed
// restore, a device-to-device copy of the keys and values, timed --reps times: bytes read plus
// written over the median time) and one profiled mergejit sort (mj_sorter_sort_profiled: events
// between the passes), also checked against CUB's output. A second table, after the first,
// gives per (case, size) the passes, each kind's bandwidth (bytes read plus written over GPU
// time, summed over the passes of that kind) beside the copy's, the profiled sort's total
// against the timed median (what the events cost), and the timed median over what its passes
// would take at the copy's speed (copy_x: the passes times the copy's time).
//
//   bench_sort [--sizes 20,24,27] [--cases u32,u64,...] [--reps 7] [--quick] [--csv FILE]
//              [--device N] [--seed S]

#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "bench_sort_cases.h"
#include "mergejit.h"

mj_context *g_ctx = nullptr;

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static const char *source_name(int source)
{
    switch (source) {
    case 0: return "compiled with NVRTC";
    case 1: return "from the disk cache";
    case 2: return "from the context's memory";
    default: return "from an unknown source";
    }
}

// ---------------------------------------------------------------- one (case, size)

struct Timing {
    double cub_ms, mj_ms;
    double radix_ms;                     // CUB's radix sort; -1 where the case has none
    double copy_ms;                      // the keys+values copy, median of reps
    std::vector<mj_sort_pass> passes;    // the profiled sort's
};

// Bytes over milliseconds summed over the passes of one kind, in GB/s; -1 when there is none.
static double kind_gbs(const std::vector<mj_sort_pass> &passes, mj_pass_kind kind)
{
    return mj_sort_passes_gbs(passes.data(), (int)passes.size(), kind);
}

// One row of the pass table (and the CSV's pass columns).
struct PassRow {
    char passes[64];
    double bs_gbs, m2_gbs, m4_gbs, copy_gbs, profiled_ms, timed_ms;
    double copy_x; // timed_ms over the passes at copy speed
};

static PassRow pass_row(const Timing &t, size_t bytes)
{
    PassRow r;
    mj_sort_passes_text(t.passes.data(), (int)t.passes.size(), r.passes, sizeof r.passes);
    r.bs_gbs = kind_gbs(t.passes, MJ_PASS_BLOCKSORT);
    r.m2_gbs = kind_gbs(t.passes, MJ_PASS_MERGE2);
    r.m4_gbs = kind_gbs(t.passes, MJ_PASS_MERGE4);
    r.copy_gbs = t.copy_ms > 0 ? 2.0 * (double)bytes / (t.copy_ms * 1e6) : -1;
    r.profiled_ms = 0;
    for (const mj_sort_pass &p : t.passes)
        r.profiled_ms += p.ms;
    r.timed_ms = t.mj_ms;
    r.copy_x = t.copy_ms > 0 && !t.passes.empty()
                   ? t.mj_ms / ((double)t.passes.size() * t.copy_ms)
                   : -1;
    return r;
}

// A bandwidth column: "-" for none.
static void print_gbs(FILE *f, const char *fmt, double gbs)
{
    if (gbs < 0)
        fprintf(f, fmt, "-");
    else {
        char num[32];
        snprintf(num, sizeof num, "%.0f", gbs);
        fprintf(f, fmt, num);
    }
}


// Reports the first element where the two outputs differ and exits.
static void mismatch(const Case &c, size_t n, const unsigned char *cub_out,
                     const unsigned char *mj_out)
{
    size_t kb = n * c.key_size;
    size_t i = 0;
    const char *what = "keys";
    if (memcmp(cub_out, mj_out, kb) != 0) {
        while (memcmp(cub_out + i * c.key_size, mj_out + i * c.key_size, c.key_size) == 0)
            i++;
    } else {
        what = "values";
        const unsigned char *a = cub_out + kb, *b = mj_out + kb;
        while (memcmp(a + i * c.value_size, b + i * c.value_size, c.value_size) == 0)
            i++;
    }
    printf("MISMATCH %s n=%zu: mergejit's %s differ from CUB's first at index %zu\n", c.name, n,
           what, i);
    fflush(stdout);
    exit(1);
}

static Timing run_size(const Case &c, mj_sorter *sorter, size_t n, int reps, uint64_t seed,
                       cudaStream_t stream)
{
    const size_t kb = n * c.key_size, vb = n * c.value_size, total = kb + vb;

    // Input on the host, uploaded once; host buffers for the two outputs.
    unsigned char *h_in = static_cast<unsigned char *>(host_alloc(total));
    generate(c, h_in, h_in + kb, n, seed);
    unsigned char *h_cub = static_cast<unsigned char *>(host_alloc(total));
    unsigned char *h_mj = static_cast<unsigned char *>(host_alloc(total));

    void *d_in_keys = nullptr, *d_in_vals = nullptr, *d_keys = nullptr, *d_vals = nullptr;
    void *d_alt_keys = nullptr, *d_alt_vals = nullptr; // the radix sort's second buffers
    CUDA_CHECK(cudaMalloc(&d_in_keys, kb));
    CUDA_CHECK(cudaMalloc(&d_keys, kb));
    if (c.radix)
        CUDA_CHECK(cudaMalloc(&d_alt_keys, kb));
    if (vb) {
        CUDA_CHECK(cudaMalloc(&d_in_vals, vb));
        CUDA_CHECK(cudaMalloc(&d_vals, vb));
        if (c.radix)
            CUDA_CHECK(cudaMalloc(&d_alt_vals, vb));
    }
    CUDA_CHECK(cudaMemcpyAsync(d_in_keys, h_in, kb, cudaMemcpyHostToDevice, stream));
    if (vb)
        CUDA_CHECK(cudaMemcpyAsync(d_in_vals, h_in + kb, vb, cudaMemcpyHostToDevice, stream));

    // Temporary storage of both sides, once, outside the timed region. Never NULL: a NULL temp
    // means "query" to CUB and "allocate for me" to mergejit.
    size_t cub_temp_bytes = 0, mj_temp_bytes = 0, radix_temp_bytes = 0;
    int in_alt = 0;
    CUDA_CHECK(c.cub(nullptr, &cub_temp_bytes, d_keys, d_vals, (int)n, stream));
    if (c.radix)
        CUDA_CHECK(c.radix(nullptr, &radix_temp_bytes, d_keys, d_vals, d_alt_keys, d_alt_vals,
                           (int)n, stream, &in_alt));
    cub_temp_bytes = std::max(cub_temp_bytes, radix_temp_bytes); // one buffer serves both
    MJ_CHECK(mj_sorter_temp_size(sorter, n, 0, &mj_temp_bytes));
    void *d_cub_temp = nullptr, *d_mj_temp = nullptr;
    CUDA_CHECK(cudaMalloc(&d_cub_temp, std::max<size_t>(cub_temp_bytes, 256)));
    CUDA_CHECK(cudaMalloc(&d_mj_temp, std::max<size_t>(mj_temp_bytes, 256)));

    auto restore = [&]() {
        CUDA_CHECK(cudaMemcpyAsync(d_keys, d_in_keys, kb, cudaMemcpyDeviceToDevice, stream));
        if (vb)
            CUDA_CHECK(cudaMemcpyAsync(d_vals, d_in_vals, vb, cudaMemcpyDeviceToDevice, stream));
    };
    auto sort_cub = [&]() {
        size_t bytes = cub_temp_bytes;
        CUDA_CHECK(c.cub(d_cub_temp, &bytes, d_keys, d_vals, (int)n, stream));
    };
    auto sort_radix = [&]() {
        size_t bytes = radix_temp_bytes;
        CUDA_CHECK(c.radix(d_cub_temp, &bytes, d_keys, d_vals, d_alt_keys, d_alt_vals, (int)n,
                           stream, &in_alt));
    };
    auto sort_mj = [&]() {
        MJ_CHECK(mj_sorter_sort(sorter, d_keys, d_vals, n, d_mj_temp, mj_temp_bytes, stream));
    };
    auto download = [&](unsigned char *h, bool alt = false) {
        CUDA_CHECK(cudaMemcpyAsync(h, alt ? d_alt_keys : d_keys, kb, cudaMemcpyDeviceToHost,
                                   stream));
        if (vb)
            CUDA_CHECK(cudaMemcpyAsync(h + kb, alt ? d_alt_vals : d_vals, vb,
                                       cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    };

    // Warm-up of each side, untimed; its output is the one that is verified.
    restore();
    sort_cub();
    download(h_cub);
    restore();
    sort_mj();
    download(h_mj);
    if (memcmp(h_cub, h_mj, total) != 0)
        mismatch(c, n, h_cub, h_mj);
    if (c.radix) { // the radix sort's output, checked the same way (into h_mj, then restored)
        restore();
        sort_radix();
        download(h_mj, in_alt != 0);
        if (memcmp(h_cub, h_mj, total) != 0) {
            printf("(the radix sort's output, not mergejit's:)\n");
            mismatch(c, n, h_cub, h_mj);
        }
    }

    // Timed runs, alternating the sides.
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> cub_ms, mj_ms, radix_ms;
    for (int r = 0; r < reps; r++) {
        for (int side = 0; side < (c.radix ? 3 : 2); side++) {
            restore();
            CUDA_CHECK(cudaEventRecord(start, stream));
            if (side == 0)
                sort_cub();
            else if (side == 1)
                sort_mj();
            else
                sort_radix();
            CUDA_CHECK(cudaEventRecord(stop, stream));
            CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            (side == 0 ? cub_ms : side == 1 ? mj_ms : radix_ms).push_back(ms);
        }
    }

    // The copy bandwidth of this run: the restore alone, timed.
    std::vector<float> copy_ms;
    for (int r = 0; r < reps; r++) {
        CUDA_CHECK(cudaEventRecord(start, stream));
        restore();
        CUDA_CHECK(cudaEventRecord(stop, stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        copy_ms.push_back(ms);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));

    // One profiled sort: its passes, and its output checked as the warm-up's was.
    int count = 0;
    MJ_CHECK(mj_sorter_sort_passes(sorter, n, nullptr, 0, &count));
    std::vector<mj_sort_pass> passes((size_t)count);
    restore();
    MJ_CHECK(mj_sorter_sort_profiled(sorter, d_keys, d_vals, n, d_mj_temp, mj_temp_bytes, stream,
                                     passes.data(), count, &count));
    download(h_mj);
    if (memcmp(h_cub, h_mj, total) != 0)
        mismatch(c, n, h_cub, h_mj);

    CUDA_CHECK(cudaFree(d_cub_temp));
    CUDA_CHECK(cudaFree(d_mj_temp));
    CUDA_CHECK(cudaFree(d_in_keys));
    CUDA_CHECK(cudaFree(d_keys));
    CUDA_CHECK(cudaFree(d_alt_keys));
    if (vb) {
        CUDA_CHECK(cudaFree(d_in_vals));
        CUDA_CHECK(cudaFree(d_vals));
        CUDA_CHECK(cudaFree(d_alt_vals));
    }
    free(h_in);
    free(h_cub);
    free(h_mj);

    Timing t;
    t.cub_ms = median(cub_ms);
    t.mj_ms = median(mj_ms);
    t.radix_ms = radix_ms.empty() ? -1 : median(radix_ms);
    t.copy_ms = median(copy_ms);
    t.passes = passes;
    return t;
}

// ---------------------------------------------------------------- options

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_sort [options]\n"
            "Prints mergejit's speed over CUB's per case and size, then a table of mergejit's\n"
            "passes (one profiled sort each) with their bandwidth beside a copy's.\n"
            "  --sizes L,L,...   log2 of the element counts (default 20,24,27; each 1..30)\n"
            "  --cases C,C,...   of u32,u64,f32,f64,rec16,rec4,pairs_u32,pairs_u64 (default all)\n"
            "  --reps N          timed runs per side, median reported (default 7)\n"
            "  --quick           sizes 20,24 and 3 reps (explicit --sizes/--reps win)\n"
            "  --csv FILE        also write one CSV row per (case, size) to FILE\n"
            "  --device N        CUDA device ordinal (default 0)\n"
            "  --seed S          seed of the input generator (default 1)\n");
}

static int find_case(const char *name, size_t len)
{
    for (int i = 0; i < kCaseCount; i++)
        if (strlen(kCases[i].name) == len && strncmp(kCases[i].name, name, len) == 0)
            return i;
    return -1;
}

static long parse_long(const char *s, const char *what)
{
    char *end = nullptr;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0') {
        fprintf(stderr, "bench_sort: bad %s: '%s'\n", what, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    std::vector<int> sizes;
    std::vector<int> cases;
    int reps = -1, device = 0;
    uint64_t seed = 1;
    bool quick = false;
    const char *csv_path = nullptr;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : nullptr;
        bool takes_value = !strcmp(a, "--sizes") || !strcmp(a, "--cases") ||
                           !strcmp(a, "--reps") || !strcmp(a, "--csv") ||
                           !strcmp(a, "--device") || !strcmp(a, "--seed");
        if (takes_value && !v) {
            fprintf(stderr, "bench_sort: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            quick = true;
        } else if (!strcmp(a, "--sizes")) {
            sizes.clear();
            for (const char *p = v; *p;) {
                const char *comma = strchr(p, ',');
                size_t len = comma ? (size_t)(comma - p) : strlen(p);
                char buf[16] = {0};
                memcpy(buf, p, std::min(len, sizeof buf - 1));
                long l = parse_long(buf, "size");
                if (l < 1 || l > 30) {
                    fprintf(stderr, "bench_sort: size 2^%ld out of range 1..30\n", l);
                    return 2;
                }
                sizes.push_back((int)l);
                p += len + (comma ? 1 : 0);
            }
            i++;
        } else if (!strcmp(a, "--cases")) {
            cases.clear();
            for (const char *p = v; *p;) {
                const char *comma = strchr(p, ',');
                size_t len = comma ? (size_t)(comma - p) : strlen(p);
                int k = find_case(p, len);
                if (k < 0) {
                    fprintf(stderr, "bench_sort: unknown case '%.*s'\n", (int)len, p);
                    usage(stderr);
                    return 2;
                }
                cases.push_back(k);
                p += len + (comma ? 1 : 0);
            }
            i++;
        } else if (!strcmp(a, "--reps")) {
            reps = (int)parse_long(v, "--reps");
            if (reps < 1) {
                fprintf(stderr, "bench_sort: --reps must be at least 1\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--csv")) {
            csv_path = v;
            i++;
        } else if (!strcmp(a, "--device")) {
            device = (int)parse_long(v, "--device");
            i++;
        } else if (!strcmp(a, "--seed")) {
            seed = (uint64_t)parse_long(v, "--seed");
            i++;
        } else {
            fprintf(stderr, "bench_sort: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (sizes.empty())
        sizes = quick ? std::vector<int>{20, 24} : std::vector<int>{20, 24, 27};
    if (reps < 0)
        reps = quick ? 3 : 7;
    if (cases.empty())
        for (int k = 0; k < kCaseCount; k++)
            cases.push_back(k);

    // The runtime first, so that the primary context exists; mergejit then retains the same one.
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaFree(nullptr));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));

    mj_context_options opts;
    mj_context_options_init(&opts);
    opts.device = device;
    mj_status st = mj_context_create(&opts, &g_ctx);
    if (st != MJ_OK) {
        fprintf(stderr, "mj_context_create failed: %s: %s\n", mj_status_name(st),
                mj_context_last_error(g_ctx));
        mj_context_destroy(g_ctx);
        return 1;
    }

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    FILE *csv = nullptr;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "bench_sort: cannot write %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
        fprintf(csv, "case,n,cub_ms,mj_ms,cub_gkeys_s,mj_gkeys_s,ratio,nt,vt,build_ms,source,"
                     "device,passes,bs_gb_s,merge2_gb_s,merge4_gb_s,copy_gb_s,profiled_ms,"
                     "radix_ms,ratio_radix,copy_x\n");
    }

    printf("mergejit %s vs CUB %d.%d.%d cub::DeviceMergeSort (StableSortKeys/StableSortPairs);\n"
           "cub::DeviceRadixSort (SortKeys/SortPairs, DoubleBuffer) beside for built-in keys\n",
           mj_version(), CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    printf("device %d: %s, sm_%d%d, %d SMs, %.1f GiB; mergejit targets sm_%d\n", device,
           prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           (double)prop.totalGlobalMem / (1u << 30), mj_context_target_sm(g_ctx));
    printf("driver %d, runtime %d; mergejit sees driver %d, NVRTC %d\n", driver, runtime,
           mj_driver_version(), mj_nvrtc_version());
    printf("mergejit cache: %s\n", mj_context_cache_dir(g_ctx)[0] ? mj_context_cache_dir(g_ctx)
                                                                   : "(off)");
    printf("timing: sort only (cudaEvent), median of %d reps after 1 warm-up per side; input\n"
           "        restored untimed before each run; Gkeys/s = n / time; ratio > 1: mergejit "
           "faster\n\n",
           reps);
    printf("%-10s %11s %13s %13s %14s %15s %13s\n", "case", "n", "cub_Gkeys/s", "mj_Gkeys/s",
           "ratio(mj/cub)", "radix_Gkeys/s", "mj/radix");
    fflush(stdout);

    // The pass table's rows, printed after the ratio table.
    std::vector<std::pair<const char *, size_t>> row_names;
    std::vector<PassRow> rows;
    for (int k : cases) {
        const Case &c = kCases[k];
        auto t0 = std::chrono::steady_clock::now();
        mj_sorter *sorter = build_sorter(c);
        double wall_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        int nt = 0, vt = 0;
        mj_sorter_tile(sorter, &nt, &vt);
        mj_build_times bt;
        mj_sorter_build_times(sorter, &bt);
        printf("# %s: key %zu B, value %zu B; mergejit sorter %s in %.1f ms (create %.1f ms; "
               "%d programs on %d threads, front end %.1f ms + ptxas %.1f ms summed), "
               "tile NT=%d VT=%d\n",
               c.name, c.key_size, c.value_size, source_name(mj_sorter_source(sorter)),
               mj_sorter_build_ms(sorter), wall_ms, bt.programs, bt.threads, bt.frontend_ms,
               bt.ptxas_ms, nt, vt);
        fflush(stdout);

        for (int l : sizes) {
            size_t n = (size_t)1 << l;
            Timing t = run_size(c, sorter, n, reps, seed ^ ((uint64_t)k << 32) ^ (uint64_t)l,
                                stream);
            double cub_g = (double)n / (t.cub_ms * 1e6);
            double mj_g = (double)n / (t.mj_ms * 1e6);
            double radix_g = t.radix_ms > 0 ? (double)n / (t.radix_ms * 1e6) : -1;
            printf("%-10s %11zu %13.3f %13.3f %14.3f", c.name, n, cub_g, mj_g, mj_g / cub_g);
            if (radix_g > 0)
                printf(" %15.3f %13.3f\n", radix_g, mj_g / radix_g);
            else
                printf(" %15s %13s\n", "-", "-");
            fflush(stdout);
            PassRow row = pass_row(t, n * (c.key_size + c.value_size));
            row_names.push_back({c.name, n});
            rows.push_back(row);
            if (csv) {
                fprintf(csv, "%s,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%.1f,%d,\"%s\",%s,", c.name, n,
                        t.cub_ms, t.mj_ms, cub_g, mj_g, mj_g / cub_g, nt, vt,
                        mj_sorter_build_ms(sorter), mj_sorter_source(sorter), prop.name,
                        row.passes);
                const double gbs[] = {row.bs_gbs, row.m2_gbs, row.m4_gbs, row.copy_gbs};
                for (double g : gbs)
                    print_gbs(csv, "%s,", g);
                fprintf(csv, "%.4f,", row.profiled_ms);
                if (radix_g > 0)
                    fprintf(csv, "%.4f,%.4f,", t.radix_ms, mj_g / radix_g);
                else
                    fprintf(csv, ",,");
                fprintf(csv, "%.3f\n", row.copy_x);
                fflush(csv);
            }
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
        mj_sorter_destroy(sorter);
    }

    printf("\npasses over device memory (one profiled mergejit sort a row: events between the "
           "passes);\nGB/s = bytes read + written / GPU time, summed over the passes of a kind; "
           "copy = a\ndevice-to-device copy of the keys+values in the same run, median of %d; "
           "prof_ms = the\npasses summed; timed_ms = mergejit's timed median (unprofiled); "
           "copy_x = timed_ms over\nthe passes at copy speed (the number of passes times the "
           "copy's time)\n\n",
           reps);
    printf("%-10s %11s %-12s %8s %9s %9s %9s %9s %9s %7s\n", "case", "n", "passes", "bs_GB/s",
           "2way_GB/s", "4way_GB/s", "copy_GB/s", "prof_ms", "timed_ms", "copy_x");
    for (size_t i = 0; i < rows.size(); i++) {
        const PassRow &r = rows[i];
        printf("%-10s %11zu %-12s", row_names[i].first, row_names[i].second, r.passes);
        print_gbs(stdout, " %8s", r.bs_gbs);
        print_gbs(stdout, " %9s", r.m2_gbs);
        print_gbs(stdout, " %9s", r.m4_gbs);
        print_gbs(stdout, " %9s", r.copy_gbs);
        printf(" %9.3f %9.3f %7.2f\n", r.profiled_ms, r.timed_ms, r.copy_x);
    }
    fflush(stdout);

    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "bench_sort: writing %s failed\n", csv_path);
        return 1;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    mj_context_destroy(g_ctx);
    return 0;
}
