/* SPDX-License-Identifier: Apache-2.0 */
// bench_primitives' relational join cases: an inner join of two sorted u32 key columns of 2^lg
// keys each, drawn from 2^lg / 4 values (each value about 4 times a side: about 16 rows a
// value, 4 x 2^lg rows), 4-byte rows, against what a Thrust user writes:
// thrust::lower_bound and upper_bound of every a in b, their difference, exclusive_scan of
// those counts, then the expand: thrust::upper_bound of the row numbers (a counting iterator)
// over the scanned counts, minus 1, for each row's a row, and a transform for its b row (the
// lower bound plus the rank). Three cases:
//   rows        the row count already known (the rows' arrays sized): mj_sorter_join alone
//               against the Thrust pipeline without reading its total back;
//   count+rows  the count unknown: mj_sorter_join_count, its count read back, then
//               mj_sorter_join, against the Thrust pipeline reading its total back after the
//               scan (the arrays allocated beforehand, outside the timing, for both);
//   plan+rows   the same, through mj_sorter_join_plan and mj_sorter_join_rows (one search).
// The rate (n in the report) is output rows per second. Included once, by
// bench_primitives.cu, after its helpers and bench_family_cases.h (MinusOne).
#ifndef MJ_BENCH_JOIN_CASES_H
#define MJ_BENCH_JOIN_CASES_H

#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

// Row k's b row from its a row: the a row's lower bound in b plus k's rank among its rows.
struct JoinBRow {
    const uint32_t *lower, *first;
    __host__ __device__ uint32_t operator()(uint32_t k, uint32_t a) const
    {
        return lower[a] + (k - first[a]);
    }
};

enum JoinCase { JOIN_ROWS, JOIN_COUNT_ROWS, JOIN_PLAN_ROWS };

static void bench_join(int lg, JoinCase jc)
{
    static const char *const names[] = {"rows", "count+rows", "plan+rows"};
    bool with_count = jc != JOIN_ROWS;
    size_t n = (size_t)1 << lg;
    const std::vector<uint32_t> *in = sorted_pair(n, n / 4, 21);
    const std::vector<uint32_t> &a = in[0], &b = in[1];
    // The row count, on the CPU, to size the outputs of both sides.
    size_t rows = 0;
    for (size_t i = 0, j = 0; i < n; i++) {
        while (j < n && b[j] < a[i]) j++;
        rows += std::upper_bound(b.begin() + j, b.end(), a[i]) - (b.begin() + j);
    }
    DevBuf da(n * 4), db(n * 4), dlower(n * 4), dupper(n * 4), dfirst(n * 4);
    DevBuf dar(rows * 4), dbr(rows * 4), dcount(8);
    upload(da, a.data());
    upload(db, b.data());
    mj_sorter *s = sorter(MJ_JOIN, MJ_KEY_U32, 0);
    size_t mj_bytes = 0;
    MJ_CHECK(mj_sorter_temp_size(s, 2 * n, 0, &mj_bytes));
    DevBuf mt(mj_bytes);
    const uint32_t *pa = (const uint32_t *)da.p, *pb = (const uint32_t *)db.p;
    uint32_t *lower = (uint32_t *)dlower.p, *upper = (uint32_t *)dupper.p;
    uint32_t *first = (uint32_t *)dfirst.p, *ar = (uint32_t *)dar.p, *br = (uint32_t *)dbr.p;
    auto run_thrust = [&] {
        auto pol = thrust::cuda::par.on(g_stream);
        thrust::lower_bound(pol, pb, pb + n, pa, pa + n, lower);
        thrust::upper_bound(pol, pb, pb + n, pa, pa + n, upper);
        thrust::transform(pol, upper, upper + n, lower, upper, thrust::minus<uint32_t>());
        thrust::exclusive_scan(pol, upper, upper + n, first);
        size_t total = rows;
        if (with_count) { // the last first row plus the last count
            uint32_t last[2];
            CUDA_CHECK(cudaMemcpyAsync(&last[0], first + n - 1, 4, cudaMemcpyDeviceToHost,
                                       g_stream));
            CUDA_CHECK(cudaMemcpyAsync(&last[1], upper + n - 1, 4, cudaMemcpyDeviceToHost,
                                       g_stream));
            CUDA_CHECK(cudaStreamSynchronize(g_stream));
            total = (size_t)last[0] + last[1];
        }
        thrust::counting_iterator<uint32_t> k(0);
        thrust::upper_bound(pol, first, first + n, k, k + (uint32_t)total, ar);
        thrust::transform(pol, ar, ar + total, ar, MinusOne{});
        thrust::transform(pol, k, k + (uint32_t)total, ar, br, JoinBRow{lower, first});
    };
    auto run_mj = [&] {
        size_t capacity = rows;
        mj_join_plan plan{};
        if (jc == JOIN_PLAN_ROWS)
            MJ_CHECK(mj_sorter_join_plan(s, MJ_JOIN_INNER, da.p, n, db.p, n, dcount.p, mt.p,
                                         mt.bytes, g_stream, &plan));
        else if (with_count)
            MJ_CHECK(mj_sorter_join_count(s, MJ_JOIN_INNER, da.p, n, db.p, n, dcount.p, mt.p,
                                          mt.bytes, g_stream));
        if (with_count) {
            uint64_t count = 0;
            CUDA_CHECK(cudaMemcpyAsync(&count, dcount.p, 8, cudaMemcpyDeviceToHost, g_stream));
            CUDA_CHECK(cudaStreamSynchronize(g_stream));
            capacity = (size_t)count;
        }
        if (jc == JOIN_PLAN_ROWS)
            MJ_CHECK(mj_sorter_join_rows(s, &plan, 4, dar.p, dbr.p, capacity, mt.p, mt.bytes,
                                         g_stream));
        else
            MJ_CHECK(mj_sorter_join(s, MJ_JOIN_INNER, da.p, n, db.p, n, 4, dar.p, dbr.p,
                                    capacity, dcount.p, mt.p, mt.bytes, g_stream));
    };
    run_thrust();
    auto want_a = download(dar, dar.bytes), want_b = download(dbr, dbr.bytes);
    CUDA_CHECK(cudaMemset(dar.p, 0, dar.bytes));
    CUDA_CHECK(cudaMemset(dbr.p, 0, dbr.bytes));
    run_mj();
    uint64_t count = 0;
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
    CUDA_CHECK(cudaMemcpy(&count, dcount.p, 8, cudaMemcpyDeviceToHost));
    if (count != rows) {
        fprintf(stderr, "join: mergejit counted %llu rows, the CPU %zu\n",
                (unsigned long long)count, rows);
        exit(1);
    }
    same_or_die(want_a, download(dar, dar.bytes), "join a rows");
    same_or_die(want_b, download(dbr, dbr.bytes), "join b rows");
    char param[48];
    snprintf(param, sizeof param, "2^%d %s", lg, names[jc]);
    // Ideal traffic: both key columns read once, each row's two 4-byte indices written once.
    double bytes = 2.0 * n * 4 + (double)rows * 8;
    race("join", "u32", param, rows, [] {}, run_thrust, run_mj, "Thrust", bytes);
    mj_sorter_destroy(s);
}

#endif
