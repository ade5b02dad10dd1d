/* SPDX-License-Identifier: Apache-2.0 */
/* The autotuner's JSON report (tools/cli/tune_report.c): valid JSON by a strict validator,
 * every point in order, escapes, NaN and infinity written as 0, and the outcome names it uses.
 * CPU only. */
#include <check.h>

#include "test_support.h"
#include "tune.h"
#include "tune_report_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A strict JSON validator (RFC 8259 grammar): each parser advances *s past one value and
 * returns 1, or returns 0. */
static void skip_ws(const char **s)
{
    while (**s == ' ' || **s == '\t' || **s == '\n' || **s == '\r')
        (*s)++;
}

static int json_value(const char **s, int depth);

static int json_string_ok(const char **s)
{
    if (**s != '"')
        return 0;
    for ((*s)++; **s != '"'; (*s)++) {
        unsigned char c = (unsigned char)**s;
        if (c < 0x20)
            return 0;
        if (c != '\\')
            continue;
        (*s)++;
        if (**s == 'u') {
            for (int i = 0; i < 4; i++) {
                (*s)++;
                if (!strchr("0123456789abcdefABCDEF", **s) || **s == '\0')
                    return 0;
            }
        } else if (**s == '\0' || !strchr("\"\\/bfnrt", **s)) {
            return 0;
        }
    }
    (*s)++;
    return 1;
}

static int digits(const char **s)
{
    const char *start = *s;
    while (**s >= '0' && **s <= '9')
        (*s)++;
    return *s > start;
}

static int json_number_ok(const char **s)
{
    if (**s == '-')
        (*s)++;
    if (**s == '0')
        (*s)++;
    else if (!digits(s))
        return 0;
    if (**s == '.') {
        (*s)++;
        if (!digits(s))
            return 0;
    }
    if (**s == 'e' || **s == 'E') {
        (*s)++;
        if (**s == '+' || **s == '-')
            (*s)++;
        if (!digits(s))
            return 0;
    }
    return 1;
}

static int json_members(const char **s, int depth, char close, int object)
{
    (*s)++;
    skip_ws(s);
    if (**s == close) {
        (*s)++;
        return 1;
    }
    for (;;) {
        if (object) {
            if (!json_string_ok(s))
                return 0;
            skip_ws(s);
            if (**s != ':')
                return 0;
            (*s)++;
        }
        if (!json_value(s, depth + 1))
            return 0;
        skip_ws(s);
        if (**s == close) {
            (*s)++;
            return 1;
        }
        if (**s != ',')
            return 0;
        (*s)++;
        skip_ws(s);
    }
}

static int json_value(const char **s, int depth)
{
    if (depth > 32)
        return 0;
    skip_ws(s);
    switch (**s) {
    case '{': return json_members(s, depth, '}', 1);
    case '[': return json_members(s, depth, ']', 0);
    case '"': return json_string_ok(s);
    case 't': return strncmp(*s, "true", 4) == 0 ? (*s += 4, 1) : 0;
    case 'f': return strncmp(*s, "false", 5) == 0 ? (*s += 5, 1) : 0;
    case 'n': return strncmp(*s, "null", 4) == 0 ? (*s += 4, 1) : 0;
    default: return json_number_ok(s);
    }
}

static int json_valid(const char *text)
{
    const char *s = text;
    if (!json_value(&s, 0))
        return 0;
    skip_ws(&s);
    return *s == '\0';
}

/* ---------------------------------------------------------------- tests */

START_TEST(outcome_names)
{
    ck_assert_str_eq(tune_outcome_name(TUNE_PENDING), "pending");
    ck_assert_str_eq(tune_outcome_name(TUNE_MEASURED), "measured");
    ck_assert_str_eq(tune_outcome_name(TUNE_SPILLS), "spills");
    ck_assert_str_eq(tune_outcome_name(TUNE_INVALID), "invalid");
    ck_assert_str_eq(tune_outcome_name(TUNE_BUILD_FAILED), "build-failed");
    ck_assert_str_eq(tune_outcome_name(TUNE_RUN_FAILED), "run-failed");
    ck_assert_str_eq(tune_outcome_name(TUNE_SKIPPED), "skipped");
}
END_TEST

START_TEST(validator_self_check)
{
    ck_assert(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\"], \"b\": {}}"));
    ck_assert(!json_valid("{\"a\": [1, 2}"));
    ck_assert(!json_valid("{\"a\": nan}"));
    ck_assert(!json_valid("[1,]"));
    ck_assert(!json_valid("\"a\001\""));
    ck_assert(!json_valid("{} x"));
}
END_TEST

START_TEST(json_report)
{
    tune_point points[NPOINTS];
    size_t n = sample_points(points);
    tune_run_info info = sample_info();
    char *dir = mjt_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/tune.json", dir);

    /* Written twice: the second replaces the first and no temporary file stays behind. */
    ck_assert_int_eq(tune_write_json(path, &info, points, 3), 0);
    ck_assert_int_eq(tune_write_json(path, &info, points, n), 0);
    ck_assert_int_eq(entries(dir), 1);

    char *text = mjt_read_file(path, NULL);
    ck_assert_msg(json_valid(text), "not valid JSON:\n%s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"device\": \"NVIDIA \\\"A&B\\\" <GPU>\""));
    ck_assert_ptr_nonnull(strstr(text, "\"sm\": 90"));
    ck_assert_ptr_nonnull(strstr(text, "\"sizes\": [16777216, 67108864]"));
    ck_assert_ptr_nonnull(strstr(text, "\"reps\": 5"));

    /* Every point, in order. */
    ck_assert_uint_eq(count_of(text, "{\"primitive\": "), n);
    const char *at = text;
    for (size_t i = 0; i < n; i++) {
        char want[256];
        snprintf(want, sizeof want,
                 "{\"primitive\": \"%s\", \"key_size\": %zu, \"value_size\": %zu, \"nt\": %d, "
                 "\"vt\": %d, \"bs_nt\": 512, \"default\": %s, \"outcome\": \"%s\"",
                 mj_primitive_name(points[i].primitive), points[i].key_size,
                 points[i].value_size, points[i].nt, points[i].vt,
                 points[i].is_default ? "true" : "false", tune_outcome_name(points[i].outcome));
        const char *found = strstr(at, want);
        ck_assert_msg(found != NULL, "point %zu missing or out of order: %s", i, want);
        at = found + 1;
    }

    /* gkeys has size_count numbers everywhere. */
    for (const char *g = text; (g = strstr(g, "\"gkeys\": [")) != NULL; g++) {
        const char *end = strchr(g, ']');
        ck_assert_ptr_nonnull(end);
        size_t commas = 0;
        for (const char *c = g; c < end; c++)
            commas += *c == ',';
        ck_assert_uint_eq(commas, 1);
    }
    ck_assert_ptr_nonnull(strstr(text, "\"registers\": 39, \"spill_bytes\": -1, "
                                       "\"gkeys\": [18.9, 23.1], \"score\": 21, \"note\": \"\"}"));

    /* NaN and infinity become 0; the note's quote, backslash and control byte are escaped. */
    ck_assert_ptr_nonnull(strstr(text, "\"outcome\": \"run-failed\", \"registers\": 64, "
                                       "\"spill_bytes\": 0, \"gkeys\": [0, 0], \"score\": 0, "
                                       "\"note\": \"said \\\"no\\\" \\\\ at\\u0001 end <&>\"}"));
    ck_assert_ptr_null(strstr(text, "nan"));
    ck_assert_ptr_null(strstr(text, "inf"));
    ck_assert_int_eq(text[strlen(text) - 1], '\n');
    free(text);

    /* No points at all is still a valid file. */
    ck_assert_int_eq(tune_write_json(path, &info, points, 0), 0);
    text = mjt_read_file(path, NULL);
    ck_assert_msg(json_valid(text), "not valid JSON:\n%s", text);
    ck_assert_ptr_nonnull(strstr(text, "\"points\": []"));
    free(text);

    mjt_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *tune_json_suite(void)
{
    Suite *s = suite_create("tune_json");
    TCase *tc = tcase_create("reports");
    tcase_add_test(tc, outcome_names);
    tcase_add_test(tc, validator_self_check);
    tcase_add_test(tc, json_report);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tune_json_suite(), 1);
}
