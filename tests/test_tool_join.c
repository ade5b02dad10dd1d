/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit join` without a GPU: --help, bad command lines (exit 2 with a message), input files
 * that are not whole keys or not sorted (exit 1, naming the file and the first key out of
 * order, before any device is needed), and a valid join that then finds no driver. CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char *dir, a_path[4200], b_path[4200], u_path[4200], odd_path[4200], out_path[4200];

static void files(void) {
    dir = mjt_tmpdir();
    static const unsigned a[] = {1, 2, 2, 5, 7, 9}, b[] = {2, 2, 3, 9, 9}, u[] = {4, 1, 8};
    snprintf(a_path, sizeof a_path, "%s/a.bin", dir);
    snprintf(b_path, sizeof b_path, "%s/b.bin", dir);
    snprintf(u_path, sizeof u_path, "%s/u.bin", dir);
    snprintf(odd_path, sizeof odd_path, "%s/odd.bin", dir);
    snprintf(out_path, sizeof out_path, "%s/out.bin", dir);
    mjt_write_file(a_path, a, sizeof a);
    mjt_write_file(b_path, b, sizeof b);
    mjt_write_file(u_path, u, sizeof u);
    mjt_write_file(odd_path, "12345", 5);
}

/* Runs the tool; checks its status and that `needle` is in its stderr. */
static void expect(const char *const *args, const char *const *env, int status,
                   const char *needle) {
    mjt_tool_run r = mjt_run_tool(args, env);
    ck_assert_msg(r.status == status, "%s %s: exit %d, not %d:\n%s%s", args[0], args[1],
                  r.status, status, r.out, r.err);
    ck_assert_msg(strstr(r.err, needle) != NULL, "'%s' is not in:\n%s", needle, r.err);
    mjt_tool_run_free(&r);
}

START_TEST(usage_errors)
{
    files();
    static const char *const help[] = {"join", "--help", NULL};
    mjt_tool_run r = mjt_run_tool(help, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(strstr(r.out, "Usage: mergejit join") != NULL);
    ck_assert(strstr(r.out, "a rows, then all the b rows") != NULL);
    mjt_tool_run_free(&r);
    const char *no_type[] = {"join", a_path, b_path, out_path, NULL};
    expect(no_type, NULL, 2, "--type is required");
    const char *custom[] = {"join", "--type", "custom", a_path, b_path, out_path, NULL};
    expect(custom, NULL, 2, "custom key types");
    const char *bad_type[] = {"join", "--type", "u33", a_path, b_path, out_path, NULL};
    expect(bad_type, NULL, 2, "unknown key type 'u33'");
    const char *bad_kind[] = {"join", "--type", "u32", "--kind", "cross", a_path, b_path,
                              out_path, NULL};
    expect(bad_kind, NULL, 2, "bad kind 'cross'");
    const char *bad_size[] = {"join", "--type", "u32", "--index-size", "2", a_path, b_path,
                              out_path, NULL};
    expect(bad_size, NULL, 2, "bad index size '2'");
    const char *bad_order[] = {"join", "--type", "u32", "--order", "up", a_path, b_path,
                               out_path, NULL};
    expect(bad_order, NULL, 2, "bad order 'up'");
    const char *two[] = {"join", "--type", "u32", a_path, b_path, NULL};
    expect(two, NULL, 2, "expected A, B and OUT");
    const char *four[] = {"join", "--type", "u32", a_path, b_path, out_path, "x", NULL};
    expect(four, NULL, 2, "unexpected argument 'x'");
    const char *over_input[] = {"join", "--type", "u32", a_path, b_path, b_path, NULL};
    expect(over_input, NULL, 2, "it would be replaced");
    const char *bad_option[] = {"join", "--type", "u32", "--nope", a_path, b_path, out_path,
                                NULL};
    expect(bad_option, NULL, 2, "--nope");
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(input_errors)
{
    files();
    const char *const no_gpu[] = {"MERGEJIT_LIBCUDA=/nonexistent", NULL};
    const char *unsorted_b[] = {"join", "--type", "u32", a_path, u_path, out_path, NULL};
    expect(unsorted_b, no_gpu, 1, "is not sorted (asc): key 1 (1) comes before key 0 (4)");
    /* a.bin is ascending: not sorted for --order desc. */
    const char *desc[] = {"join", "--type", "u32", "--order", "desc", a_path, b_path, out_path,
                          NULL};
    expect(desc, no_gpu, 1, "a.bin' is not sorted (desc): key 1 (2) comes before key 0 (1)");
    const char *odd[] = {"join", "--type", "u32", odd_path, b_path, out_path, NULL};
    expect(odd, no_gpu, 1, "not a whole number of 4-byte u32 keys");
    const char *missing[] = {"join", "--type", "u32", "/nonexistent/a", b_path, out_path, NULL};
    expect(missing, no_gpu, 1, "/nonexistent/a");
    /* Sorted inputs pass the checks and reach the missing driver; nothing is written. */
    const char *valid[] = {"join", "--type", "u32", "--kind", "outer", "--index-size", "4",
                           a_path, b_path, out_path, NULL};
    expect(valid, no_gpu, 1, "MJ_ERR_NO_DRIVER");
    FILE *f = fopen(out_path, "rb");
    ck_assert_ptr_null(f);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *tool_join_suite(void) {
    Suite *s = suite_create("tool_join");
    TCase *tc = tcase_create("join");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, input_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(tool_join_suite(), 1); }
