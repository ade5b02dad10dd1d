/* SPDX-License-Identifier: Apache-2.0 */
/* Each kernel's program (gen/kernel_program.h): its spec normalized to the tile parameters
 * the kernel uses, so that tiles differing only in others share the program. Checked for
 * mergesort, locality and segmented sort (the primitives with a blocksort, whose tiles have
 * all three parameters) against NVRTC: a kernel's PTX, compiled from its program for the
 * spec's own tile (not normalized), is the same for two tiles that differ in one parameter
 * exactly when the kernel is said not to use it (so normalizing is safe, and nothing that
 * could be shared is missed), and the normalized program's PTX is that PTX. Without NVRTC:
 * the table, the normalized specs (valid, idempotent) and which program sources are equal.
 * Needs NVRTC (required on CI), no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile_choice.h"
#include "driver/compile.h"
#include "driver/dl_nvrtc.h"
#include "gen.h"
#include "kernel_program.h"
#include "test_support.h"

#define ERR_CAP 32768

static mj_kernel_spec spec_of(mj_primitive p, mj_key_kind key, size_t values, int nt, int vt,
                              int bs_nt) {
    mj_kernel_spec s;
    memset(&s, 0, sizeof s);
    s.primitive = p;
    s.key = key;
    s.order = MJ_ASCENDING;
    s.value_size = values;
    s.sm = 90;
    s.nt = nt;
    s.vt = vt;
    s.bs_nt = bs_nt;
    return s;
}

/* Kernel k's program for spec: normalized (the library's), or from spec's own tile. */
static char *program(const mj_kernel_spec *s, int k, int normalized) {
    char err[512] = "";
    char *out = NULL;
    if (normalized) {
        ck_assert_msg(mj__gen_program_source(s, k, &out, NULL, err, sizeof err) == 0, "%s: %s",
                      mj__kernel_name(s->primitive, k), err);
        return out;
    }
    char *src = NULL;
    ck_assert_msg(mj__gen_source(s, &src, NULL, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(mj__gen_kernel_source(src, mj__kernel_name(s->primitive, k), &out, NULL), 0);
    free(src);
    return out;
}

/* The three ways a tile can differ from the base, one parameter each. */
static const struct {
    unsigned param;
    int nt, vt, bs_nt;
} base = {0, 128, 7, 256}, variants[3] = {
    {MJ_USES_NT, 256, 7, 256}, {MJ_USES_VT, 128, 9, 256}, {MJ_USES_BS_NT, 128, 7, 512}};

static const mj_primitive primitives[] = {MJ_MERGESORT, MJ_LOCALITY_SORT, MJ_SEGMENTED_SORT};
#define PRIMITIVES (sizeof primitives / sizeof *primitives)

/* ---------------------------------------------------------------- without NVRTC */

START_TEST(tile_uses_table)
{
    unsigned all = MJ_USES_TILE;
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_K_PARTITION), 0);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_K_PARTITION4), 0);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_K_PARTITION4_ONE), 0);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_K_BLOCKSORT),
                      MJ_USES_VT | MJ_USES_BS_NT);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_LOCALITY_SORT, MJ_K_BLOCKSORT),
                      MJ_USES_VT | MJ_USES_BS_NT);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_SEGMENTED_SORT, MJ_K_BLOCKSORT), all);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_K_MERGE), MJ_USES_NT | MJ_USES_VT);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_K_MERGE4), MJ_USES_NT | MJ_USES_VT);
    /* Kernels not in the table use everything (the merge's and the set operations' do). */
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGE, MJ_K_MERGE_ARRAYS), all);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_SET_OPS, MJ_K_SETOP), all);
    ck_assert_uint_eq(mj__kernel_tile_uses(MJ_MERGESORT, MJ_KERNELS_MAX), all);
}
END_TEST

/* Every kernel of every primitive, for tiles from the smallest to large ones and several
 * element sizes: the normalized spec passes the checks, keeps what the kernel uses, is its own
 * normalization, and sets what it does not use to the one value. */
START_TEST(program_specs_valid)
{
    static const struct {
        int nt, vt, bs_nt;
    } tiles[] = {{32, 1, 0}, {128, 7, 256}, {256, 23, 512}, {64, 31, 1024}, {512, 3, 0}};
    static const size_t values[] = {0, 4, 16};
    int normalized = 0;
    for (int p = 0; p < MJ_PRIMITIVE_COUNT; ++p) {
        mj_kernel_set kernels = mj__primitive_kernels((mj_primitive)p);
        for (size_t t = 0; t < sizeof tiles / sizeof *tiles; ++t)
            for (size_t v = 0; v < sizeof values / sizeof *values; ++v) {
                mj_kernel_spec s = spec_of((mj_primitive)p, MJ_KEY_U64, values[v], tiles[t].nt,
                                           tiles[t].vt, tiles[t].bs_nt);
                if (mj__is_lbs((mj_primitive)p)) s.key = MJ_KEY_I64;
                char err[256];
                if (mj__spec_check(&s, err, sizeof err)) continue; /* not a tile for p */
                for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
                    if (!(kernels & (1u << k))) continue;
                    unsigned uses = mj__kernel_tile_uses(s.primitive, k);
                    mj_kernel_spec n, again;
                    mj__program_spec(&s, k, &n);
                    ck_assert_msg(mj__spec_check(&n, err, sizeof err) == 0, "%s %s: %s",
                                  mj_primitive_name(s.primitive),
                                  mj__kernel_name(s.primitive, k), err);
                    mj__program_spec(&n, k, &again);
                    ck_assert_int_eq(again.nt, n.nt);
                    ck_assert_int_eq(again.vt, n.vt);
                    ck_assert_int_eq(mj__spec_bs_nt(&again), mj__spec_bs_nt(&n));
                    if (uses & MJ_USES_NT) ck_assert_int_eq(n.nt, s.nt);
                    if (uses & MJ_USES_VT) ck_assert_int_eq(n.vt, s.vt);
                    else ck_assert_int_eq(n.vt, MJ_PROGRAM_VT);
                    if (uses & MJ_USES_BS_NT) ck_assert_int_eq(mj__spec_bs_nt(&n),
                                                               mj__spec_bs_nt(&s));
                    if (!(uses & (MJ_USES_NT | MJ_USES_BS_NT)))
                        ck_assert_int_eq(n.nt, MJ_PROGRAM_NT);
                    ck_assert_uint_eq(n.value_size, s.value_size);
                    ck_assert_int_eq(n.sm, s.sm);
                    normalized += n.nt != s.nt || n.vt != s.vt ||
                                  mj__spec_bs_nt(&n) != mj__spec_bs_nt(&s);
                }
            }
    }
    ck_assert_int_gt(normalized, 0);
}
END_TEST

/* The library's programs (normalized) of a tile and of each variant are the same text exactly
 * when the kernel does not use the parameter that differs; the partitions' are the same for
 * the base tile and the canonical one. */
START_TEST(program_sources_shared)
{
    for (size_t p = 0; p < PRIMITIVES; ++p) {
        mj_kernel_spec b = spec_of(primitives[p], MJ_KEY_U32, 4, base.nt, base.vt, base.bs_nt);
        mj_kernel_set kernels = mj__primitive_kernels(b.primitive);
        for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
            if (!(kernels & (1u << k))) continue;
            unsigned uses = mj__kernel_tile_uses(b.primitive, k);
            char *one = program(&b, k, 1);
            for (int v = 0; v < 3; ++v) {
                mj_kernel_spec o = spec_of(b.primitive, b.key, 4, variants[v].nt, variants[v].vt,
                                           variants[v].bs_nt);
                char *other = program(&o, k, 1);
                int same = strcmp(one, other) == 0;
                ck_assert_msg(same == !(uses & variants[v].param),
                              "%s %s: the programs of %dx%dx%d and %dx%dx%d are %s",
                              mj_primitive_name(b.primitive), mj__kernel_name(b.primitive, k),
                              base.nt, base.vt, base.bs_nt, variants[v].nt, variants[v].vt,
                              variants[v].bs_nt, same ? "the same" : "different");
                free(other);
            }
            free(one);
        }
    }
    /* Another key type or order is another program, even for the partitions. */
    mj_kernel_spec a = spec_of(MJ_MERGESORT, MJ_KEY_U32, 0, 128, 7, 256);
    mj_kernel_spec d = a;
    d.order = MJ_DESCENDING;
    char *pa = program(&a, MJ_K_PARTITION4, 1), *pd = program(&d, MJ_K_PARTITION4, 1);
    ck_assert_str_ne(pa, pd);
    free(pa);
    free(pd);
}
END_TEST

/* ---------------------------------------------------------------- against NVRTC */

static const mj_nvrtc_api *nvrtc(void) {
    char err[1024] = "";
    const mj_nvrtc_api *nv = mj__nvrtc_load(err, sizeof err);
    ck_assert_msg(nv != NULL, "NVRTC is required for this test: %s", err);
    return nv;
}

static char *ptx_of(const mj_nvrtc_api *nv, const char *source, const char *what) {
    char *err = malloc(ERR_CAP);
    ck_assert_ptr_nonnull(err);
    void *bin = NULL;
    size_t size = 0;
    mj_status st = mj__compile(nv, source, (mj_target){90, 1}, &bin, &size, NULL, err, ERR_CAP);
    ck_assert_msg(st == MJ_OK, "%s: %s: %s", what, mj_status_name(st), err);
    free(err);
    return bin;
}

/* The proof of the table, one primitive per run (_i): see the top of the file. */
START_TEST(ptx_depends_on_what_is_used)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_primitive prim = primitives[_i];
    mj_kernel_spec b = spec_of(prim, MJ_KEY_U32, 4, base.nt, base.vt, base.bs_nt);
    mj_kernel_set kernels = mj__primitive_kernels(prim);
    for (int k = 0; k < MJ_KERNELS_MAX; ++k) {
        if (!(kernels & (1u << k))) continue;
        const char *name = mj__kernel_name(prim, k);
        unsigned uses = mj__kernel_tile_uses(prim, k);
        char *src = program(&b, k, 0);
        char *ptx = ptx_of(nv, src, name);
        free(src);
        src = program(&b, k, 1);
        char *normal = ptx_of(nv, src, name);
        free(src);
        ck_assert_msg(strcmp(ptx, normal) == 0, "%s %s: the normalized program's PTX differs",
                      mj_primitive_name(prim), name);
        free(normal);
        for (int v = 0; v < 3; ++v) {
            mj_kernel_spec o = spec_of(prim, b.key, 4, variants[v].nt, variants[v].vt,
                                       variants[v].bs_nt);
            src = program(&o, k, 0);
            char *other = ptx_of(nv, src, name);
            free(src);
            int same = strcmp(ptx, other) == 0;
            ck_assert_msg(same == !(uses & variants[v].param),
                          "%s %s: the PTX of %dx%dx%d and %dx%dx%d is %s, but the table says "
                          "it %s the parameter that differs",
                          mj_primitive_name(prim), name, base.nt, base.vt, base.bs_nt,
                          variants[v].nt, variants[v].vt, variants[v].bs_nt,
                          same ? "the same" : "different", same ? "uses" : "does not use");
            free(other);
        }
        free(ptx);
    }
}
END_TEST

/* The 4-way passes' two partition programs compile only their own searches (what splitting
 * the kernel is for): the group's shuffles its lanes' samples, the one lane's has no shuffle
 * (the group search left an uninstantiated template). */
START_TEST(partition4_programs_apart)
{
    const mj_nvrtc_api *nv = nvrtc();
    mj_kernel_spec s = spec_of(MJ_MERGESORT, MJ_KEY_U32, 0, base.nt, base.vt, base.bs_nt);
    char *src = program(&s, MJ_K_PARTITION4, 1);
    char *group = ptx_of(nv, src, "mj_partition4");
    free(src);
    src = program(&s, MJ_K_PARTITION4_ONE, 1);
    char *one = ptx_of(nv, src, "mj_partition4_one");
    free(src);
    ck_assert(strstr(group, ".entry mj_partition4(") && strstr(group, "shfl.sync"));
    ck_assert(strstr(one, ".entry mj_partition4_one(") && !strstr(one, "shfl"));
    ck_assert(!strstr(group, ".entry mj_partition4_one(") && !strstr(one, ".entry mj_partition4("));
    free(group);
    free(one);
}
END_TEST

static Suite *kernel_program_suite(void) {
    Suite *s = suite_create("kernel_program");
    TCase *tc = tcase_create("specs");
    tcase_add_test(tc, tile_uses_table);
    tcase_add_test(tc, program_specs_valid);
    tcase_add_test(tc, program_sources_shared);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("ptx");
    tcase_set_timeout(tp, 600);
    tcase_add_loop_test(tp, ptx_depends_on_what_is_used, 0, (int)PRIMITIVES);
    tcase_add_test(tp, partition4_programs_apart);
    suite_add_tcase(s, tp);
    return s;
}

int main(void) { return mjt_run(kernel_program_suite(), 1); }
