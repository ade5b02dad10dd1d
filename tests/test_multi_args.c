/* SPDX-License-Identifier: Apache-2.0 */
/* What the multi-GPU sort refuses without a GPU: a missing NCCL (MERGEJIT_NCCL naming no file,
 * or a library that is not NCCL) is MJ_ERR_UNSUPPORTED with a message naming what was tried
 * (for the sorter, the communicators and the id of one rank a process);
 * bad arguments (NULL context, description, output or communicator, another primitive) are
 * MJ_ERR_INVALID_ARGUMENT, before NCCL is even looked for; a compile-only context cannot sort
 * across GPUs; NULL sorters; and mj_multi_comms_create's own refusals. Each test runs in its
 * own process (NCCL is opened once per process). CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_support.h"
#include "test_support.h"

#define NO_LIB "/nonexistent/mergejit-test/libnccl.so.2"
#define FAKE_COMM ((void *)(uintptr_t)0x1000) /* never dereferenced: refused before */

static mj_context *compile_context(char **dir) {
    *dir = mjt_tmpdir();
    return mjt_compile_context(90, *dir);
}

static void done(mj_context *ctx, char *dir) {
    mj_context_destroy(ctx);
    mjt_rmtree(dir);
    free(dir);
}

START_TEST(missing_nccl) {
    ck_assert_int_eq(setenv("MERGEJIT_NCCL", NO_LIB, 1), 0);
    char *dir;
    mj_context *ctx = compile_context(&dir);
    mj_sort_desc desc = u32_desc();
    mj_multi_sorter *m = (mj_multi_sorter *)FAKE_COMM;
    mjt_expect(ctx, mj_multi_sorter_create(ctx, &desc, FAKE_COMM, &m), MJ_ERR_UNSUPPORTED, NO_LIB,
               "create without NCCL");
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "cannot load NCCL"));
    ck_assert_int_eq(mj_nccl_version(), 0);

    void *comms[2] = {FAKE_COMM, FAKE_COMM};
    char err[512] = "x";
    ck_assert_int_eq(mj_multi_comms_create(2, NULL, comms, err, sizeof err), MJ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err, NO_LIB) != NULL, "the message does not name the library: %s", err);
    ck_assert_ptr_null(comms[0]);
    ck_assert_ptr_null(comms[1]);
    mj_multi_comms_destroy(2, comms); /* NULL entries, no NCCL: nothing to do */
    /* One rank a process: the id and the rank's communicator need NCCL too. */
    mj_multi_id id;
    ck_assert_int_eq(mj_multi_id_create(&id, err, sizeof err), MJ_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err, NO_LIB) != NULL, "the message does not name the library: %s", err);
    memset(&id, 0, sizeof id);
    void *comm = FAKE_COMM;
    mjt_expect(ctx, mj_multi_comm_create(ctx, &id, 2, 0, &comm), MJ_ERR_UNSUPPORTED, NO_LIB,
               "a rank's communicator without NCCL");
    ck_assert_ptr_null(comm);
    done(ctx, dir);
}
END_TEST

START_TEST(library_that_is_not_nccl) {
    ck_assert_int_eq(setenv("MERGEJIT_NCCL", "libresolv.so.2", 1), 0);
    char *dir;
    mj_context *ctx = compile_context(&dir);
    mj_sort_desc desc = u32_desc();
    mj_multi_sorter *m = NULL;
    mjt_expect(ctx, mj_multi_sorter_create(ctx, &desc, FAKE_COMM, &m), MJ_ERR_UNSUPPORTED,
               "lacks ncclGetVersion", "create over libresolv");
    ck_assert_ptr_nonnull(strstr(mj_context_last_error(ctx), "libresolv.so.2"));
    ck_assert_int_eq(mj_nccl_version(), 0);
    done(ctx, dir);
}
END_TEST

/* Argument errors come first, whatever NCCL and the context are. */
START_TEST(bad_arguments) {
    if (_i) ck_assert_int_eq(setenv("MERGEJIT_NCCL", NO_LIB, 1), 0);
    char *dir;
    mj_context *ctx = compile_context(&dir);
    mj_sort_desc desc = u32_desc();
    mj_multi_sorter *m = NULL;
    ck_assert_int_eq(mj_multi_sorter_create(NULL, &desc, FAKE_COMM, &m), MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_multi_sorter_create(ctx, NULL, FAKE_COMM, &m), MJ_ERR_INVALID_ARGUMENT,
               "desc", "NULL desc");
    mjt_expect(ctx, mj_multi_sorter_create(ctx, &desc, FAKE_COMM, NULL), MJ_ERR_INVALID_ARGUMENT,
               "out", "NULL out");
    mjt_expect(ctx, mj_multi_sorter_create(ctx, &desc, NULL, &m), MJ_ERR_INVALID_ARGUMENT,
               "comm is NULL", "NULL comm");
    ck_assert_ptr_null(m);
    const mj_primitive others[] = {MJ_MERGE, MJ_LOCALITY_SORT, MJ_SORTED_SEARCH, MJ_SET_OPS,
                                   MJ_PRIMITIVE_COUNT};
    for (size_t i = 0; i < sizeof others / sizeof *others; ++i) {
        desc.primitive = others[i];
        mjt_expect(ctx, mj_multi_sorter_create(ctx, &desc, FAKE_COMM, &m),
                   MJ_ERR_INVALID_ARGUMENT, "mergesort", "another primitive");
        ck_assert_ptr_null(m);
    }
    done(ctx, dir);
}
END_TEST

/* With NCCL there, a compile-only context still has no device to sort on. */
START_TEST(compile_only_context) {
    char *dir;
    mj_context *ctx = compile_context(&dir);
    mj_sort_desc desc = u32_desc();
    mj_multi_sorter *m = NULL;
    int nccl = mj_nccl_version() != 0;
    mjt_expect(ctx, mj_multi_sorter_create(ctx, &desc, FAKE_COMM, &m), MJ_ERR_UNSUPPORTED,
               nccl ? "compile-only" : "NCCL", "create in a compile-only context");
    ck_assert_ptr_null(m);
    if (!nccl) printf("compile_only_context: NCCL is not here; checked the missing-NCCL path\n");
    done(ctx, dir);
}
END_TEST

/* One rank a process: arguments refused before NCCL is looked for (or, with it here, before
 * it is asked for anything); a compile-only context has no device for a rank. */
START_TEST(process_refusals) {
    char *dir;
    mj_context *ctx = compile_context(&dir);
    mj_multi_id id;
    memset(&id, 0, sizeof id);
    void *comm = FAKE_COMM;
    ck_assert_int_eq(mj_multi_id_create(NULL, NULL, 0), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_multi_comm_create(NULL, &id, 2, 0, &comm), MJ_ERR_INVALID_ARGUMENT);
    mjt_expect(ctx, mj_multi_comm_create(ctx, NULL, 2, 0, &comm), MJ_ERR_INVALID_ARGUMENT,
               "required", "NULL id");
    mjt_expect(ctx, mj_multi_comm_create(ctx, &id, 2, 0, NULL), MJ_ERR_INVALID_ARGUMENT,
               "required", "NULL comm");
    const int bad[][2] = {{0, 0}, {2, 2}, {2, -1}, {-3, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        comm = FAKE_COMM;
        mjt_expect(ctx, mj_multi_comm_create(ctx, &id, bad[i][0], bad[i][1], &comm),
                   MJ_ERR_INVALID_ARGUMENT, "out of range", "a rank out of range");
        ck_assert_ptr_null(comm);
    }
    int nccl = mj_nccl_version() != 0;
    mjt_expect(ctx, mj_multi_comm_create(ctx, &id, 2, 1, &comm), MJ_ERR_UNSUPPORTED,
               nccl ? "compile-only" : "NCCL", "a rank's communicator without a device");
    if (nccl) { /* ncclGetUniqueId needs no GPU, only a network interface: fresh bytes */
        mj_multi_id a, b;
        char err[512];
        mj_status st = mj_multi_id_create(&a, err, sizeof err);
        if (st == MJ_ERR_CUDA) { /* NCCL found no interface here: its failure, named */
            ck_assert_msg(strstr(err, "ncclGetUniqueId failed") != NULL, "%s", err);
            printf("process_refusals: %s\n", err);
        } else {
            ck_assert_msg(st == MJ_OK, "%s: %s", mj_status_name(st), err);
            ck_assert_msg(mj_multi_id_create(&b, err, sizeof err) == MJ_OK, "%s", err);
            ck_assert(memcmp(&a, &b, sizeof a) != 0);
        }
    }
    ck_assert_int_eq(mj_multi_sorter_set_timeout(NULL, 1.0), MJ_ERR_INVALID_ARGUMENT);
    done(ctx, dir);
}
END_TEST

START_TEST(null_sorter) {
    size_t count = 7;
    ck_assert_int_eq(mj_multi_sort_plan(NULL, NULL, NULL, 0, &count, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_multi_sort_finish(NULL, NULL, NULL, NULL), MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_multi_sort(NULL, NULL, NULL, 0, NULL, NULL, 0, &count, NULL),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(count, 7);
    mj_multi_sorter_destroy(NULL);
    int rank = 5, ranks = 5;
    mj_multi_sorter_rank(NULL, &rank, &ranks);
    ck_assert_int_eq(rank, -1);
    ck_assert_int_eq(ranks, 0);
    mj_multi_sorter_rank(NULL, NULL, NULL);
}
END_TEST

START_TEST(comms_refusals) {
    void *comms[2] = {FAKE_COMM, FAKE_COMM};
    char err[512] = "x";
    ck_assert_int_eq(mj_multi_comms_create(0, NULL, comms, err, sizeof err),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(err, "count"));
    ck_assert_int_eq(mj_multi_comms_create(2, NULL, NULL, err, sizeof err),
                     MJ_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(mj_multi_comms_create(-1, NULL, comms, NULL, 0), MJ_ERR_INVALID_ARGUMENT);
    mj_multi_comms_destroy(0, NULL);
    /* Without a GPU (here): no driver or no device, named before NCCL is asked for anything. */
    if (mj_nccl_version() == 0) return;
    int devices[2] = {0, 1 << 20};
    mj_status st = mj_multi_comms_create(2, devices, comms, err, sizeof err);
    if (mj_driver_version() == 0) {
        ck_assert_msg(st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE, "got %s: %s",
                      mj_status_name(st), err);
    } else {
        ck_assert_msg(st == MJ_ERR_NO_DEVICE, "got %s: %s", mj_status_name(st), err);
        ck_assert_ptr_nonnull(strstr(err, "does not exist"));
    }
    ck_assert_str_ne(err, "");
    ck_assert_ptr_null(comms[0]);
    ck_assert_ptr_null(comms[1]);
}
END_TEST

static Suite *multi_args_suite(void) {
    Suite *s = suite_create("multi_args");
    TCase *tc = tcase_create("args");
    tcase_add_test(tc, missing_nccl);
    tcase_add_test(tc, library_that_is_not_nccl);
    tcase_add_loop_test(tc, bad_arguments, 0, 2);
    tcase_add_test(tc, compile_only_context);
    tcase_add_test(tc, process_refusals);
    tcase_add_test(tc, null_sorter);
    tcase_add_test(tc, comms_refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_forked(multi_args_suite()); }
