/* SPDX-License-Identifier: Apache-2.0 */
/* The autotuner's SVG drawing (tools/cli/tune_svg.c): a self-contained file with escaped text,
 * panels in order, a line per measured NT and the winners marked; and both reports refusing a
 * missing directory. CPU only. */
#include <check.h>

#include "test_support.h"
#include "tune.h"
#include "tune_report_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- tests */

START_TEST(svg_report)
{
    tune_point points[NPOINTS];
    size_t n = sample_points(points);
    tune_run_info info = sample_info();
    char *dir = mjt_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/tune.svg", dir);
    ck_assert_int_eq(tune_write_svg(path, &info, points, n), 0);
    ck_assert_int_eq(entries(dir), 1);

    char *text = mjt_read_file(path, NULL);
    const char *body = text;
    if (strncmp(body, "<?xml", 5) == 0) {
        body = strstr(body, "?>\n");
        ck_assert_ptr_nonnull(body);
        body += 3;
    }
    ck_assert_int_eq(strncmp(body, "<svg", 4), 0);
    size_t len = strlen(text);
    ck_assert_uint_ge(len, 7);
    ck_assert_str_eq(text + len - 7, "</svg>\n");
    ck_assert_ptr_nonnull(strstr(text, "font-family=\"sans-serif\""));
    ck_assert_ptr_null(strstr(text, "<script"));
    ck_assert_ptr_null(strstr(text, "@font-face"));

    /* The title line. */
    ck_assert_ptr_nonnull(strstr(text, "NVIDIA &quot;A&amp;B&quot; &lt;GPU&gt;"));
    ck_assert_ptr_nonnull(strstr(text, "sm_90"));
    ck_assert_ptr_nonnull(strstr(text, "2^24, 2^26"));
    ck_assert_ptr_nonnull(strstr(text, "5 reps"));
    ck_assert_ptr_nonnull(strstr(text, "quick"));

    /* Every '&' starts an entity, and no raw markup characters leaked from the data. */
    for (const char *a = text; (a = strchr(a, '&')) != NULL; a++)
        ck_assert_msg(strncmp(a, "&amp;", 5) == 0 || strncmp(a, "&lt;", 4) == 0 ||
                          strncmp(a, "&gt;", 4) == 0 || strncmp(a, "&quot;", 6) == 0 ||
                          strncmp(a, "&apos;", 6) == 0,
                      "bare '&': %.20s", a);
    ck_assert_ptr_null(strstr(text, "A&B"));
    ck_assert_ptr_null(strstr(text, "<GPU>"));
    ck_assert_ptr_null(strchr(text, '\001'));

    /* Panels in order of first appearance. */
    const char *p1 = strstr(text, "mergesort  key 4 B  value 0 B");
    const char *p2 = strstr(text, "merge  key 8 B  value 4 B");
    const char *p3 = strstr(text, "segsort  key 2 B  value 0 B");
    ck_assert(p1 != NULL && p2 != NULL && p3 != NULL);
    ck_assert(p1 < p2 && p2 < p3);

    /* One line per (configuration, NT) with measured points: mergesort 128 and 256, merge
     * 128; a point per measured shape; the legend names the NTs. */
    ck_assert_uint_eq(count_of(text, "<polyline"), 3);
    ck_assert_uint_eq(count_of(text, "r=\"3.5\""), 10);
    ck_assert_ptr_nonnull(strstr(text, "NT=128"));
    ck_assert_ptr_nonnull(strstr(text, "NT=256"));

    /* The winners, and no other "best" label. */
    ck_assert_uint_eq(count_of(text, ">best 256x7<"), 1);
    ck_assert_uint_eq(count_of(text, ">best 128x3<"), 1);
    ck_assert_uint_eq(count_of(text, ">best "), 2);
    ck_assert_ptr_nonnull(strstr(p3, "no measured points"));
    ck_assert_uint_eq(count_of(text, "no measured points"), 1);
    free(text);

    /* No points at all is still a drawing. */
    ck_assert_int_eq(tune_write_svg(path, &info, points, 0), 0);
    text = mjt_read_file(path, NULL);
    len = strlen(text);
    ck_assert_str_eq(text + len - 7, "</svg>\n");
    free(text);

    mjt_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(missing_directory)
{
    tune_point points[NPOINTS];
    size_t n = sample_points(points);
    tune_run_info info = sample_info();
    char *dir = mjt_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/missing/tune.json", dir);
    ck_assert_int_eq(tune_write_json(path, &info, points, n), -1);
    snprintf(path, sizeof path, "%s/missing/tune.svg", dir);
    ck_assert_int_eq(tune_write_svg(path, &info, points, n), -1);
    ck_assert_int_eq(entries(dir), 0);
    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *tune_svg_suite(void)
{
    Suite *s = suite_create("tune_svg");
    TCase *tc = tcase_create("reports");
    tcase_add_test(tc, svg_report);
    tcase_add_test(tc, missing_directory);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tune_svg_suite(), 1);
}
