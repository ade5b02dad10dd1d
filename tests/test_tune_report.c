/* The autotuner's reports (tools/tune_report.c): the JSON file, the SVG drawing and the
 * progress line. CPU only. */
#include <check.h>

#include "test_support.h"
#include "tune.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the sample sweep */

/* Three configurations, in this order of first appearance:
 *   mergesort 4/0: NT 128 and 256 measured at VT 1..7, then spills / a failed run, a skip;
 *                  the default is 256x5 and the best 256x7;
 *   merge 8/4:     NT 128 measured at VT 1 and 3 (best 128x3), then a build failure; NT 256
 *                  invalid;
 *   segsort 2/0:   nothing measured. */
#define NPOINTS 20

static tune_point pt(mj_primitive prim, size_t key, size_t value, int nt, int vt,
                     tune_outcome outcome, double score)
{
    tune_point p;
    memset(&p, 0, sizeof p);
    p.primitive = prim;
    p.key_size = key;
    p.value_size = value;
    p.nt = nt;
    p.vt = vt;
    p.bs_nt = 512;
    p.outcome = outcome;
    p.registers = outcome == TUNE_MEASURED ? 32 + vt : -1;
    p.spill_bytes = outcome == TUNE_SPILLS ? 24 : -1;
    if (outcome == TUNE_MEASURED) {
        p.gkeys[0] = score * 0.9;
        p.gkeys[1] = score * 1.1;
        p.score = score;
    }
    return p;
}

static size_t sample_points(tune_point *p)
{
    size_t n = 0;
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 1, TUNE_MEASURED, 10);
    p[n++] = pt(MJ_MERGE, 8, 4, 128, 1, TUNE_MEASURED, 5);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 3, TUNE_MEASURED, 14);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 5, TUNE_MEASURED, 16);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 7, TUNE_MEASURED, 15);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 9, TUNE_SPILLS, 0);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 128, 11, TUNE_SKIPPED, 0);
    /* Listed out of VT order: the line must still run left to right. */
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 7, TUNE_MEASURED, 21);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 1, TUNE_MEASURED, 12);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 3, TUNE_MEASURED, 17);
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 5, TUNE_MEASURED, 19);
    p[n - 1].is_default = 1;
    p[n++] = pt(MJ_MERGESORT, 4, 0, 256, 9, TUNE_RUN_FAILED, 0);
    p[n - 1].registers = 64;
    p[n - 1].spill_bytes = 0;
    p[n - 1].gkeys[0] = NAN;
    p[n - 1].gkeys[1] = INFINITY;
    p[n - 1].score = NAN;
    strcpy(p[n - 1].note, "said \"no\" \\ at\001 end <&>");
    p[n++] = pt(MJ_MERGE, 8, 4, 128, 3, TUNE_MEASURED, 6);
    p[n++] = pt(MJ_MERGE, 8, 4, 128, 5, TUNE_BUILD_FAILED, 0);
    p[n++] = pt(MJ_MERGE, 8, 4, 256, 1, TUNE_INVALID, 0);
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 128, 1, TUNE_SPILLS, 0);
    p[n - 1].is_default = 1;
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 128, 3, TUNE_SKIPPED, 0);
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 256, 1, TUNE_PENDING, 0);
    p[n++] = pt(MJ_MERGE, 8, 4, 256, 3, TUNE_SKIPPED, 0);
    p[n++] = pt(MJ_SEGMENTED_SORT, 2, 0, 256, 3, TUNE_SKIPPED, 0);
    ck_assert_uint_eq(n, NPOINTS);
    return n;
}

static tune_run_info sample_info(void)
{
    tune_run_info info;
    memset(&info, 0, sizeof info);
    info.device = "NVIDIA \"A&B\" <GPU>";
    info.sm = 90;
    info.size_count = 2;
    info.log2_sizes[0] = 24;
    info.log2_sizes[1] = 26;
    info.reps = 5;
    info.quick = 1;
    info.version = "0.1.0";
    return info;
}

/* ---------------------------------------------------------------- helpers */

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Names in dir apart from "." and "..". */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

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

START_TEST(progress_not_a_terminal)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tune_progress(f, 0, 120, 0.0, "start");
    tune_progress(f, 41, 120, 60.0, "mergesort 4/0 256x7");
    tune_progress(f, 120, 120, 200.0, "done");
    ck_assert_int_eq(fflush(f), 0);
    ck_assert_int_eq(ftell(f), 0);
    fclose(f);
}
END_TEST

/* Everything the terminal's other side has received so far. */
static size_t drain(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    while (len + 1 < cap && poll(&pfd, 1, 200) > 0) {
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    return len;
}

START_TEST(progress_on_a_terminal)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        printf("note: no pseudo-terminal here; the terminal progress line is not tested\n");
        if (master >= 0)
            close(master);
        return;
    }
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    ck_assert_int_ge(slave, 0);
    FILE *f = fdopen(slave, "w");
    ck_assert_ptr_nonnull(f);
    char buf[1024];

    /* 41 of 120 after 60 s: 79 more at 60/41 s each is 115.6 s. `what` is cut short. */
    tune_progress(f, 41, 120, 60.0, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaTAIL");
    size_t len = drain(master, buf, sizeof buf);
    ck_assert_msg(strncmp(buf, "\r[######              ] 41/120 points, ETA 1m56s  aaaa", 54) == 0,
                  "got '%s'", buf);
    ck_assert_ptr_null(strstr(buf, "TAIL"));
    ck_assert_uint_eq(len, 100); /* '\r' and a line padded to 99 columns */
    ck_assert_ptr_null(strchr(buf, '\n'));

    tune_progress(f, 0, 120, 0.0, "start");
    drain(master, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "] 0/120 points, ETA --  start"));

    tune_progress(f, 120, 120, 3725.0, "done");
    len = drain(master, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(buf, "[####################] 120/120 points, ETA 0s  done"));
    ck_assert_int_eq(buf[len - 1], '\n');

    fclose(f);
    close(master);
}
END_TEST

static Suite *tune_report_suite(void)
{
    Suite *s = suite_create("tune_report");
    TCase *tc = tcase_create("reports");
    tcase_add_test(tc, outcome_names);
    tcase_add_test(tc, validator_self_check);
    tcase_add_test(tc, json_report);
    tcase_add_test(tc, svg_report);
    tcase_add_test(tc, missing_directory);
    tcase_add_test(tc, progress_not_a_terminal);
    tcase_add_test(tc, progress_on_a_terminal);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mjt_run(tune_report_suite(), 1);
}
