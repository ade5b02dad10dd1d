/* SPDX-License-Identifier: Apache-2.0 */
/* The queued passes of segmented and locality sort (templates/shared/work_queue.h) against a CPU
 * model. The model runs the GPU schedule on the CPU with the functions the kernels use: a
 * segmented stable sort of every blocksort tile with its head range, then per pass the
 * partitions (mj_seg_merge_path's rule over the frame locks of mj_frame_locks), each tile's
 * job (mj_tile_job), and the merges themselves on two buffers with the per-tile locations: a
 * merge reads its runs from the buffers that hold their tiles (split by mj_run_split), locks
 * segments with mj_tile_locks, merges with mj_b_first's rule and writes to the other buffer.
 * The copy a tile leaves behind is overwritten with junk after the pass, so a read from the
 * wrong buffer shows. At the end the tiles left in scratch come back. The result must equal a
 * stable reference sort by (segment, key), and the merge jobs must fall off as the seed says
 * once lists outgrow the segments. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/work_queue.h"
#include "test_support.h"

#define REQUIRE(cond, ...)                                                                   \
    do {                                                                                     \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                             \
    } while (0)

typedef struct item {
    int key;
    long long index, seg;
} item;

static int cmp_ref(const void *pa, const void *pb) {
    const item *a = pa, *b = pb;
    if (a->seg != b->seg) return a->seg < b->seg ? -1 : 1;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The work kernel's merge of one tile: s = A's part then B's part, locks in tile positions. */
static void tile_merge(const item *s, int a_len, int total, int a_lock, int b_lock, item *out) {
    int a = 0, b = a_len;
    for (int k = 0; k < total; ++k) {
        /* mj_b_first with MJ_SEGMENTED */
        int b_first = b < total && a < a_len && a >= a_lock && b < b_lock && s[b].key < s[a].key;
        int take_a = b >= total || (a < a_len && !b_first);
        out[k] = take_a ? s[a++] : s[b++];
    }
}

typedef struct model {
    long long n, nv, runs;
    int segmented;
    long long merges[64], final_leaves, finished; /* finished: tiles copied back at the end */
    int passes;
} model;

static const item junk = {1 << 30, -2, -2};

/* Element i of the pass input, from the buffer that holds its tile (mj_located_keys). */
static item located(item *const buf[2], const unsigned char *where, long long nv, long long i) {
    return buf[where[i / nv] & MJ_IN_SCRATCH][i];
}

/* mj_merge_path over located elements [a0, a0 + a_count) and [b0, ...). */
static long long merge_path(item *const buf[2], const unsigned char *where, long long nv,
                            long long a0, long long a_count, long long b0, long long b_count,
                            long long diag) {
    long long lo = diag > b_count ? diag - b_count : 0, hi = diag < a_count ? diag : a_count;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (located(buf, where, nv, b0 + diag - 1 - mid).key <
            located(buf, where, nv, a0 + mid).key)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* mj_seg_merge_path (templates/thread/merge_path.cuh). */
static long long seg_merge_path(item *const buf[2], const unsigned char *where, long long nv,
                                long long a0, long long a_count, long long b0, long long diag,
                                long long a_lock, long long b_lock) {
    if (diag <= a_lock) return diag;
    if (diag >= a_count + b_lock) return a_count;
    return a_lock + merge_path(buf, where, nv, a0 + a_lock, a_count - a_lock, b0, b_lock,
                               diag - a_lock);
}

/* s[0, len) = the run [begin, begin + len) as mj_located_runs reads it: up to its split from
 * the buffer of its first tile, the rest from the next tile's. */
static void read_run(item *const buf[2], const unsigned char *where, long long nv,
                     long long begin, int len, item *s) {
    int split = mj_run_split(begin, len, nv);
    for (int j = 0; j < len; ++j) {
        long long t = begin / nv + (j >= split);
        s[j] = buf[where[t] & MJ_IN_SCRATCH][begin + j];
    }
}

/* Runs the schedule over in[0, n) (seg holds each element's segment, heads[i] its flag) and
 * returns the result in a malloc'd array. */
static item *run_model(model *m, const item *in, const unsigned char *heads) {
    long long n = m->n, nv = m->nv, runs = m->runs, bs_nv = nv * runs;
    long long tiles = mj_tile_count(n, nv), leaves = mj_tile_count(n, bs_nv);
    m->passes = mj_sort_passes(n, nv, runs);
    item *buf[2] = {malloc((n + 1) * sizeof(item)), malloc((n + 1) * sizeof(item))};
    item *s = malloc((2 * nv + 1) * sizeof(item));
    mj_heads_range *lists[2] = {malloc((leaves + 1) * sizeof(mj_heads_range)),
                                malloc((leaves + 1) * sizeof(mj_heads_range))};
    long long *part = malloc((tiles + 1) * sizeof(long long));
    unsigned char *where[2] = {calloc(tiles + 1, 1), calloc(tiles + 1, 1)};
    ck_assert(buf[0] && buf[1] && s && lists[0] && lists[1] && part && where[0] && where[1]);
    for (long long i = 0; i < n; ++i) buf[1][i] = junk;

    /* The blocksort, in place in buffer 0: each leaf tile sorted by (segment, key, position),
     * and its heads. */
    memcpy(buf[0], in, n * sizeof(item));
    m->final_leaves = 0;
    for (long long t = 0; t < leaves; ++t) {
        long long t0 = t * bs_nv, count = n - t0 < bs_nv ? n - t0 : bs_nv;
        if (m->segmented &&
            mj_leaf_final(t0, count, n, heads[t0], t0 + count < n && heads[t0 + count])) {
            for (long long i = t0 / nv; i * nv < t0 + count; ++i) where[0][i] = MJ_TILE_FINAL;
            m->final_leaves++;
        }
        if (m->segmented) qsort(buf[0] + t0, count, sizeof(item), cmp_ref);
        else {
            for (long long i = 0; i < count; ++i) buf[0][t0 + i].seg = 0;
            qsort(buf[0] + t0, count, sizeof(item), cmp_ref);
            for (long long i = 0; i < count; ++i) buf[0][t0 + i].seg = in[0].seg;
        }
        mj_heads_range r = {MJ_NO_FIRST, -1};
        for (long long i = t0; m->segmented && i < t0 + count; ++i)
            if (heads[i]) {
                if (r.first == MJ_NO_FIRST) r.first = i;
                r.last = i;
            }
        lists[0][t] = r;
    }

    for (int pass = 0; pass < m->passes; ++pass) {
        long long coop = mj_pass_coop(pass, runs);
        mj_heads_range *lin = lists[pass & 1], *lout = lists[(pass & 1) ^ 1];
        const unsigned char *w_in = where[pass & 1];
        unsigned char *w_out = where[(pass & 1) ^ 1];
        const mj_heads_range none = {MJ_NO_FIRST, -1};
        m->merges[pass] = 0;
        /* mj_queue_partition: splits */
        for (long long t = 0; t < tiles; ++t) {
            mj_frame f = mj_sort_frame(t, coop, nv, n);
            long long diag = mj_tile_diag(t, coop, nv);
            if (diag > f.a_count + f.b_count) diag = f.a_count + f.b_count;
            mj_heads_range ha = m->segmented ? lin[2 * (t / coop)] : none;
            mj_heads_range hb = m->segmented && f.b_count > 0 ? lin[2 * (t / coop) + 1] : none;
            mj_frame_lock l = m->segmented ? mj_frame_locks(f, ha, hb)
                                           : (mj_frame_lock){0, f.b_count};
            part[t] = seg_merge_path(buf, w_in, nv, f.a0, f.a_count, f.b0, diag, l.a_lock,
                                     l.b_lock);
            if (m->segmented && (t & (coop - 1)) == 0) lout[t / coop] = mj_heads_combine(ha, hb);
        }
        /* jobs and locations, then the merges */
        for (long long t = 0; t < tiles; ++t) {
            mj_frame f = mj_sort_frame(t, coop, nv, n);
            long long p_end = mj_tile_ends_frame(t, coop, tiles) ? f.a_count : part[t + 1];
            mj_range r = mj_sort_range(f, t, coop, nv, part[t], p_end);
            long long out0 = t * nv;
            int a_len = (int)(r.a_end - r.a_begin), total = a_len + (int)(r.b_end - r.b_begin);
            REQUIRE(total == (n - out0 < nv ? n - out0 : nv), "tile %lld: %d outputs", t, total);
            int job = mj_tile_job(r, out0, w_in[t]);
            /* A final tile's outputs never move: the rule that lets it skip every pass. */
            REQUIRE(!(w_in[t] & MJ_TILE_FINAL) || mj_tile_job(r, out0, 0) == MJ_JOB_NONE,
                    "pass %d tile %lld: final, but its outputs move", pass, t);
            w_out[t] = (unsigned char)(job == MJ_JOB_MERGE ? w_in[t] ^ MJ_IN_SCRATCH : w_in[t]);
            if (job != MJ_JOB_MERGE) continue;
            m->merges[pass]++;
            mj_heads_range ha = m->segmented ? lin[2 * (t / coop)] : none;
            mj_heads_range hb = m->segmented && f.b_count > 0 ? lin[2 * (t / coop) + 1] : none;
            mj_frame_lock l = m->segmented ? mj_frame_locks(f, ha, hb)
                                           : (mj_frame_lock){0, f.b_count};
            int a_lock, b_lock;
            mj_tile_locks(f, r, l, &a_lock, &b_lock);
            read_run(buf, w_in, nv, r.a_begin, a_len, s);
            read_run(buf, w_in, nv, r.b_begin, total - a_len, s + a_len);
            tile_merge(s, a_len, total, a_lock, b_lock, buf[w_out[t] & MJ_IN_SCRATCH] + out0);
        }
        /* What merged tiles left behind is stale: junk, so that a later read of it shows. */
        for (long long t = 0; t < tiles; ++t)
            if (w_in[t] != w_out[t])
                for (long long i = t * nv; i < n && i < (t + 1) * nv; ++i)
                    buf[w_in[t] & MJ_IN_SCRATCH][i] = junk;
    }
    /* mj_queue_finish */
    const unsigned char *w_last = where[m->passes & 1];
    m->finished = 0;
    for (long long t = 0; t < tiles; ++t)
        if (w_last[t] & MJ_IN_SCRATCH) {
            long long count = n - t * nv < nv ? n - t * nv : nv;
            memcpy(buf[0] + t * nv, buf[1] + t * nv, count * sizeof(item));
            m->finished++;
        }
    free(buf[1]);
    free(s);
    free(lists[0]);
    free(lists[1]);
    free(part);
    free(where[0]);
    free(where[1]);
    return buf[0];
}

/* Segments of random lengths from 1 to max_len; or no segments, with random or nearly sorted
 * keys. */
static void check(long long n, long long nv, long long runs, int segmented, long long max_len,
                  int nearly_sorted, uint64_t seed) {
    item *in = malloc((n + 1) * sizeof(item));
    unsigned char *heads = calloc(n + 1, 1);
    ck_assert(in && heads);
    uint64_t rng = seed;
    long long seg = -1, left = 0;
    for (long long i = 0; i < n; ++i) {
        if (segmented && left == 0) {
            heads[i] = 1;
            ++seg;
            left = 1 + (long long)(mjt_rand(&rng) % (uint64_t)max_len);
        }
        --left;
        int key = nearly_sorted ? (int)i : (int)(mjt_rand(&rng) % 7);
        in[i] = (item){key, i, segmented ? seg : 0};
    }
    if (nearly_sorted) /* a few keys swapped with a close neighbour */
        for (long long k = 0; k < n / 50; ++k) {
            long long i = (long long)(mjt_rand(&rng) % (uint64_t)n), j = i + 3 < n ? i + 3 : i;
            int t = in[i].key;
            in[i].key = in[j].key;
            in[j].key = t;
        }
    model m = {n, nv, runs, segmented, {0}, 0, 0, 0};
    item *out = run_model(&m, in, heads);
    qsort(in, n, sizeof(item), cmp_ref);
    for (long long i = 0; i < n; ++i)
        REQUIRE(out[i].key == in[i].key && out[i].index == in[i].index,
                "n %lld nv %lld runs %lld seg %d max_len %lld: position %lld holds key %d "
                "from %lld, expected key %d from %lld", n, nv, runs, segmented, max_len, i,
                out[i].key, out[i].index, in[i].key, in[i].index);
    /* The seed's work fall-off: once lists are longer than every segment, a frame has work
     * only around its one interface (the segment spanning it is at most max_len long). */
    long long tiles = mj_tile_count(n, nv);
    /* Segments of one element: every leaf is final, and no pass has any job. */
    if (segmented && max_len == 1) {
        REQUIRE(m.final_leaves == mj_tile_count(n, nv * runs), "%lld final leaves",
                m.final_leaves);
        for (int p = 0; p < m.passes; ++p)
            REQUIRE(m.merges[p] == 0, "pass %d: %lld merges", p, m.merges[p]);
        REQUIRE(m.finished == 0, "%lld tiles copied back", m.finished);
    }
    for (int p = 0; p < m.passes; ++p) {
        long long coop = mj_pass_coop(p, runs), frames = (tiles + coop - 1) / coop;
        if (segmented && max_len <= nv)
            REQUIRE(m.merges[p] <= 2 * frames, "pass %d: %lld merges for %lld frames", p,
                    m.merges[p], frames);
    }
    if (nearly_sorted && tiles >= 64) {
        long long merges = 0;
        for (int p = 0; p < m.passes; ++p) merges += m.merges[p];
        REQUIRE(merges * 4 < tiles * m.passes, "nearly sorted: %lld merges over %d passes of "
                "%lld tiles", merges, m.passes, tiles);
    }
    free(out);
    free(in);
    free(heads);
}

START_TEST(segmented_model) {
    static const long long lens[] = {1, 2, 3, 7, 16, 33, 100, 1000, 100000};
    for (long long runs = 1; runs <= 2; runs *= 2)
        for (size_t l = 0; l < sizeof lens / sizeof *lens; ++l)
            for (long long n = 1; n < 700; n += 37)
                check(n, 8, runs, 1, lens[l], 0, (uint64_t)(n * 31 + l));
    for (size_t l = 0; l < sizeof lens / sizeof *lens; ++l)
        check(40000, 16, 2, 1, lens[l], 0, 99 + l);
}
END_TEST

START_TEST(locality_model) {
    for (long long runs = 1; runs <= 2; runs *= 2)
        for (long long n = 1; n < 2000; n += 97) {
            check(n, 8, runs, 0, 1, 0, (uint64_t)n);
            check(n, 8, runs, 0, 1, 1, (uint64_t)n);
        }
    check(50000, 16, 2, 0, 1, 1, 5);
}
END_TEST

int main(void) {
    Suite *s = suite_create("queue");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, segmented_model);
    tcase_add_test(tc, locality_model);
    suite_add_tcase(s, tc);
    return mjt_run(s, 1);
}
