/* Helpers of the tests of contexts without a GPU (test_context_*.c): the descriptor they build
 * sorters for, and the runner that gives each test a process of its own. Header-only, so that
 * the support library's sources stay as they are. */
#ifndef MJ_TEST_CONTEXT_SUPPORT_H
#define MJ_TEST_CONTEXT_SUPPORT_H

#include <check.h>

#include "test_support.h"

static inline mj_sort_desc u32_desc(void) {
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    return d;
}

/* Runs the suite with each test in a process of its own, whatever CK_FORK says: tests that set
 * MERGEJIT_LIBCUDA or MERGEJIT_LIBNVRTC rely on it (the libraries are opened once per process). */
static inline int run_forked(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
