/* SPDX-License-Identifier: Apache-2.0 */
/* The 4-way split of mergesort's passes (templates/shared/corank.h) against a brute-force
 * stable 4-way merge: at every diagonal, for random keys, few distinct keys, all equal, sorted
 * runs that do not interleave, lists of unequal lengths and empty lists; a comparator that is
 * no order still gives splits inside the lists that add up; of two window slots exactly one
 * goes first (what the GPU's window search relies on); and the search's loads per split
 * and rounds of them, counted through the header's hooks on lists as long as those of a 2^27
 * sort's last pass. Over 64-bit positions, with lists of 2^33 elements besides;
 * test_corank_narrow includes this file for the 32-bit positions of frames below 2^31
 * elements. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

/* The key the search sees: a value, and where it came from (so that a failure says it). */
typedef struct mj_key {
    int v;
} mj_key;

static int broken;         /* mj_less answers at random: no strict weak order */
static int scrambled;      /* mj_less answers by a hash of both keys: no order, but alike for
                            * the same keys */
static uint64_t broken_seed = 1;
static int compared;       /* a comparison since the level began */
static long long loads, late_loads, levels;
/* Virtual lists: key i is computed, not read (lists far larger than memory). */
static int (*virtual_key)(long long i);

static int mj_less(mj_key a, mj_key b) {
    compared = 1;
    if (broken) return (int)(mjt_rand(&broken_seed) & 1);
    if (scrambled) return (int)(((unsigned)a.v * 2654435761u ^ (unsigned)b.v * 40503u) >> 9 & 1);
    return a.v < b.v;
}

static mj_key load(const mj_key *keys, long long i) {
    ++loads;
    late_loads += compared; /* after a comparison of its level: a round of its own */
    if (virtual_key) return (mj_key){virtual_key(i)};
    return keys[i];
}

/* A list as the search sees it: where it starts, not a pointer (virtual lists have no
 * memory). */
typedef struct mj_cr_list {
    const mj_key *keys;
    long long begin;
} mj_cr_list;
#define MJ_CR_LOAD(list, pos) load((list).keys, (list).begin + (long long)(pos))
#define MJ_CR_LEVEL() (compared = 0, ++levels)
#include "shared/corank.h"

/* Which search: mj_corank4 (0), the window search of a group of GPU lanes from its own start
 * (1) or from four times that, as a lane whose warp holds a longer search starts (2). */
static int variant;
#define VARIANTS 3

/* The split of the lists keys[begin[l], begin[l] + count[l]). */
static void corank(const mj_key *keys, const long long begin[4], const long long count[4],
                   long long d, long long at[4]) {
    mj_cr_list list[4];
    for (int l = 0; l < 4; ++l) list[l] = (mj_cr_list){keys, begin[l]};
    if (variant == 0)
        mj_corank4(list, count, d, at);
    else
        mj_corank4_window(list, count, d, mj_cr_top(count, (mj_cr_pos)d) << (2 * (variant - 1)),
                          at);
}

#define REQUIRE(cond, ...)                                                                   \
    do {                                                                                     \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                             \
    } while (0)

enum { FEW, RANDOM, EQUAL, BLOCKS, SKEWED, DISTS };

/* Four sorted lists of the given lengths laid out one after another in keys. */
static void fill_lists(mj_key *keys, const long long count[4], int dist, uint64_t *seed) {
    long long at = 0;
    for (int l = 0; l < 4; ++l) {
        int v = 0;
        for (long long p = 0; p < count[l]; ++p, ++at) {
            switch (dist) {
            case FEW: v = (int)(mjt_rand(seed) % 3); break;
            case RANDOM: v = (int)(mjt_rand(seed) % 1000); break;
            case EQUAL: v = 5; break;
            case BLOCKS: v = (3 - l) * 1000 + (int)p; break; /* list 3 first, list 0 last */
            default: v = l == 1 ? (int)(mjt_rand(seed) % 10) : 500 + (int)(mjt_rand(seed) % 10);
            }
            keys[at].v = v;
        }
        /* sort the list (insertion sort: the lists are short) */
        mj_key *x = keys + at - count[l];
        for (long long i = 1; i < count[l]; ++i) {
            mj_key k = x[i];
            long long j = i;
            while (j > 0 && x[j - 1].v > k.v) {
                x[j] = x[j - 1];
                --j;
            }
            x[j] = k;
        }
    }
}

/* Every diagonal's split against a brute-force stable merge: walk the merge, taking at each step
 * the list whose next key is smallest, the lowest such list on ties. */
static void check_lists(const long long count[4], int dist, uint64_t seed) {
    long long total = count[0] + count[1] + count[2] + count[3];
    mj_key *keys = malloc((size_t)(total + 1) * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    fill_lists(keys, count, dist, &seed);
    long long begin[4] = {0, count[0], count[0] + count[1], count[0] + count[1] + count[2]};
    long long want[4] = {0, 0, 0, 0};
    for (long long d = 0; d <= total; ++d) {
        long long got[4];
        corank(keys, begin, count, d, got);
        for (int l = 0; l < 4; ++l)
            REQUIRE(got[l] == want[l],
                    "search %d, counts %lld %lld %lld %lld, dist %d, diagonal %lld: list %d "
                    "splits at %lld, not %lld", variant, count[0], count[1], count[2], count[3],
                    dist, d, l, got[l], want[l]);
        if (d == total) break;
        int take = -1;
        for (int l = 0; l < 4; ++l)
            if (want[l] < count[l] &&
                (take < 0 || keys[begin[l] + want[l]].v < keys[begin[take] + want[take]].v))
                take = l;
        ++want[take];
    }
    free(keys);
}

static const long long shapes[][4] = {
    {0, 0, 0, 0},     {1, 0, 0, 0},     {0, 0, 0, 1},     {1, 1, 1, 1},    {2, 3, 5, 7},
    {8, 8, 8, 8},     {16, 16, 16, 3},  {16, 16, 0, 0},   {16, 0, 16, 0},  {0, 16, 0, 16},
    {31, 32, 33, 1},  {64, 64, 64, 64}, {100, 1, 100, 1}, {5, 200, 0, 77}, {128, 128, 128, 0},
    {127, 129, 1, 255}, {300, 300, 300, 299},
};

START_TEST(every_diagonal)
{
    for (variant = 0; variant < VARIANTS; ++variant)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
            check_lists(shapes[s], _i, 1000 * (uint64_t)s + (uint64_t)_i);
}
END_TEST

/* Random shapes, a mergesort's frames included (three full lists and a short last one). */
START_TEST(random_shapes)
{
    uint64_t seed = 99 + (uint64_t)_i;
    for (int rep = 0; rep < 60 * VARIANTS; ++rep) {
        variant = rep % VARIANTS;
        long long count[4];
        long long q = 1 + (long long)(mjt_rand(&seed) % 200);
        for (int l = 0; l < 4; ++l)
            count[l] = rep % 2 ? (long long)(mjt_rand(&seed) % 300) : q;
        if (rep % 4 == 2) count[3] = (long long)(mjt_rand(&seed) % (unsigned)(q + 1));
        check_lists(count, _i, seed);
    }
}
END_TEST

/* A comparator that answers at random: splits still add up to d and stay inside the lists. */
START_TEST(broken_comparator)
{
    uint64_t seed = 7;
    mj_key keys[400];
    for (int i = 0; i < 400; ++i) keys[i].v = (int)(mjt_rand(&seed) % 50);
    broken = 1;
    for (int rep = 0; rep < 200 * VARIANTS; ++rep) {
        variant = rep % VARIANTS;
        long long count[4], begin[4], total = 0;
        for (int l = 0; l < 4; ++l) {
            count[l] = (long long)(mjt_rand(&seed) % 101);
            begin[l] = total;
            total += count[l];
        }
        for (long long d = 0; d <= total; ++d) {
            long long got[4], sum = 0;
            corank(keys, begin, count, d, got);
            for (int l = 0; l < 4; ++l) {
                REQUIRE(got[l] >= 0 && got[l] <= count[l], "list %d split %lld of %lld", l,
                        got[l], count[l]);
                sum += got[l];
            }
            REQUIRE(sum == d, "splits add up to %lld, not %lld", sum, d);
        }
    }
    broken = 0;
}
END_TEST

/* The window search on a GPU (mj_corank4_lanes) takes a lane's answers about one list from
 * the complements of that list's lanes' answers about it: of two slots of different lists,
 * exactly one goes first, whatever the classes, and for any comparator that answers alike for
 * the same keys, an order or not. */
START_TEST(window_answers_complement)
{
    static const int classes[3] = {MJ_CR_NONE, MJ_CR_REAL, MJ_CR_PAD};
    for (scrambled = 0; scrambled < 2; ++scrambled)
        for (int lt = 0; lt < 4; ++lt)
            for (int ls = 0; ls < 4; ++ls)
                for (int ct = 0; ct < 3; ++ct)
                    for (int cs = 0; cs < 3; ++cs)
                        for (int kt = 0; kt < 6; ++kt)
                            for (int ks = 0; ks < 6; ++ks) {
                                if (lt == ls) continue;
                                mj_cr_elem t = {{kt}, lt + classes[ct]};
                                mj_cr_elem s = {{ks}, ls + classes[cs]};
                                int ts = mj_cw_before(t, s), st = mj_cw_before(s, t);
                                REQUIRE(ts + st == 1,
                                        "lists %d, %d, classes %d, %d, keys %d, %d: %d and %d "
                                        "(scrambled %d)", lt, ls, classes[ct], classes[cs], kt,
                                        ks, ts, st, scrambled);
                            }
    scrambled = 0;
}
END_TEST

/* Virtual sorted lists: list l's key at p (list l starts at l << 40) rises by 4 a step with an
 * offset of its own, so that the four interleave as random keys do on average; or list 0 all
 * below the others. */
static int interleaved(long long i) {
    long long l = i >> 40, p = i & ((1ll << 40) - 1);
    return (int)((4 * p + l + (p * 2654435761u >> 7) % 3) & 0x7fffffff);
}
static int apart(long long i) {
    long long l = i >> 40, p = i & ((1ll << 40) - 1);
    return (int)(l * (1 << 28) + p);
}

/* Loads per split and rounds of them over the tiles of one frame of four lists of `len`
 * elements (a 2^27 sort's last 4-way pass: len 2^25, tiles of 256 x 23), against the 2-way
 * merge path's one round of one load per level. */
static void count_loads(long long len, long long nv, int (*key)(long long), const char *what) {
    long long begin[4], count[4];
    for (int l = 0; l < 4; ++l) {
        begin[l] = (long long)l << 40;
        count[l] = len;
    }
    virtual_key = key;
    loads = late_loads = levels = 0;
    long long splits = 0, worst_rounds = 0;
    for (long long d = 0; d < 4 * len; d += nv, ++splits) {
        long long got[4], before = levels + late_loads, sum = 0;
        corank(NULL, begin, count, d, got);
        for (int l = 0; l < 4; ++l) sum += got[l];
        REQUIRE(sum == d, "%s: diagonal %lld", what, d);
        long long rounds = levels + late_loads - before;
        worst_rounds = rounds > worst_rounds ? rounds : worst_rounds;
    }
    virtual_key = NULL;
    int path = 0;
    while ((1ll << path) <= len) ++path;
    printf("corank %s, 4 lists of %lld, %lld splits: %.1f loads and %.1f rounds of loads a "
           "split (worst %lld); a 2-way merge path over lists of %lld: %d rounds of 1 load\n",
           what, len, splits, (double)loads / (double)splits,
           (double)(levels + late_loads) / (double)splits, worst_rounds, 2 * len, path + 1);
    fflush(stdout);
    /* A level is one round of at most 8 loads (4 samples, up to 4 tops), plus dependent loads in
     * the adjustment; the rounds stay within twice the levels. */
    REQUIRE((double)(levels + late_loads) / (double)splits <= 2.0 * (path + 2),
            "%s: too many rounds", what);
    REQUIRE(loads <= splits * 8 * (path + 2) + late_loads, "%s: too many loads", what);
}

#if !defined(MJ_CR_POS)
/* Four virtual lists of 2^33 elements (positions past 2^32), list l's key at p p / 8: the merge
 * takes runs of 8 from each list in turn, so the split at d is known. */
static int runs_of_8(long long i) { return (int)((i & ((1ll << 40) - 1)) >> 3); }

START_TEST(wide_lists)
{
    long long begin[4], count[4], len = 1ll << 33;
    for (int l = 0; l < 4; ++l) {
        begin[l] = (long long)l << 40;
        count[l] = len;
    }
    virtual_key = runs_of_8;
    uint64_t seed = 5;
    long long ends[] = {0, 1, 31, 32, 2 * len, 4 * len - 1, 4 * len};
    for (int rep = 0; rep < 2000 * VARIANTS; ++rep) {
        variant = rep % VARIANTS;
        long long d = rep < 7 * VARIANTS ? ends[rep / VARIANTS]
                                         : (long long)(mjt_rand(&seed) % (4 * (uint64_t)len));
        long long got[4];
        corank(NULL, begin, count, d, got);
        long long q = d / 32, rem = d % 32;
        for (int l = 0; l < 4; ++l) {
            long long part = rem - 8 * l, want = 8 * q + (part < 0 ? 0 : part > 8 ? 8 : part);
            REQUIRE(got[l] == want, "diagonal %lld: list %d splits at %lld, not %lld", d, l,
                    got[l], want);
        }
    }
    virtual_key = NULL;
}
END_TEST
#endif

START_TEST(loads_per_split)
{
    variant = 0;
    long long nv = 256 * 23;
    count_loads(1ll << 25, nv * 64, interleaved, "interleaved");
    count_loads(1ll << 25, nv * 64, apart, "apart");
    count_loads(3 * nv, 1, interleaved, "interleaved, short");
}
END_TEST

static Suite *corank_suite(void) {
    Suite *s = suite_create("corank");
    TCase *tc = tcase_create("splits");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, every_diagonal, 0, DISTS);
    tcase_add_loop_test(tc, random_shapes, 0, DISTS);
    tcase_add_test(tc, broken_comparator);
    tcase_add_test(tc, window_answers_complement);
    tcase_add_test(tc, loads_per_split);
#if !defined(MJ_CR_POS)
    tcase_add_test(tc, wide_lists);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(corank_suite(), 1); }
